"""Open input files safely: regular files only, never through a symlink, never blocking.

A loader that opens a FIFO waits forever for a writer; one that follows a symlink to
``/dev/zero`` reads without end. Every reader therefore opens with ``O_NOFOLLOW`` (a
symlink is refused by the kernel, not by a check that races with a rename) and
``O_NONBLOCK`` (opening a FIFO returns at once), then asks the open descriptor itself
(``fstat``) whether it is a regular file within the size bound. This module is the one
place that opens an input that way (:func:`open_fd`): the loaders here, the leak scan
(``generator.leaks.scan``) and the release inventory (``generator.inventory``) each word
their own refusals over it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class Reporter(Protocol):
    """What ``open_regular`` reports problems to (``jsonl.Problems``)."""

    def add(
        self, path: str, line: int | None, rule: str, message: str, fix: str | None = None
    ) -> bool:
        """Record one problem."""
        ...


CHUNK = 1 << 20
"""Bytes read at a time by :func:`read_chunks`."""
NOT_REGULAR = "not a regular file"
_KINDS = (
    (stat.S_ISDIR, "a directory", "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)", "a FIFO"),
    (stat.S_ISCHR, "a character device", "a device"),
    (stat.S_ISBLK, "a block device", "a device"),
    (stat.S_ISSOCK, "a socket", "a socket"),
    (stat.S_ISLNK, "a symbolic link", "a symbolic link"),
)
"""Each kind of non-regular file, in words: in full, and brief."""


def kind_of(mode: int, *, brief: bool = False) -> str:
    """What a non-regular file is, in words (``a FIFO (named pipe)``, or with ``brief``
    ``a FIFO``; :data:`NOT_REGULAR` for anything else)."""
    return next(
        (short if brief else full for test, full, short in _KINDS if test(mode)), NOT_REGULAR
    )


def open_fd(path: Path) -> tuple[int, os.stat_result]:
    """``path`` opened read-only without following a symlink or blocking, and what
    ``fstat`` says of the open descriptor (the caller closes it).

    Raises:
        OSError: The path cannot be opened (a symlink gives ``ELOOP``).
        ValueError: The path holds a NUL byte.
    """
    fd = os.open(path, _FLAGS)
    try:
        return fd, os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise


def read_chunks(fd: int, limit: int) -> Iterator[bytes]:
    """The bytes of ``fd`` in pieces, never more than ``limit`` in all; closes ``fd``."""
    try:
        left = limit
        while left > 0 and (piece := os.read(fd, min(CHUNK, left))):
            left -= len(piece)
            yield piece
    finally:
        os.close(fd)


def os_problem(exc: OSError | ValueError, shown: str, problems: Reporter) -> None:
    """Report why a path could not be opened, as a rule a maintainer can act on."""
    if isinstance(exc, ValueError):  # os functions refuse a NUL byte this way
        problems.add(shown, None, "bad-file-name", "file name contains a NUL byte")
        return
    code = exc.errno
    if code == errno.ENOENT:
        problems.add(shown, None, "file-missing", "file is missing")
    elif code == errno.ELOOP:
        problems.add(shown, None, "no-symlinks", "is a symbolic link; bundles hold real files")
    elif code == errno.ENAMETOOLONG:
        problems.add(
            shown,
            None,
            "name-too-long",
            "file name is longer than the file system allows",
            "file names are at most 255 bytes",
        )
    else:
        problems.add(shown, None, "unreadable", f"cannot be read: {os.strerror(code or 0)}")


def check_regular(path: Path, shown: str, problems: Reporter, max_bytes: int) -> int | None:
    """Size of ``path`` when it is a regular, non-symlink file within ``max_bytes``
    (checked with ``lstat``, without opening it); None after reporting why not."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError) as exc:
        os_problem(exc, shown, problems)
        return None
    return _bounded(info, shown, problems, max_bytes)


def _bounded(info: os.stat_result, shown: str, problems: Reporter, max_bytes: int) -> int | None:
    if stat.S_ISLNK(info.st_mode):
        problems.add(shown, None, "no-symlinks", "is a symbolic link; bundles hold real files")
        return None
    if not stat.S_ISREG(info.st_mode):
        what = kind_of(info.st_mode)
        problems.add(shown, None, "not-a-file", f"is {what}, not a regular file")
        return None
    if info.st_size > max_bytes:
        problems.add(
            shown,
            None,
            "file-too-large",
            f"file is {info.st_size} bytes, over the {max_bytes}-byte bound",
            f"split the input or raise the bound: --limit max_file_bytes=N with N above "
            f"{max_bytes}",
        )
        return None
    return info.st_size


def open_regular(path: Path, shown: str, problems: Reporter, max_bytes: int) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file within ``max_bytes``.

    Never follows a symlink and never blocks (a FIFO or a device is refused from the
    open descriptor). None after reporting why the file cannot be read.
    """
    try:
        fd, info = open_fd(path)
    except (OSError, ValueError) as exc:
        os_problem(exc, shown, problems)
        return None
    try:
        if _bounded(info, shown, problems, max_bytes) is None:
            os.close(fd)
            return None
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, shown: str, problems: Reporter, max_bytes: int) -> bytes | None:
    """The bytes of a regular file within ``max_bytes`` (see ``open_regular``).

    Reads at most one byte past the bound, so a file that grows while it is read is
    refused instead of read without end.
    """
    handle = open_regular(path, shown, problems, max_bytes)
    if handle is None:
        return None
    with handle:
        data = _read_at_most(handle, max_bytes + 1)
    if len(data) > max_bytes:
        problems.add(
            shown,
            None,
            "file-too-large",
            f"file grew past the {max_bytes}-byte bound while it was read",
        )
        return None
    return data


_STEP = 1 << 20


def _read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``handle``: the size ``fstat`` gives and one byte more at
    first, then in 1 MiB steps while it grows. ``read(limit)`` alone allocates ``limit``
    bytes before reading (a cache entry is read under a 1 GiB bound: 1 GiB per read)."""
    size = os.fstat(handle.fileno()).st_size
    data = handle.read(min(limit, size + 1))
    if len(data) <= size:
        return data
    parts = [data]
    got = len(data)
    while got < limit and (more := handle.read(min(_STEP, limit - got))):
        parts.append(more)
        got += len(more)
    return b"".join(parts)
