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
        return self.root / "bank"

    @property
    def bank_manifest(self) -> Path:
        return self.bank_dir / "bank.yaml"

    @property
    def public_items(self) -> Path:
        return self.bank_dir / "public.jsonl"

    @property
    def heldout_index(self) -> Path:
        return self.bank_dir / "heldout_index.jsonl"

    @property
    def bundles_dir(self) -> Path:
        return self.root / "bundles"

    def volume_dir(self, volume: str) -> Path:
        return self.bundles_dir / volume

    def volume_file(self, volume: str) -> Path:
        return self.volume_dir(volume) / "volume.yaml"

    def bundle_dir(self, volume: str, slug: str) -> Path:
        return self.volume_dir(volume) / slug

    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"

    @property
    def site_src(self) -> Path:
        return self.root / "site_src"

    @property
    def private_items(self) -> Path:
        return self.private / "heldout_items.jsonl"

    def private_responses(self, volume: str, slug: str) -> Path:
        return self.private / "responses" / volume / f"{slug}.jsonl"

    def volume_ids(self) -> list[str]:
        """Volumes present under ``bundles/``, sorted."""
        if not self.bundles_dir.is_dir():
            return []
        return sorted(
            p.name for p in self.bundles_dir.iterdir() if p.is_dir() and p.name.startswith("vol-")
        )
