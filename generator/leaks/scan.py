"""Scanning strings, files and trees of files with a ``LeakIndex``."""

from __future__ import annotations

import functools
import hashlib
import io
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from generator.errors import InputError
from generator.hashing import sha256_file
from generator.leaks.extract import SNIFF_BYTES, Format, format_of, pdf_pages
from generator.leaks.index import LeakIndex
from generator.leaks.model import Leak
from generator.leaks.normalise import PAGE
from generator.leaks.stream import DocumentScan

_VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def scan_string(index: LeakIndex, text: str, source: str, *, markup: bool | None) -> list[Leak]:
    """Leaks in an in-memory document (see ``LeakIndex.scan_text``)."""
    if markup is None:
        markup = format_of(Path(source)) == "markup"
    scan = DocumentScan(index, source, "markup" if markup else "text")
    step = index.config.chunk_chars
    for start in range(0, len(text), step):
        scan.feed(text[start : start + step])
    return scan.finish()


def scan_file(index: LeakIndex, path: Path, source: str | None = None) -> list[Leak]:
    """Leaks in one file, read in bounded chunks.

    PDFs are scanned through their text layer (findings carry a page), markup is
    stripped of tags and entities, binary files are skipped, everything else is read
    as UTF-8 with undecodable bytes replaced.

    Args:
        index: The secrets.
        path: The file.
        source: Its name in findings; ``str(path)`` by default.

    Raises:
        InputError: The file cannot be read, or a PDF has no readable text layer.
    """
    return _scan(index, path, str(path) if source is None else source)[0]


def _scan(index: LeakIndex, path: Path, label: str) -> tuple[list[Leak], str, Format]:
    """``scan_file``, plus the SHA-256 of the bytes scanned and the format they were read as
    (the digest is empty for binary files, which are not read)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
        fmt: Format = format_of(path, head)
        if fmt == "binary":
            return [], "", fmt
        scan = DocumentScan(index, label, fmt)
        if fmt == "pdf":
            data = path.read_bytes()
            for page in pdf_pages(path, data):
                scan.feed(page + PAGE)
            return scan.finish(), hashlib.sha256(data).hexdigest(), fmt
        digest = hashlib.sha256()
        raw = io.BufferedReader(_Hashing(io.FileIO(path), digest))
        # Decoded as open(path, encoding="utf-8", errors="replace") would, with the raw
        # bytes hashed on their way in, so the digest is that of exactly what was scanned.
        with io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as handle:
            while piece := handle.read(index.config.chunk_chars):
                scan.feed(piece)
        return scan.finish(), digest.hexdigest(), fmt
    except OSError as exc:
        raise InputError(f"{label}: cannot read: {exc.strerror or exc}") from exc


class _Hashing(io.RawIOBase):
    """A raw file that feeds every byte read into a hash."""

    def __init__(self, raw: io.FileIO, digest: hashlib._Hash) -> None:
        self._raw = raw
        self._digest = digest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        count = self._raw.readinto(buffer)
        if count:
            self._digest.update(memoryview(buffer)[:count])
        return count

    def close(self) -> None:
        self._raw.close()
        super().close()


def iter_files(paths: Iterable[Path | str]) -> Iterator[Path]:
    """Files named in ``paths``, directories expanded recursively in sorted order.

    Symbolic links to files are followed (their target is what gets published);
    links to directories are not descended into; dangling links are skipped, and so
    are version-control folders (``.git`` holds compressed objects, not text: scan
    the tracked files themselves).
    """
    for item in paths:
        path = Path(item)
        if path.is_dir() and not path.is_symlink():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _VCS_DIRS)
                for name in sorted(files):
                    found = Path(folder, name)
                    if found.exists():
                        yield found
        elif path.exists():
            yield path
        elif not path.is_symlink():
            raise InputError(f"{path}: no such file to scan for leaks")


class CleanFiles(Protocol):
    """A memory of file contents already scanned clean against the same secrets.

    ``scan_paths`` asks before scanning a file and reports every file it scanned clean;
    the holdout gate backs this with ``generator.cache`` under a key made of the
    secrets, the scanner's settings and code, and the file's SHA-256 and format.
    """

    def known(self, digest: str, fmt: Format) -> bool:
        """True when bytes with this SHA-256, read as ``fmt``, were scanned clean."""
        ...

    def remember(self, digest: str, fmt: Format) -> None:
        """Bytes with this SHA-256, read as ``fmt``, were just scanned clean."""
        ...


def scan_paths(
    index: LeakIndex | Callable[[], LeakIndex],
    paths: Iterable[Path | str],
    *,
    root: Path | None = None,
    on_file: Callable[[Path], None] | None = None,
    clean: CleanFiles | None = None,
) -> list[Leak]:
    """Leaks in many files (and directory trees), in report order.

    Args:
        index: The secrets, or a function that builds them (called at most once, and
            only if some file has to be scanned).
        paths: Files and directories to scan.
        root: When given, findings name files relative to it (when they are inside).
        on_file: Called with each file before it is scanned (for progress).
        clean: Contents already known clean are skipped (every file is then hashed
            first); contents scanned clean are reported to it.

    Returns:
        Every leak, sorted by file, page, line and secret key.

    Raises:
        InputError: A named file does not exist or cannot be read.
    """
    leaks: list[Leak] = []
    done = _Done()
    secrets: Callable[[], LeakIndex] = (
        functools.cache(index) if callable(index) else (lambda: index)
    )
    for path in iter_files(paths):
        if on_file is not None:
            on_file(path)
        source = str(path)
        if root is not None and path.is_relative_to(root):
            source = path.relative_to(root).as_posix()
        identity = _identity(path) if clean is not None else None
        if clean is not None and identity is not None:
            digest, fmt = identity
            if fmt == "binary" or clean.known(digest, fmt):
                continue
        copied = done.same_as(path, identity)
        if copied is not None:
            leaks.extend(replace(leak, source=source) for leak in copied)
            continue
        found, digest, fmt = _scan(secrets(), path, source)
        done.add(path, digest, fmt, found)
        if clean is not None and digest and not found:
            clean.remember(digest, fmt)
        leaks.extend(found)
    return sorted(leaks, key=Leak.sort_key)


def _identity(path: Path) -> tuple[str, Format] | None:
    """SHA-256 (empty for binary files, which are not read) and format of a file's bytes;
    None when it cannot be read (scanning it reports the error)."""
    try:
        with path.open("rb") as handle:
            fmt = format_of(path, handle.read(SNIFF_BYTES))
        return (sha256_file(path) if fmt != "binary" else ""), fmt
    except OSError:
        return None


class _Done:
    """Files already scanned in one ``scan_paths``, found again by size, then content.

    A built publication holds several copies of the same bytes (bundles, their copies
    under the downloads, the built site's copies of those and of every frozen page);
    identical bytes read in the same format have the same leaks, so each is scanned once.
    Only a file whose size and format match a scanned one is hashed before scanning.
    """

    def __init__(self) -> None:
        self._sizes: set[tuple[int, Format]] = set()
        self._leaks: dict[tuple[str, Format], list[Leak]] = {}

    def same_as(self, path: Path, identity: tuple[str, Format] | None = None) -> list[Leak] | None:
        """The leaks of a scanned file with the same bytes and format, if there is one
        (``identity``: the file's SHA-256 and format, when already known)."""
        if identity is not None:
            return self._leaks.get(identity)
        try:
            size = path.stat().st_size
            with path.open("rb") as handle:
                fmt = format_of(path, handle.read(SNIFF_BYTES))
            if (size, fmt) not in self._sizes:
                return None
            return self._leaks.get((sha256_file(path), fmt))
        except OSError:
            return None  # scanning it reports the error

    def add(self, path: Path, digest: str, fmt: Format, leaks: list[Leak]) -> None:
        if not digest:
            return
        self._sizes.add((path.stat().st_size, fmt))
        self._leaks.setdefault((digest, fmt), leaks)
