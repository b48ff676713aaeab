"""The fingerprint registry (``figures/fingerprints.json``): every frozen file ever
published, with its SHA-256. Published bytes never change; an erratum is a new file.

The file format is :class:`generator.models.registries.FingerprintRegistry`, read through
the strict reader (bounded, duplicate keys refused, ``path:line: field: what``);
:class:`FrozenFile` is one entry with its path, as the rest of the tool uses it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from generator.canonical import dumps, write_text
from generator.errors import InputError
from generator.models.base import Record
from generator.models.registries import FingerprintRegistry, FrozenEntry
from generator.store.jsonl import Problems, load_document
from generator.store.paths import Layout

MAX_REGISTRY_BYTES = 64 << 20

REGISTRY_WHAT = "fingerprint registry"
R = TypeVar("R", bound=Record)


def read_registry(layout: Layout, path: Path, model: type[R], what: str) -> R | None:
    """The registry file at ``path`` read into ``model`` (None when it does not exist yet).

    Raises:
        InputError: The file exists but is not such a registry (each problem named with
            its file, line and field).
    """
    if not os.path.lexists(path):
        return None
    problems = Problems()
    loaded = load_document(path, model, layout.rel(path), problems, MAX_REGISTRY_BYTES)
    if loaded is None:
        raise InputError(f"cannot read the {what}:", problems.items)
    return loaded


@dataclass(frozen=True)
class FrozenFile:
    """A frozen file with everything the registry records about it."""

    path: str
    """Path relative to the publication root."""
    sha256: str
    """SHA-256 of the file's bytes."""
    volume: str
    """Volume the file belongs to."""
    kind: str
    """``html`` or ``pdf``."""
    source_sha256: str | None = None
    """For a PDF: the SHA-256 of the HTML file it was rendered from."""
    renderer: str | None = None
    """For a PDF: the renderer and version that made it (e.g. ``WeasyPrint 70.0``)."""

    def entry(self) -> FrozenEntry:
        """The registry entry (without the path, which is its key)."""
        return FrozenEntry.model_validate(
            {
                "kind": self.kind,
                "sha256": self.sha256,
                "volume": self.volume,
                "source_sha256": self.source_sha256,
                "renderer": self.renderer,
            }
        )


def load_frozen(layout: Layout) -> dict[str, FrozenFile]:
    """Every registered file with kind and provenance, by root-relative path.

    Raises:
        InputError: The registry exists but cannot be read.
    """
    registry = read_registry(
        layout, layout.fingerprint_registry, FingerprintRegistry, REGISTRY_WHAT
    )
    if registry is None:
        return {}
    return {
        rel: FrozenFile(rel, e.sha256, e.volume, e.kind, e.source_sha256, e.renderer)
        for rel, e in sorted(registry.files.items())
    }


def registry_text(entries: dict[str, FrozenFile]) -> str:
    """Canonical JSON text of a registry holding ``entries``."""
    registry = FingerprintRegistry(files={rel: entries[rel].entry() for rel in sorted(entries)})
    return dumps(registry.model_dump(mode="json", exclude_none=True))


def write_frozen(layout: Layout, entries: dict[str, FrozenFile]) -> bool:
    """Atomically write the registry; return False when its bytes were already so."""
    return write_text(layout.fingerprint_registry, registry_text(entries), layout.root)
