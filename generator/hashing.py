"""The one SHA-256 helper: every fingerprint and source hash goes through here, and every
comparison of recorded files with what is there now (:func:`drift`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal, NamedTuple, TypeVar

CHUNK = 1 << 20
T = TypeVar("T")


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class Drift(NamedTuple):
    """A recorded file that is not as recorded."""

    path: str
    """Its path, as the record names it."""
    change: Literal["missing", "changed"]
    """``missing``: it is not there; ``changed``: its SHA-256 (or entry) differs."""


def drift(recorded: Iterable[tuple[str, T]], current: Callable[[str], T | None]) -> list[Drift]:
    """The recorded files that are missing or changed, in the record's order.

    The one comparison of a ledger with what is there: the fingerprint and download
    registries against the root (``current=on_disk(root)``), a release, ``SHA256SUMS``
    or the site manifest against a verified inventory.

    Args:
        recorded: ``(path, value)`` pairs: a SHA-256, or any comparable entry.
        current: The value of ``path`` now; None when it is not there.
    """
    out = []
    for path, value in recorded:
        now = current(path)
        if now is None:
            out.append(Drift(path, "missing"))
        elif now != value:
            out.append(Drift(path, "changed"))
    return out


def on_disk(root: Path) -> Callable[[str], str | None]:
    """The SHA-256 of a file under ``root`` (path relative to it) now; None: not a file."""

    def digest(rel: str) -> str | None:
        path = root / rel
        return sha256_file(path) if path.is_file() else None

    return digest
