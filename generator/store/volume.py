"""Load a volume: its ``volume.yaml``, the bank version it ran, and every bundle."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from generator.errors import InputError, Problem, UsageError
from generator.forked import Beside, inline
from generator.models.base import slugify
from generator.models.volume import CandidateRef, Volume
from generator.progress import Progress, expect
from generator.store import rows
from generator.store.bank import Bank, load_bank
from generator.store.bundle import Memo, scan_bundle
from generator.store.jsonl import Bounds, Locator, Problems, load_document
from generator.store.paths import Layout, file_name_problem
from generator.store.rowtypes import BundleData


@dataclass
class VolumeData:
    """A volume as read from disk, with every problem the readers found."""

    layout: Layout
    volume: Volume
    bank: Bank
    bundles: dict[str, BundleData] = field(default_factory=dict)
    problems: list = field(default_factory=list)  # type: ignore[type-arg]

    @property
    def id(self) -> str:
        return self.volume.id

    def slug_of(self, candidate: CandidateRef) -> str:
        return candidate.slug


def public_view(data: VolumeData) -> VolumeData:
    """``data`` as a reading without the private store gives it: no held-out texts or
    item keys in the bank, and no Tier 0 outcome on a held-out draw (computed from its
    private text). What ``publish`` hands to the figures and the pages, so that they are
    made from public data only while the volume is read once."""
    bank = data.bank
    if not bank.private and not bank.keys:
        return data
    heldout = bank.heldout
    bundles = {
        slug: replace(
            bundle,
            draws=[
                d._replace(tier0_pass=None)
                if d.key.item in heldout and d.tier0_pass is not None
                else d
                for d in bundle.draws
            ],
        )
        for slug, bundle in data.bundles.items()
    }
    # The whole bank behind a cut holds the held-out texts too: the view drops them there.
    whole = None if bank.whole is None else replace(bank.whole, private={}, keys={})
    public = replace(bank, private={}, keys={}, whole=whole)
    return replace(data, bank=public, bundles=bundles, problems=list(data.problems))


def candidate_slug(api: str, variant: str | None = None) -> str:
    """The bundle directory name of a candidate: its API string (and variant), slugified."""
    return slugify(api if variant is None else f"{api} {variant}")


def load_volume(
    layout: Layout,
    volume_id: str,
    *,
    bounds: Bounds | None = None,
    private: bool = True,
    strict: bool = True,
    progress: Progress | None = None,
    beside: Beside = inline,
) -> VolumeData:
    """Read ``bundles/<volume_id>/`` and everything it refers to.

    Args:
        layout: The publication root and private store.
        volume_id: ``vol-001`` …
        bounds: Reader limits.
        private: Also read held-out texts from the private store.
        strict: Raise ``InputError`` when any problem was found; otherwise return the
            data with ``problems`` filled (the preflight gate's mode).
        progress: Called with each bundle's slug as it is read.
        beside: Where the second half of the bundles is read while this process reads
            the first (``generator.forked.forked``: another process, for ``verify``'s
            second core); each bundle is read once, by one of the two, and the halves are
            put together in the candidates' order, problems included.

    Raises:
        UsageError: The volume does not exist.
        InputError: ``volume.yaml`` or the bank cannot be read (always), or any other
            problem when ``strict``.
    """
    bounds = bounds or Bounds()
    problems = Problems()
    data = _read_volume_and_bank(layout, volume_id, bounds, problems, private)
    entries = _read_bundles(data, volume_id, bounds, problems, progress, beside)
    data.problems = problems.items
    store = layout.cache
    if store is not None and not problems:  # a volume with problems leaves no trace
        # One bundle's rows dumped at a time (at 600 candidates the dumps are 110 MB).
        for entry, b in entries:
            store.put(rows.NAMESPACE, entry, rows.dump(b.draws, b.verdicts, b.panel, b.file_sha256))
    if strict and problems:
        raise InputError(f"cannot read volume {volume_id}:", problems.items)
    return data


def _read_volume_and_bank(
    layout: Layout, volume_id: str, bounds: Bounds, problems: Problems, private: bool
) -> VolumeData:
    """Read ``volume.yaml`` and the bank it ran; raise when the volume cannot be read."""
    if file_name_problem(volume_id) is not None or not os.path.lexists(
        layout.volume_file(volume_id)
    ):
        known = ", ".join(layout.volume_ids()) or "none"
        raise UsageError(
            f"no volume {volume_id!r} under {layout.rel(layout.bundles_dir)}/ (known: {known})"
        )
    shown = layout.rel(layout.volume_file(volume_id))
    volume = load_document(
        layout.volume_file(volume_id), Volume, shown, problems, bounds.max_yaml_bytes
    )
    bank = load_bank(layout, bounds, problems, private=private)
    if volume is None or bank is None:
        raise InputError(f"cannot read volume {volume_id}:", problems.items)
    if volume.id != volume_id:
        problems.add(
            shown, None, "volume-id", f"id is {volume.id!r} but the folder is {volume_id!r}"
        )
    if volume.bank_version not in bank.manifest.version_ids():
        problems.add(
            shown,
            None,
            "bank-version",
            f"bank_version {volume.bank_version} is not in bank/bank.yaml",
        )
        raise InputError(f"cannot read volume {volume_id}:", problems.items)
    # A volume counts the status its items had on its publication date: ledger lines dated
    # later are climbs after it, so its published figures never change.
    bank.count_up_to(volume.publication_date)
    # And it reads the bank as of its version: what later versions add changes none of it.
    return VolumeData(layout=layout, volume=volume, bank=bank.cut(volume.bank_version))


def _read_bundles(
    data: VolumeData,
    volume_id: str,
    bounds: Bounds,
    problems: Problems,
    progress: Progress | None,
    beside: Beside,
) -> list[tuple[str, BundleData]]:
    """Read each candidate's bundle into ``data``; the bundles to remember (by their cache
    entry's key) if all is well.

    The second half of the bundles is read ``beside`` (with its own problems and shared
    values), then added after the first half's, as one reading in order would."""
    layout, bank = data.layout, data.bank
    remembered = rows.bank_key(layout, bool(bank.private)) if layout.cache is not None else None
    owners = _bundle_owners(layout, data.volume, bounds, problems)
    expect(progress, len(owners))
    first, second = owners[: (len(owners) + 1) // 2], owners[(len(owners) + 1) // 2 :]

    memo = Memo()  # shared by the halves read here; a forked child has its own copy
    apart = beside is not inline  # another process: it shows no progress

    def read(slugs: list[str], found: Problems, shown: Progress | None) -> _Read:
        entries: list[tuple[str, BundleData]] = []
        bundles: dict[str, BundleData] = {}
        for slug in slugs:
            if shown is not None:
                shown(slug)
            bundle = scan_bundle(
                layout, volume_id, slug, bank, bounds, found, memo, remembered, entries
            )
            if bundle is not None:
                bundles[slug] = bundle
        return _Read(bundles, found.items, entries)

    with _collector_paused():
        later_shown = None if apart else progress
        with beside(lambda: read(second, Problems(), later_shown), "reading the bundles") as rest:
            done = read(first, problems, progress)
            later = rest.result()
    data.bundles.update(done.bundles)
    data.bundles.update(later.bundles)
    problems.items.extend(later.problems)
    if apart and progress is not None:
        for slug in second:
            progress(slug)
    return done.entries + later.entries


@dataclass(frozen=True)
class _Read:
    """Bundles read in order, with their problems and cache entries."""

    bundles: dict[str, BundleData]
    problems: list[Problem]
    entries: list[tuple[str, BundleData]]


def _bundle_owners(layout: Layout, volume: Volume, bounds: Bounds, problems: Problems) -> list[str]:
    """The bundle folder of each candidate; report the candidates that own none.

    A candidate's folder is its slugified API string, so an API string of punctuation
    only has none (reading "" would read the volume folder as a bundle), and two API
    strings can slugify to one folder: reading it twice would count one run twice.
    """
    path = layout.volume_file(volume.id)
    shown = layout.rel(path)
    owners: dict[str, CandidateRef] = {}
    lines = Locator(path, bounds.max_yaml_bytes)
    out = []
    for n, candidate in enumerate(volume.candidates):
        slug = candidate.slug
        other = owners.get(slug)
        if slug and other is None:
            owners[slug] = candidate
            out.append(slug)
            continue
        line = lines.line(("candidates", n, "api"))
        if not slug:
            message = f"candidate {candidate.api!r} slugifies to nothing: it has no bundle folder"
            fix = "an API string needs at least one ASCII letter or digit"
            problems.add(shown, line, "empty-slug", message, fix)
        elif other is not None and other.api == candidate.api:
            problems.add(shown, line, "duplicate-candidate", f"{candidate.api!r} is listed twice")
        elif other is not None:
            message = (
                f"candidates {other.api!r} and {candidate.api!r} both slugify to {slug!r}, "
                "one bundle folder"
            )
            fix = "API strings must slugify to distinct bundle folders"
            problems.add(shown, line, "slug-collision", message, fix)
    return out


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while bundles are read.

    Rows are named tuples, which CPython never untracks, so every full collection during a
    load walks all the rows read so far: about a sixth of the load's time at 60 candidates.
    Reading leaves no reference cycles behind (even on bad files), so nothing is lost by
    collecting later; the collector resumes as it was, also when reading fails.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
