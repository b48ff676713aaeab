"""What every figure computation of one volume shares: the data, the registry being
filled, the tallies and the sources' digests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.figures.builder import PERCENT_PLACES, FigureSet, SourceCache, interval, signed
from generator.figures.tally import VolumeTally, tally_volume
from generator.models.figures import Interval as RegInterval
from generator.models.figures import Source
from generator.stats import Interval as StatsInterval
from generator.stats import to_decimal_str
from generator.store.cut import MANIFEST_REL, cut_at
from generator.store.rowtypes import BundleData
from generator.store.volume import VolumeData

AC1_PLACES = 3


def sources_of(
    data: VolumeData, cache: SourceCache, bundles: Sequence[BundleData], extra: Sequence[str] = ()
) -> list[Source]:
    """The files a figure of ``data`` over ``bundles`` is computed from, with their SHA-256:
    the bank (as of the volume's version: ``store.cut``), the volume and each bundle's
    manifest, verdicts and panel votes (``extra`` adds more of each bundle's files).
    Bundle files come pre-hashed by the loader."""
    layout = data.layout
    paths: list[Path] = [
        layout.bank_manifest,
        layout.public_items,
        layout.heldout_index,
        layout.volume_file(data.volume.id),
    ]
    for bundle in bundles:
        names = ("bundle.json", "verdicts.jsonl", "panel.jsonl", *extra)
        paths += [bundle.directory / n for n in names]
    for bundle in bundles:
        if bundle.directory not in cache.entered:
            cache.entered.add(bundle.directory)
            for name, digest in bundle.file_sha256.items():
                cache.known.setdefault(cache.rel(bundle.directory / name), digest)
    if MANIFEST_REL not in cache.known:  # the bank as of the volume's version
        cache.known.update(cut_at(layout, data.volume.id, data.volume.bank_version))
    return cache.sources(paths)


@dataclass
class FigureContext:
    """One volume's figure computation in progress; ``previous`` enables drift."""

    data: VolumeData
    previous: VolumeData | None
    reg: FigureSet = field(default_factory=FigureSet)
    cut: Mapping[str, str] | None = None
    """The digests of the bank cut at the volume's version, when already computed
    (``store.cut.cut_at``; None: computed with the first figure's sources)."""

    def __post_init__(self) -> None:
        self.vid = self.data.volume.id
        self.level = float(self.data.volume.thresholds.confidence)
        self.cache = SourceCache(self.data.layout, dict(self.cut or {}))
        self.tally: VolumeTally = tally_volume(self.data)

    def sources_for(self, *bundles: BundleData, extra: Sequence[str] = ()) -> list[Source]:
        """Sources of a figure over ``bundles`` of this volume."""
        return sources_of(self.data, self.cache, bundles, extra)


def _bounds(lo: float, hi: float, method: str, level: float, places: int, unit: str) -> RegInterval:
    iv = StatsInterval(estimate=(lo + hi) / 2, lo=lo, hi=hi, method=method, confidence=level)
    show = signed if unit else to_decimal_str
    text = f"{show(lo, places)}{unit} to {show(hi, places)}{unit}"
    return interval(iv, places, text)


def plain_interval(lo: float, hi: float, method: str, level: float) -> RegInterval:
    """An interval of an unsigned coefficient (AC1), displayed with its places."""
    return _bounds(lo, hi, method, level, AC1_PLACES, "")


def points_interval(lo: float, hi: float, method: str, level: float) -> RegInterval:
    """An interval in signed percentage points."""
    return _bounds(lo, hi, method, level, PERCENT_PLACES, " pts")
