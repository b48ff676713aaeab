"""What the site publishes: the bank manifest, every published volume, its frozen files.

A volume is published once its frozen pages are registered in ``figures/fingerprints.json``
(``probepress render`` registers them). The site reads only small files here — each
``volume.yaml``, ``bank/bank.yaml`` and the two registries — never the bundles' records.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from generator import fingerprints
from generator.errors import InputError, Problem
from generator.figures import load_registry
from generator.fingerprints import FrozenFile
from generator.hashing import drift, on_disk, sha256_file
from generator.models.bank import BankManifest
from generator.models.figures import Figure
from generator.models.volume import Volume
from generator.store.jsonl import Bounds, Problems, load_document
from generator.store.paths import FINGERPRINT_REGISTRY, Layout, volume_pages_rel

M = TypeVar("M", Volume, BankManifest)

LEADERBOARD = "leaderboard"


@dataclass(frozen=True)
class PublishedVolume:
    """A published volume with its figures and frozen files."""

    volume: Volume
    figures: Mapping[str, Figure]
    """This volume's figures, by id."""
    frozen: Mapping[str, FrozenFile]
    """This volume's registered frozen files, by root-relative path."""

    @property
    def id(self) -> str:
        return self.volume.id

    def frozen_file(self, name: str) -> FrozenFile | None:
        """The registered file ``site_src/volumes/<vol>/<name>``, if any."""
        return self.frozen.get(f"{volume_pages_rel(self.id)}/{name}")

    def figure(self, suffix: str) -> Figure | None:
        """The figure ``<vol>/<suffix>``, if registered."""
        return self.figures.get(f"{self.id}/{suffix}")


@dataclass(frozen=True)
class Publication:
    """Everything the generated pages and downloads are made from."""

    layout: Layout
    bank: BankManifest
    volumes: tuple[PublishedVolume, ...]
    """Published volumes, oldest first."""
    figures: Mapping[str, Figure]
    """The whole figures registry."""
    frozen: Mapping[str, FrozenFile]
    """The whole fingerprint registry."""

    @property
    def latest(self) -> PublishedVolume | None:
        return self.volumes[-1] if self.volumes else None

    @property
    def demonstration(self) -> bool:
        """Whether anything published is demonstration data."""
        return self.bank.demonstration or any(v.volume.demonstration for v in self.volumes)

    def epoch(self) -> int:
        """``SOURCE_DATE_EPOCH`` of the site: midnight UTC of the latest publication date."""
        day = (
            self.latest.volume.publication_date if self.latest else self.bank.versions[-1].released
        )
        return int(dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).timestamp())


def _document(layout: Layout, path_rel: str, model: type[M], bounds: Bounds) -> M:
    problems = Problems()
    found = load_document(layout.root / path_rel, model, path_rel, problems, bounds.max_yaml_bytes)
    if found is None or problems:
        raise InputError(f"cannot read {path_rel}:", problems.items)
    return found


def _check_frozen(layout: Layout, entries: Mapping[str, FrozenFile]) -> None:
    recorded = ((rel, entries[rel].sha256) for rel in sorted(entries))
    problems = [
        Problem(
            found.path,
            None,
            "frozen-missing",
            "registered frozen file is missing",
            f"restore it, or re-render with `probepress render {entries[found.path].volume}`",
        )
        if found.change == "missing"
        else Problem(
            found.path,
            None,
            "frozen-changed",
            f"bytes differ from {FINGERPRINT_REGISTRY}",
            "published files never change; restore the registered bytes",
        )
        for found in drift(recorded, on_disk(layout.root))
    ]
    if problems:
        raise InputError("the frozen files do not match their registry:", problems)


def _draft_files(layout: Layout, volume: str) -> dict[str, fingerprints.FrozenFile]:
    """A draft volume's pages as they lie on disk (a draft is never registered)."""
    folder = layout.volume_pages(volume)
    return {
        layout.rel(p): fingerprints.FrozenFile(
            path=layout.rel(p), sha256=sha256_file(p), volume=volume, kind=p.suffix[1:]
        )
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in (".html", ".pdf")
    }


def load_publication(
    layout: Layout, bounds: Bounds | None = None, drafts: tuple[str, ...] = ()
) -> Publication:
    """Read what the site publishes and check that every frozen file is intact.

    ``drafts`` names volumes published as drafts: their watermarked pages are listed from
    disk, since a draft is never entered in the fingerprint registry.

    Raises:
        InputError: A file cannot be read, or a registered frozen file is missing or
            changed.
    """
    bounds = bounds or Bounds()
    bank = _document(layout, layout.rel(layout.bank_manifest), BankManifest, bounds)
    figures = load_registry(layout).figures
    frozen = fingerprints.load_frozen(layout)
    _check_frozen(layout, frozen)
    for draft in drafts:
        frozen = {**frozen, **_draft_files(layout, draft)}
    # A volume is on the site once its frozen pages are registered (``render``, run by
    # ``publish``); one whose figures exist but whose pages do not is still being
    # prepared, and is left out rather than shown half-made.
    with_pages = {entry.volume for entry in frozen.values()}
    volumes = []
    for vid in sorted(with_pages):
        volume = _document(layout, layout.rel(layout.volume_file(vid)), Volume, bounds)
        volumes.append(
            PublishedVolume(
                volume=volume,
                figures={k: f for k, f in figures.items() if k.startswith(f"{vid}/")},
                frozen={k: e for k, e in frozen.items() if e.volume == vid},
            )
        )
    return Publication(layout, bank, tuple(volumes), figures, frozen)
