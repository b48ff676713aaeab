"""The fingerprint registry (``figures/fingerprints.json``): every frozen file ever
published, with its SHA-256. Published bytes never change; an erratum is a new file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError
from generator.hashing import sha256_file
from generator.store.paths import Layout

REGISTRY = "fingerprints.json"


@dataclass(frozen=True)
class Fingerprint:
    """A frozen file as registered."""

    path: str
    sha256: str
    volume: str | None


def registry_path(layout: Layout) -> Path:
    """Where the registry lives."""
    return layout.figures_dir / REGISTRY


def load(layout: Layout) -> dict[str, Fingerprint]:
    """Registered files by root-relative path (empty when nothing was published yet)."""
    path = registry_path(layout)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
        files = data["files"]
        return {
            rel: Fingerprint(rel, entry["sha256"], entry.get("volume"))
            for rel, entry in sorted(files.items())
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{layout.rel(path)}: unreadable fingerprint registry ({exc})") from exc


def changed(layout: Layout, entries: dict[str, Fingerprint]) -> list[tuple[Fingerprint, str]]:
    """Registered files whose bytes differ now, with what happened to them."""
    out = []
    for rel, entry in entries.items():
        path = layout.root / rel
        if not path.is_file():
            out.append((entry, "is missing"))
        elif sha256_file(path) != entry.sha256:
            out.append((entry, "changed after it was published"))
    return out
