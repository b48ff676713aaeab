"""The downloads folder (``site_src/downloads/``): what it holds and its SHA256SUMS.

Holds one public bank JSONL per bank version (exactly its public items, never changing
once published), copies of ``figures.json`` and ``fingerprints.json``, the JSON Schemas
of every file format, every published volume's public bundles (``volume.yaml`` and each
candidate's records: held-out responses appear there only as keyed commitments), each
calibrated volume's calibration corpus (held-out items by id only) and ``SHA256SUMS``
in ``sha256sum`` format over all of them — including files other steps put there (publish's
public key), which are listed but otherwise left alone. The site manifest, written after the
site is built and covering this folder, is the one file SHA256SUMS does not list. Every copy
is named by ``generator.release.site_path``, the plan ``verify`` reads a site back with.

Every download that is a byte copy of a root file (the bank's files, the registries, the
bundles: ``release.COPIED_AT_BUILD``) and each volume's bundle archive (``archives/``,
``release.MADE_AT_BUILD``) is written here by every build from the root's originals,
which alone are committed: the copies and archives are git-ignored and left out of the
site manifest, which covers the built site's copies instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from generator import release
from generator.bank_downloads import public_jsonl, public_jsonl_name, registered_archives
from generator.errors import InputError, Problem
from generator.hashing import sha256_bytes
from generator.schema import schemas
from generator.site import archive, tidy
from generator.site.published import Publication
from generator.store.bank import Bank
from generator.store.paths import (
    BANK_LEDGERS,
    BANK_SOURCES,
    BUNDLES,
    DOWNLOADS,
    MANIFEST_FILE,
    SUMS_FILE,
)
from generator.store.volume import VolumeData

OWN = {SUMS_FILE, "index.md", "changelog.md", "dictionary.md"}
"""Files of the folder this module writes itself (besides the planned downloads)."""
SEALED_AFTER = {MANIFEST_FILE}
"""Written after the site is built and covering everything here (SHA256SUMS included), so
listed by no SHA256SUMS and no downloads page."""
OWN_DIRS = ("archives/", "bank/", "bundles/", "calibration/", "leaderboards/", "schemas/")
"""Sub-folders that hold only planned downloads (anything else there is stale)."""


@dataclass(frozen=True)
class Download:
    """One file of the downloads folder."""

    name: str
    """Path inside ``site_src/downloads/`` (POSIX)."""
    data: bytes
    """Its bytes."""
    group: str
    """Section of the downloads page: ``bank``, ``sources``, ``registries``, ``schemas``,
    ``bundles``, ``leaderboards``, ``archives``. Only ``bank`` files are registered as never
    changing: ``sources`` (the bank folder as figures cite it) grows with every bank
    version; ``archives`` are registered with the tar inside (``generator.site.archive``)."""
    tar_sha256: str | None = None
    """For an archive: SHA-256 of the tar inside."""

    @property
    def sha256(self) -> str:
        return sha256_bytes(self.data)


def _bundle_files(layout_root: Path, volume: str) -> Iterator[tuple[str, Path]]:
    folder = layout_root / BUNDLES / volume
    problems = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(layout_root / BUNDLES).as_posix()
        if path.is_symlink():
            problems.append(Problem(f"{BUNDLES}/{rel}", None, "symlink", "is a symbolic link"))
        elif path.is_file() and not path.name.startswith("."):
            yield rel, path
    if problems:
        raise InputError("bundles cannot be published as they are:", problems)


def bank_downloads(bank: Bank) -> list[Download]:
    """One ``bank_<version>_public.jsonl`` per bank version."""
    return [
        Download(public_jsonl_name(v), public_jsonl(bank, v), "bank")
        for v in bank.manifest.version_ids()
    ]


def plan(
    pub: Publication, bank: Bank, loaded: Mapping[str, VolumeData] | None = None
) -> list[Download]:
    """Every download, ``SHA256SUMS`` last, in a fixed order."""
    root = pub.layout.root
    files = bank_downloads(bank)
    # The bank as the registry's figures cite it (manifest, public items, held-out index:
    # metadata and keyed commitments only), so ``probepress verify`` can recompute every figure from
    # the downloads alone.
    # Named through release.site_path: the plan ``verify`` reads a built site back with.
    for rel in BANK_SOURCES:
        files.append(Download(release.download_name(rel), (root / rel).read_bytes(), "sources"))
    # The append-only ledgers: each item's climbs and reviewers' disagreements since its
    # bank file froze it (public: ids, statuses, names, dates, public items' notes).
    for rel in BANK_LEDGERS:
        if (root / rel).is_file():
            data = (root / rel).read_bytes()
            files.append(Download(release.download_name(rel), data, "sources"))
    for rel in release.SHIPPED_REGISTRIES:
        source = root / rel
        if source.is_file():
            data = source.read_bytes()
            files.append(Download(release.download_name(rel), data, "registries"))
    files += [
        Download(f"schemas/{name}", text.encode("utf-8"), "schemas")
        for name, text in sorted(schemas().items())
    ]
    files += _per_volume(pub)
    files += _calibration_corpora(pub, loaded or {})
    files += _others(pub.layout.downloads_dir, {f.name for f in files})
    files.append(Download(SUMS_FILE, sha256sums(files), "sums"))
    return files


def _per_volume(pub: Publication) -> list[Download]:
    """Each published volume's public bundles, their archive and its tidy leaderboard."""
    out = []
    published = registered_archives(pub.layout)
    for pv in pub.volumes:
        bundles = [
            Download(release.download_name(f"{BUNDLES}/{rel}"), path.read_bytes(), "bundles")
            for rel, path in _bundle_files(pub.layout.root, pv.id)
        ]
        out += bundles
        name = archive.archive_name(pv.id)
        kept = pub.layout.downloads_dir / name
        built = archive.build(
            [(f.name, f.data) for f in bundles], published.get(f"{DOWNLOADS}/{name}"), kept
        )
        out.append(Download(name, built.data, "archives", built.tar_sha256))
        boards = tidy.downloads_of(pv.volume, pv.figures)
        out += [Download(name, data, "leaderboards") for name, data in boards.items()]
    return out


def _calibration_corpora(pub: Publication, loaded: Mapping[str, VolumeData]) -> list[Download]:
    """Each published volume's calibration corpus, when it declares a calibration set, from
    the volume's public reading: ``loaded`` when the caller has read it (publish hands on
    its public views), else read here."""
    from generator.calibration.corpus import corpus, corpus_name, volume_corpus

    out = []
    for pv in pub.volumes:
        if pv.volume.calibration is not None:
            public = loaded.get(pv.id)
            data = corpus(public) if public is not None else volume_corpus(pub.layout, pv.id)
            if data is not None:
                out.append(Download(corpus_name(pv.id), data, "calibration"))
    return out


def _others(folder: Path, planned: set[str]) -> list[Download]:
    """Files other steps put in the downloads folder (e.g. publish's public key)."""
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if (
            path.is_file()
            and not path.is_symlink()
            and name not in planned
            and name not in OWN
            and name not in SEALED_AFTER
            and not name.startswith(OWN_DIRS)
            and not path.name.startswith(".")
        ):
            out.append(Download(name, path.read_bytes(), "other"))
    return out


def archives(files: list[Download]) -> list[archive.Planned]:
    """The planned archives, as ``generator.site.archive`` checks and registers them."""
    return [
        archive.Planned(f.name, f.sha256, f.tar_sha256)
        for f in files
        if f.group == "archives" and f.tar_sha256 is not None
    ]


def sha256sums(files: list[Download]) -> bytes:
    """``sha256sum`` output for ``files`` (two spaces, sorted by name, LF endings)."""
    lines = [f"{f.sha256}  {f.name}\n" for f in sorted(files, key=lambda f: f.name)]
    return "".join(lines).encode("utf-8")
