"""The fingerprint registry (``figures/fingerprints.json``): every frozen file ever
published, with its SHA-256. Published bytes never change; an erratum is a new file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.canonical import dumps, write_text
from generator.errors import InputError, Problem
from generator.store.jsonl import Problems
from generator.store.paths import Layout
from generator.store.regular import read_regular
from generator.store.strict import StrictError, parse_json

MAX_REGISTRY_BYTES = 64 << 20


def read_files(layout: Layout, path: Path, what: str) -> dict[str, dict[str, Any]]:
    """The ``files`` map of a registry file (``{}`` when it does not exist yet).

    Raises:
        InputError: The file exists but is not a registry.
    """
    if not os.path.lexists(path):
        return {}
    shown = layout.rel(path)
    problems = Problems()
    raw = read_regular(path, shown, problems, MAX_REGISTRY_BYTES)
    if raw is None:
        raise InputError(f"cannot read the {what}:", problems.items)
    try:
        files = parse_json(raw)["files"]
        if not isinstance(files, dict) or not all(isinstance(e, dict) for e in files.values()):
            raise TypeError("files is not a map of entries")
        return {str(rel): files[rel] for rel in sorted(files)}
    except StrictError as exc:
        problem = Problem(shown, exc.line, exc.rule, exc.message)
        raise InputError(f"cannot read the {what}:", [problem]) from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{shown}: unreadable {what} ({exc})") from exc


SCHEMA_VERSION = 1
KINDS = ("html", "pdf")


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

    def as_json(self) -> dict[str, str]:
        """The registry entry (without the path, which is its key)."""
        entry = {"kind": self.kind, "sha256": self.sha256, "volume": self.volume}
        if self.source_sha256 is not None:
            entry["source_sha256"] = self.source_sha256
        if self.renderer is not None:
            entry["renderer"] = self.renderer
        return entry


def load_frozen(layout: Layout) -> dict[str, FrozenFile]:
    """Every registered file with kind and provenance, by root-relative path.

    Raises:
        InputError: The registry exists but cannot be read.
    """
    files = read_files(layout, layout.fingerprint_registry, "fingerprint registry")
    try:
        out = {}
        for rel, entry in sorted(files.items()):
            kind = entry.get("kind") or ("pdf" if rel.endswith(".pdf") else "html")
            if kind not in KINDS or not isinstance(entry["sha256"], str):
                raise ValueError(f"bad entry for {rel}")
            out[rel] = FrozenFile(
                path=rel,
                sha256=entry["sha256"],
                volume=str(entry.get("volume") or ""),
                kind=kind,
                source_sha256=entry.get("source_sha256"),
                renderer=entry.get("renderer"),
            )
        return out
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        shown = layout.rel(layout.fingerprint_registry)
        raise InputError(f"{shown}: unreadable fingerprint registry ({exc})") from exc


def registry_text(entries: dict[str, FrozenFile]) -> str:
    """Canonical JSON text of a registry holding ``entries``."""
    files = {rel: entries[rel].as_json() for rel in sorted(entries)}
    return dumps({"files": files, "schema_version": SCHEMA_VERSION})


def write_frozen(layout: Layout, entries: dict[str, FrozenFile]) -> bool:
    """Atomically write the registry; return False when its bytes were already so."""
    return write_text(layout.fingerprint_registry, registry_text(entries), layout.root)
