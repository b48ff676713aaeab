"""A content-addressed cache for results that are pure functions of file bytes and code.

``check`` and ``publish`` repeat two costly steps whose inputs rarely change: validating
every line of every bundle, and scanning every public file for held-out text. Their
results are remembered here, under a key that is the SHA-256 of everything the
result depends on:

- the bytes of every input file (their SHA-256),
- the probepress code itself (every module of the ``generator`` package, byte for byte)
  and the versions of the libraries that compute results and of Python with its Unicode
  tables, on which NFKC and casefolding depend (``code_digest``),
- the settings of the step (leak-scan thresholds, reader bounds).

A changed byte in any of them is a different key, so a stale entry can never be
returned. What is stored is deliberately small and inert: an empty marker ("these bytes
were scanned and are clean") and a bundle's rows as JSON arrays (``generator.store.rows``).
Gates only read it (``Reader``): what a gate learned comes back in its result
(``GateResult.learned``) and the caller that ran the gates stores it.
Figures are never remembered: the publishing gate recomputes them on every run.
Every reader checks the shape of what it reads and recomputes on anything unexpected;
nothing is unpickled or executed.

The cache lives in the private store (``<private>/cache``; ``$PROBEPRESS_CACHE`` moves
it), never in the publication root, and is only a shortcut: deleting it
(``probepress cache --clear``), or running with ``--no-cache``
(``$PROBEPRESS_NO_CACHE=1``), recomputes everything. ``probepress verify`` never reads
it: an auditor recomputes from the published files alone. Entries are written
atomically (``generator.canonical.write_bytes``); a cache that cannot be written is
ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from generator.canonical import write_bytes
from generator.confine import UnsafePath

CACHE_ENV = "PROBEPRESS_CACHE"
NO_CACHE_ENV = "PROBEPRESS_NO_CACHE"
CACHE_DIR = "cache"
FORMAT = "probepress-cache-1"
"""Bumped when the layout of entries changes."""

LIBRARIES = ("numpy", "scipy", "pandas", "irrCAC", "pydantic", "pydantic-core", "pypdf", "PyYAML")
"""Libraries whose version can change a cached result (statistics, parsing, PDF text)."""

_PACKAGE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the ``generator`` package's modules and of the library versions.

    Any edit to any module (not only the ones a step imports) changes every key: simpler
    to trust than a per-step dependency list, and the cost is one cold run.
    """
    return tree_digest(_PACKAGE)


def tree_digest(package: Path) -> str:
    """SHA-256 of every module under ``package`` (names and bytes), the versions of
    ``LIBRARIES``, and Python's version and Unicode data version."""
    digest = hashlib.sha256(FORMAT.encode())
    digest.update(f"\0python={sys.version}\0unicode={unicodedata.unidata_version}".encode())
    for path in sorted(package.rglob("*.py")):
        data = path.read_bytes()
        label = path.relative_to(package).as_posix().encode()
        digest.update(len(label).to_bytes(8, "big") + label + len(data).to_bytes(8, "big") + data)
    for library in LIBRARIES:
        try:
            version = metadata.version(library)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"\0{library}={version}".encode())
    return digest.hexdigest()


def key(*parts: str | Iterable[str]) -> str:
    """SHA-256 of the code digest and ``parts`` (strings, or iterables of strings),
    each part length-prefixed so that no two different part lists share a key."""
    digest = hashlib.sha256(code_digest().encode())
    for part in parts:
        for text in [part] if isinstance(part, str) else part:
            data = text.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big") + data)
        digest.update(b"\xff" * 8)
    return digest.hexdigest()


def default_dir(private: Path) -> Path | None:
    """Where the cache of a private store lives (None when caching is switched off)."""
    if os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return None
    chosen = os.environ.get(CACHE_ENV)
    return Path(chosen).resolve() if chosen else private / CACHE_DIR


class Entry(NamedTuple):
    """One entry to store: what a step learned, handed to its caller to remember."""

    namespace: str
    key: str
    data: bytes = b""


class Reader:
    """Read-only access to the entries (what a gate is given: gates never write)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, namespace: str, entry: str) -> Path:
        if not (len(entry) == 64 and all(c in "0123456789abcdef" for c in entry)):
            raise ValueError(f"cache keys are SHA-256 hex digests, got {entry!r}")
        return self.directory / namespace / entry[:2] / entry

    def has(self, namespace: str, entry: str) -> bool:
        """True when the entry exists."""
        return self._path(namespace, entry).is_file()

    def get(self, namespace: str, entry: str) -> bytes | None:
        """The entry's bytes, or None when it is absent or unreadable."""
        from generator.store.jsonl import Problems  # the store imports this module
        from generator.store.regular import read_regular

        # A regular file only: a FIFO or a symlink planted in the cache is a miss, never
        # a read that blocks or leaves the private store.
        try:
            return read_regular(self._path(namespace, entry), "", Problems(), MAX_ENTRY_BYTES)
        except OSError:
            return None


class Cache(Reader):
    """Entries by namespace and key, as files ``<dir>/<namespace>/<key[:2]>/<key>``."""

    def put(self, namespace: str, entry: str, data: bytes = b"") -> None:
        """Store ``data`` atomically (replacing a damaged entry); a failure to write only
        loses the shortcut."""
        # An entry that is not a regular file (write_bytes refuses to replace it) is a
        # miss like any other unwritable entry.
        with contextlib.suppress(OSError, UnsafePath):
            write_bytes(self._path(namespace, entry), data)

    def store(self, entries: Iterable[Entry]) -> None:
        """``put`` every entry (what the gates of one run learned)."""
        for entry in entries:
            self.put(entry.namespace, entry.key, entry.data)


MAX_ENTRY_BYTES = 1 << 30
"""Larger than any entry a volume within the reader bounds makes."""


def usage(directory: Path) -> dict[str, tuple[int, int]]:
    """Entries and bytes per namespace under a cache directory."""
    out: dict[str, tuple[int, int]] = {}
    if not directory.is_dir():
        return out
    for namespace in sorted(p for p in directory.iterdir() if p.is_dir()):
        files = [f for f in namespace.rglob("*") if f.is_file() and not f.is_symlink()]
        out[namespace.name] = (len(files), sum(f.stat().st_size for f in files))
    return out
