"""A bounded, in-place inventory of a folder tree: size and SHA-256 of every regular file.

Both sides of a release use it: ``publish`` to write the site manifest and ``verify`` to
check one. Nothing is copied and nothing is followed: symbolic links, FIFOs, devices and
sockets are reported, never opened (a FIFO or a link to ``/dev/zero`` would otherwise
be read forever), and depth, file count and file size are bounded.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from generator.store.regular import NOT_REGULAR, kind_of, open_fd, read_chunks

MAX_FILE_BYTES = 1 << 30
MAX_FILES = 200_000
MAX_DEPTH = 32


@dataclass(frozen=True)
class Entry:
    """A regular file: its size and SHA-256."""

    size: int
    sha256: str


@dataclass(frozen=True)
class Odd:
    """Something that is not a readable regular file, and what it is."""

    path: str
    what: str


@dataclass
class Inventory:
    """Regular files by POSIX path relative to the scanned base, and everything else."""

    files: dict[str, Entry] = field(default_factory=dict)
    odd: list[Odd] = field(default_factory=list)

    def under(self, prefix: str) -> dict[str, Entry]:
        """The files whose path starts with ``prefix``."""
        return {p: e for p, e in self.files.items() if p.startswith(prefix)}


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "is a symbolic link (never followed)"
    kind = kind_of(mode, brief=True)
    return f"is {kind}" if kind == NOT_REGULAR else f"is {kind}, {NOT_REGULAR}"


def read_entry(path: Path, max_bytes: int = MAX_FILE_BYTES) -> Entry | str:
    """Size and SHA-256 of ``path`` read in place, or why it cannot be read.

    The file is opened without following links and without blocking, then checked to be
    regular on the open descriptor (``generator.store.regular.open_fd``), so it cannot be
    swapped for a FIFO in between.
    """
    try:
        fd, info = open_fd(path)
    except OSError as exc:
        if os.path.islink(path):
            return _kind(stat.S_IFLNK)
        return f"cannot be read ({exc.strerror})"
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            return _kind(info.st_mode)
        return f"is {info.st_size} bytes, over the {max_bytes}-byte bound"
    digest = hashlib.sha256()
    size = 0
    for chunk in read_chunks(fd, max_bytes + 1):
        digest.update(chunk)
        size += len(chunk)
    if size > max_bytes:
        return f"grew over the {max_bytes}-byte bound while it was read"
    return Entry(size, digest.hexdigest())


def scan(
    base: Path,
    areas: Iterable[str],
    *,
    max_bytes: int = MAX_FILE_BYTES,
    max_files: int = MAX_FILES,
    skip: frozenset[str] = frozenset(),
) -> Inventory:
    """Inventory of the ``areas`` (folders relative to ``base``; ``""`` for all of it).

    Args:
        base: Folder the paths are relative to.
        areas: Sub-folders to walk; a missing one is simply empty.
        max_bytes: Largest file read.
        max_files: Most entries walked (the rest is one ``Odd`` finding).
        skip: Relative paths not to inventory at all (e.g. the manifest itself).
    """
    out = Inventory()
    for area in areas:
        start = base / area if area else base
        if not os.path.lexists(start):
            continue
        mode = os.lstat(start).st_mode
        if area and not stat.S_ISDIR(mode):
            out.odd.append(Odd(area, _kind(mode)))
        else:
            _walk(base, start, 0, out, max_bytes, max_files, skip)
    out.files = dict(sorted(out.files.items()))
    return out


def _walk(
    base: Path,
    folder: Path,
    depth: int,
    out: Inventory,
    max_bytes: int,
    max_files: int,
    skip: frozenset[str],
) -> None:
    """Walk ``folder`` into ``out`` without following anything."""
    rel_folder = folder.relative_to(base).as_posix()
    if depth > MAX_DEPTH:
        out.odd.append(Odd(rel_folder, f"is nested deeper than {MAX_DEPTH} folders"))
        return
    with os.scandir(folder) as entries:
        for item in sorted(entries, key=lambda e: e.name):
            rel = Path(item.path).relative_to(base).as_posix()
            if rel in skip:
                continue
            if len(out.files) + len(out.odd) >= max_files:
                out.odd.append(Odd(rel, f"is past the {max_files}-file bound; not read"))
                return
            if item.is_dir(follow_symlinks=False):
                _walk(base, Path(item.path), depth + 1, out, max_bytes, max_files, skip)
            elif item.is_file(follow_symlinks=False):
                found = read_entry(Path(item.path), max_bytes)
                if isinstance(found, Entry):
                    out.files[rel] = found
                else:
                    out.odd.append(Odd(rel, found))
            else:
                out.odd.append(Odd(rel, _kind(item.stat(follow_symlinks=False).st_mode)))
