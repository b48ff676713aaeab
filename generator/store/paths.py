"""Where things live in a publication root and in the private store."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from generator.cache import Cache, default_dir

PRIVATE_ENV = "PROBEPRESS_PRIVATE"
TOOL_DIRS = frozenset(
    {
        ".git",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".hypothesis",
        ".cache",
    }
)
"""Folders of version control and development tools: never a publication's content."""
MAX_NAME_BYTES = 255
"""Longest file name (in UTF-8 bytes) common file systems allow."""

# -- where things live, root-relative (POSIX): the one definition ----------------------
# ``Layout`` joins these to a root; manifests, messages and the plan of a built site
# (``generator.release.SITE_PLACES``) use them as they are.

BANK = "bank"
BUNDLES = "bundles"
FIGURES = "figures"
TEMPLATES = "templates"
SITE_SRC = "site_src"
"""MkDocs' docs folder: hand-written pages beside the generated folders."""
SITE = "site"
"""The built site (``mkdocs build``)."""
VOLUMES_FOLDER = "volumes"
"""Folder of ``site_src/`` (and of the built site) holding each volume's pages."""
DOWNLOADS_FOLDER = "downloads"
"""Folder of ``site_src/`` (and of the built site) holding the downloads."""
GENERATED_FOLDERS = (VOLUMES_FOLDER, DOWNLOADS_FOLDER)
"""Folders of ``site_src/`` the tool writes; every other ``.md`` there is hand-written."""
VOLUMES = f"{SITE_SRC}/{VOLUMES_FOLDER}"
DOWNLOADS = f"{SITE_SRC}/{DOWNLOADS_FOLDER}"
SCHEMAS = f"{DOWNLOADS}/schemas"
ARCHIVES_FOLDER = "archives"
"""Folder of the downloads holding each volume's bundle archive, which every site build
makes from ``bundles/`` (never committed)."""
BANK_MANIFEST = f"{BANK}/bank.yaml"
PUBLIC_ITEMS = f"{BANK}/public.jsonl"
HELDOUT_INDEX = f"{BANK}/heldout_index.jsonl"
STATUS_LEDGER = f"{BANK}/status.jsonl"
DISAGREEMENT_LEDGER = f"{BANK}/disagreements.jsonl"
BANK_SOURCES = (BANK_MANIFEST, PUBLIC_ITEMS, HELDOUT_INDEX)
"""The bank as the figures cite it (its manifest, public items and held-out index: ids,
metadata and keyed commitments), shipped so ``verify`` can recompute every figure."""
BANK_LEDGERS = (STATUS_LEDGER, DISAGREEMENT_LEDGER)
"""The bank's append-only ledgers (``Layout.status_ledger``, ``disagreement_ledger``)."""
FIGURES_REGISTRY = f"{FIGURES}/figures.json"
"""The figures registry: every published number, by figure id."""
FINGERPRINT_REGISTRY = f"{FIGURES}/fingerprints.json"
"""Every frozen file ever published, with its SHA-256."""
DOWNLOAD_REGISTRY = f"{FIGURES}/downloads.json"
"""Every public bank download ever published, with its SHA-256."""
RELEASE_LEDGER = f"{FIGURES}/releases.json"
"""Which key signed each volume."""
RELEASE_FILE = "release.json"
"""A volume's release, in its pages folder (:func:`release_rel`)."""
SUMS_FILE = "SHA256SUMS"
SUMS = f"{DOWNLOADS}/{SUMS_FILE}"
MANIFEST_FILE = "release-manifest.json"
MANIFEST = f"{DOWNLOADS}/{MANIFEST_FILE}"
"""The site manifest, sealed over every published file."""
BUILT_MANIFEST = f"{SITE}/{DOWNLOADS_FOLDER}/{MANIFEST_FILE}"
"""Its copy in the built site."""
PUBLIC_KEY_FILE = "release-signing-key.pub"
PUBLIC_KEY = f"{DOWNLOADS}/{PUBLIC_KEY_FILE}"
PUBLISHED_AREAS = (FIGURES, SITE_SRC, SITE)
"""The published areas of a root: what ``publish`` writes and moves into place, and what
the site manifest covers."""
GENERATED_AREAS = (VOLUMES, DOWNLOADS, SITE)
"""Folders whose files the tool alone writes: stale files there are removed on publish."""
WRITTEN_AREAS = (FIGURES, *GENERATED_AREAS)
"""Folders ``publish`` writes into."""


def volume_pages_rel(volume: str) -> str:
    """``site_src/volumes/<volume>``: the volume's frozen and generated pages."""
    return f"{VOLUMES}/{volume}"


def release_rel(volume: str) -> str:
    """``site_src/volumes/<volume>/release.json``."""
    return f"{volume_pages_rel(volume)}/{RELEASE_FILE}"


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a file directly inside a folder we read, or None.

    A manifest names files; a name that climbs out (``..``, ``/``, a drive), hides
    (a leading dot), carries a NUL or control character, or is longer than a file system
    allows would read something else than the folder's own file, or fail to open.
    """
    if not name or name in (".", "..") or name.startswith("."):
        return "is empty or starts with a dot"
    if "/" in name or "\\" in name or (len(name) > 1 and name[1] == ":"):
        return "is a path, not a file name in the bundle directory"
    if not name.isprintable():
        return "contains a control or invisible character"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


@dataclass(frozen=True)
class Layout:
    """Paths of a publication root (DESIGN §3) and of its private store."""

    root: Path
    private: Path
    cache_dir: Path | None = None
    """Where results are cached (``generator.cache``); None: nothing is cached."""

    @classmethod
    def at(
        cls, root: Path | str, private: Path | str | None = None, *, cache: bool | Path = True
    ) -> Layout:
        """Layout of ``root``; the private store is ``private``, ``$PROBEPRESS_PRIVATE``
        or ``<root>/.private``, in that order. ``cache``: True for the private store's
        cache (``generator.cache.default_dir``), False for none, or a directory."""
        root_path = Path(root).resolve()
        chosen = Path(private or os.environ.get(PRIVATE_ENV) or root_path / ".private").resolve()
        if isinstance(cache, Path):
            cache_dir: Path | None = cache
        else:
            cache_dir = default_dir(chosen) if cache else None
        return cls(root=root_path, private=chosen, cache_dir=cache_dir)

    @property
    def cache(self) -> Cache | None:
        """The result cache, when caching is on."""
        return Cache(self.cache_dir) if self.cache_dir is not None else None

    def rel(self, path: Path) -> str:
        """``path`` relative to the root when inside it (for messages), else as given."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    @property
    def bank_dir(self) -> Path:
        return self.root / BANK

    @property
    def bank_manifest(self) -> Path:
        return self.root / BANK_MANIFEST

    @property
    def public_items(self) -> Path:
        return self.root / PUBLIC_ITEMS

    @property
    def heldout_index(self) -> Path:
        return self.root / HELDOUT_INDEX

    @property
    def status_ledger(self) -> Path:
        """The append-only status ledger: climbs after publication (``StatusChange``)."""
        return self.root / STATUS_LEDGER

    @property
    def disagreement_ledger(self) -> Path:
        """The append-only record of reviewers' disagreements (``Disagreement``)."""
        return self.root / DISAGREEMENT_LEDGER

    @property
    def bundles_dir(self) -> Path:
        return self.root / BUNDLES

    def volume_dir(self, volume: str) -> Path:
        return self.bundles_dir / volume

    def volume_file(self, volume: str) -> Path:
        return self.volume_dir(volume) / "volume.yaml"

    def bundle_dir(self, volume: str, slug: str) -> Path:
        return self.volume_dir(volume) / slug

    @property
    def templates_dir(self) -> Path:
        return self.root / TEMPLATES

    @property
    def figures_dir(self) -> Path:
        return self.root / FIGURES

    def _in_figures(self, rel: str) -> Path:
        # Through figures_dir: a built site ships the registries elsewhere (SiteLayout).
        return self.figures_dir / rel.removeprefix(f"{FIGURES}/")

    @property
    def figures_registry(self) -> Path:
        return self._in_figures(FIGURES_REGISTRY)

    @property
    def fingerprint_registry(self) -> Path:
        return self._in_figures(FINGERPRINT_REGISTRY)

    @property
    def download_registry(self) -> Path:
        return self._in_figures(DOWNLOAD_REGISTRY)

    @property
    def release_ledger(self) -> Path:
        return self._in_figures(RELEASE_LEDGER)

    @property
    def site_src(self) -> Path:
        return self.root / SITE_SRC

    def volume_pages(self, volume: str) -> Path:
        """``site_src/volumes/<volume>/``: its frozen files, pages and release."""
        return self.root / volume_pages_rel(volume)

    def release_file(self, volume: str) -> Path:
        return self.root / release_rel(volume)

    @property
    def downloads_dir(self) -> Path:
        return self.root / DOWNLOADS

    @property
    def schemas_dir(self) -> Path:
        return self.root / SCHEMAS

    @property
    def manifest_file(self) -> Path:
        """The site manifest (``site_src/downloads/release-manifest.json``)."""
        return self.root / MANIFEST

    @property
    def public_key(self) -> Path:
        return self.root / PUBLIC_KEY

    @property
    def site_dir(self) -> Path:
        """The built site (``mkdocs build``'s default target)."""
        return self.root / SITE

    @property
    def private_items(self) -> Path:
        return self.private / "heldout_items.jsonl"

    @property
    def private_review_notes(self) -> Path:
        """Held-out items' review comments and resolutions (``ReviewNote``; never public)."""
        return self.private / "review_notes.jsonl"

    def private_responses(self, volume: str, slug: str) -> Path:
        return self.private / "responses" / volume / f"{slug}.jsonl"

    def volume_ids(self) -> list[str]:
        """Volumes present under ``bundles/``, sorted."""
        if not self.bundles_dir.is_dir():
            return []
        return sorted(
            p.name for p in self.bundles_dir.iterdir() if p.is_dir() and p.name.startswith("vol-")
        )
