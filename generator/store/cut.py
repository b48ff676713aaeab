"""The bank as of one of its versions (a *cut*), and the digests that seal a volume's cut.

A volume runs one bank version, and the bank grows after the volume is published: a later
version adds its entry to ``bank/bank.yaml`` and its items to ``bank/public.jsonl`` and
``bank/heldout_index.jsonl``. What a volume reads of the bank is the cut at its version:
the manifest with the versions up to it and the categories its items use (a category
declared later adds no column to an earlier volume's pages), and the item lines added up
to it. ``Bank.cut`` gives a volume that view; ``release.volume_inputs`` and a figure's
sources record the cut's digests (:func:`cut_digests`) instead of whole-file ones, and
``publish`` (:func:`kept`) and ``verify`` (:func:`current_digests`) recompute them the same
way. Growing the bank leaves a published volume's inputs as they were; editing
anything inside its cut (an item line, a version entry, a category it uses, the bank's
name or licence) changes a digest, and ``publish`` refuses it (``immutable-archive``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Protocol

from generator.canonical import dumps
from generator.hashing import sha256_bytes, sha256_file
from generator.models.bank import BankManifest
from generator.models.release import Release
from generator.models.volume import Volume
from generator.store.jsonl import Bounds, Problems, load_document
from generator.store.paths import BANK, BUNDLES, Layout

MANIFEST_REL = f"{BANK}/bank.yaml"
ITEM_FILES = (f"{BANK}/public.jsonl", f"{BANK}/heldout_index.jsonl")
"""The bank files whose lines carry ``added_in`` (root-relative)."""
CUT_FILES = (MANIFEST_REL, *ITEM_FILES)
"""The bank files a volume's inputs record as a cut; other bank files are hashed whole."""


def cut_manifest(manifest: BankManifest, version: str, categories: Collection[str]) -> BankManifest:
    """``manifest`` as of ``version``: its versions up to it, and of its categories (in
    display order) those in ``categories`` (the ones the cut's items use)."""
    versions = set(manifest.versions_up_to(version))
    return manifest.model_copy(
        update={
            "versions": [v for v in manifest.versions if v.id in versions],
            "categories": [c for c in manifest.categories if c.id in categories],
        }
    )


def _kept_lines(data: bytes, versions: Collection[str]) -> tuple[bytes, set[str]]:
    """The lines of a bank JSONL inside the cut, as they are (a line that is not a record
    with a later ``added_in`` is kept, so any other edit shows), and their categories."""
    kept: list[bytes] = []
    used: set[str] = set()
    for line in data.splitlines(keepends=True):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict):
            added, category = record.get("added_in"), record.get("category")
            if isinstance(added, str) and added not in versions:
                continue
            if isinstance(category, str):
                used.add(category)
        kept.append(line)
    return b"".join(kept), used


def _manifest(path: Path) -> BankManifest | None:
    return load_document(path, BankManifest, MANIFEST_REL, Problems(), Bounds().max_yaml_bytes)


def cut_digests(files: Mapping[str, Path], version: str | None) -> dict[str, str]:
    """SHA-256 of each bank file of ``CUT_FILES`` in ``files`` (root-relative name ->
    where to read it) as of ``version``: the item files' lines in the cut, and the cut
    manifest's canonical JSON. Empty when the manifest cannot be read or does not declare
    ``version`` (the files are then hashed whole, and a published volume's differ).

    The one definition: ``publish`` records these and ``verify`` recomputes them."""
    where = files.get(MANIFEST_REL)
    manifest = _manifest(where) if where is not None and version is not None else None
    if manifest is None or version not in manifest.version_ids():
        return {}
    versions = set(manifest.versions_up_to(version))
    digests: dict[str, str] = {}
    used: set[str] = set()
    for rel in ITEM_FILES:
        path = files.get(rel)
        if path is not None:
            kept, categories = _kept_lines(path.read_bytes(), versions)
            digests[rel] = sha256_bytes(kept)
            used |= categories
    cut = cut_manifest(manifest, version, used)
    digests[MANIFEST_REL] = sha256_bytes(dumps(cut.model_dump(mode="json")).encode("utf-8"))
    return digests


def cut_at(layout: Layout, volume: str, version: str | None = None) -> dict[str, str]:
    """:func:`cut_digests` of ``layout``'s bank as of ``version`` (by default, the bank
    version ``volume``'s ``volume.yaml`` names)."""
    if version is None:
        version = volume_bank_version(layout.volume_file(volume), f"{BUNDLES}/{volume}/volume.yaml")
    files = {rel: layout.root / rel for rel in CUT_FILES if (layout.root / rel).is_file()}
    return cut_digests(files, version)


def volume_bank_version(path: Path, shown: str) -> str | None:
    """The ``bank_version`` of the ``volume.yaml`` at ``path`` (None: it cannot be read)."""
    volume = load_document(path, Volume, shown, Problems(), Bounds().max_yaml_bytes)
    return None if volume is None else volume.bank_version


def bank_cut(read: Callable[[str], Path | None], volume: str) -> dict[str, str]:
    """The digests ``volume``'s inputs record for its bank files, each file read where
    ``read`` finds its root-relative name (None: not there): ``publish`` reads a root,
    ``verify`` a root or a built site's downloads."""
    rel = f"{BUNDLES}/{volume}/volume.yaml"
    where = read(rel)
    version = None if where is None else volume_bank_version(where, rel)
    return cut_digests({r: p for r in CUT_FILES if (p := read(r)) is not None}, version)


class InPlace(Protocol):
    """A root or built site read in place (``verify_checks.View``)."""

    def locate(self, rel: str) -> str | None: ...
    def readable(self, rel: str) -> bool: ...
    def path(self, rel: str) -> Path: ...
    def sha256_at(self, place: str) -> str | None: ...


def current_digests(view: InPlace, release: Release) -> Callable[[str], str | None]:
    """What each file ``release`` lists is now, by its place in ``view``, to compare with
    what it recorded: a bank input's cut digest (its whole-file one when that is what a
    release written before cuts recorded), any other file's SHA-256."""
    read = lambda rel: view.path(rel) if view.readable(rel) else None  # noqa: E731
    cut = {view.locate(rel): d for rel, d in bank_cut(read, release.volume).items()}
    recorded = {view.locate(rel): d for rel, d in release.inputs.items()}

    def now(place: str) -> str | None:
        whole = view.sha256_at(place)
        if place not in cut or recorded.get(place) == whole:
            return whole
        return cut[place]

    return now


def kept(root: Path, rel: str, was: str | None, now: str | None) -> bool:
    """Whether input ``rel`` of ``root`` (digest now ``now``, a cut for a bank file) is as
    a release recorded it (``was``): a release written before cuts recorded a bank file
    whole, so that digest is also accepted (read only when the cut's differs)."""
    if now == was:
        return True
    whole = sha256_file(root / rel) if rel in CUT_FILES and now is not None else None
    return was is not None and was == whole
