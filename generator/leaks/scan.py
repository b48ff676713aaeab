"""Scanning strings, files and trees of files with a ``LeakIndex``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from generator.errors import InputError
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
    label = str(path) if source is None else source
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
        fmt: Format = format_of(path, head)
        if fmt == "binary":
            return []
        scan = DocumentScan(index, label, fmt)
        if fmt == "pdf":
            for page in pdf_pages(path):
                scan.feed(page + PAGE)
            return scan.finish()
        with path.open(encoding="utf-8", errors="replace") as handle:
            while piece := handle.read(index.config.chunk_chars):
                scan.feed(piece)
        return scan.finish()
    except OSError as exc:
        raise InputError(f"{label}: cannot read: {exc.strerror or exc}") from exc


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


def scan_paths(
    index: LeakIndex,
    paths: Iterable[Path | str],
    *,
    root: Path | None = None,
    on_file: Callable[[Path], None] | None = None,
) -> list[Leak]:
    """Leaks in many files (and directory trees), in report order.

    Args:
        index: The secrets.
        paths: Files and directories to scan.
        root: When given, findings name files relative to it (when they are inside).
        on_file: Called with each file before it is scanned (for progress).

    Returns:
        Every leak, sorted by file, page, line and secret key.

    Raises:
        InputError: A named file does not exist or cannot be read.
    """
    leaks: list[Leak] = []
    for path in iter_files(paths):
        if on_file is not None:
            on_file(path)
        source = str(path)
        if root is not None and path.is_relative_to(root):
            source = path.relative_to(root).as_posix()
        leaks.extend(scan_file(index, path, source))
    return sorted(leaks, key=Leak.sort_key)
