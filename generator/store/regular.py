"""Open input files safely: regular files only, never through a symlink, never blocking.

A loader that opens a FIFO waits forever for a writer; one that follows a symlink to
``/dev/zero`` reads without end. Every reader therefore opens with ``O_NOFOLLOW`` (a
symlink is refused by the kernel, not by a check that races with a rename) and
``O_NONBLOCK`` (opening a FIFO returns at once), then asks the open descriptor itself
(``fstat``) whether it is a regular file within the size bound.
"""

from __future__ import annotations

import errno
import os
import stat
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


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words (``a FIFO``, ``a directory`` …)."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((word for test, word in kinds if test(mode)), "not a regular file")


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
            "split the input or raise the bound",
        )
        return None
    return info.st_size


def open_regular(path: Path, shown: str, problems: Reporter, max_bytes: int) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file within ``max_bytes``.

    Never follows a symlink and never blocks (a FIFO or a device is refused from the
    open descriptor). None after reporting why the file cannot be read.
    """
    try:
        fd = os.open(path, _FLAGS)
    except (OSError, ValueError) as exc:
        os_problem(exc, shown, problems)
        return None
    try:
        if _bounded(os.fstat(fd), shown, problems, max_bytes) is None:
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
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        problems.add(
            shown,
            None,
            "file-too-large",
            f"file grew past the {max_bytes}-byte bound while it was read",
        )
        return None
    return data
