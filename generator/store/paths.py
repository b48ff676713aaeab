"""Where things live in a publication root and in the private store."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PRIVATE_ENV = "PROBEPRESS_PRIVATE"


@dataclass(frozen=True)
class Layout:
    """Paths of a publication root (DESIGN §3) and of its private store."""

    root: Path
    private: Path

    @classmethod
    def at(cls, root: Path | str, private: Path | str | None = None) -> Layout:
        """Layout of ``root``; the private store is ``private``, ``$PROBEPRESS_PRIVATE``
        or ``<root>/.private``, in that order."""
        root_path = Path(root).resolve()
        chosen = private or os.environ.get(PRIVATE_ENV) or root_path / ".private"
        return cls(root=root_path, private=Path(chosen).resolve())

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
