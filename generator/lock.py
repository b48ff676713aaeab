"""One writer per root: an exclusive ``flock`` on ``ROOT/.probepress-lock``.

Every command that writes under a root (publish and its recovery, site, render, figures,
demo, schema) holds this lock, so two of them can never interleave — without it a second
``publish`` started while the first was moving files would "recover" (roll back) the
first one's half-done move. ``flock`` is released by the kernel when the holder dies,
even by SIGKILL, so a crashed run never leaves a stale lock behind. The holder writes its
pid into the file so a refused writer can say who holds it, and empties the file when it
releases the lock.

The lock is re-entrant within a process (``publish`` takes it and calls ``recover``,
which takes it too): a second ``flock`` from the same process on a new descriptor would
otherwise block on itself.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.confine import FILE_MODE, checked, make_dirs
from generator.errors import ProbepressError, Problem

LOCK_FILE = ".probepress-lock"
TIMEOUT_ENV = "PROBEPRESS_LOCK_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
_POLL = 0.05

_held: dict[str, tuple[int, int]] = {}
"""Root -> (descriptor, depth) of the locks this process holds."""
_guard = threading.Lock()


class LockBusy(ProbepressError):
    """Another probepress process is writing the same root (exit 2)."""


def _timeout(timeout: float | None) -> float:
    if timeout is not None:
        return timeout
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT)))
    except ValueError:
        return DEFAULT_TIMEOUT


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return "pid unknown"
    return f"pid {text}" if text.isdigit() else "pid unknown"


def _open(root: Path) -> int:
    path = checked(root, root / LOCK_FILE)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        raise ProbepressError(
            f"cannot lock {root} for writing: {path}: {exc.strerror}",
            [Problem(LOCK_FILE, None, "root-lock", exc.strerror or str(exc), "make ROOT writable")],
        ) from None
    return fd


def _acquire(root: Path, timeout: float) -> int:
    fd = _open(root)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                who = _holder(fd)
                os.close(fd)
                raise LockBusy(
                    f"another probepress is writing {root} ({who}); waited {timeout:g} s. "
                    f"Let it finish, or raise ${TIMEOUT_ENV} to wait longer."
                ) from None
            time.sleep(_POLL)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return fd


@contextmanager
def writing(root: Path, timeout: float | None = None, create: bool = False) -> Iterator[None]:
    """Hold the root's writer lock for the ``with`` block.

    Args:
        root: The publication root.
        timeout: Seconds to wait for another writer [default: ``$PROBEPRESS_LOCK_TIMEOUT``
            or 10].
        create: Create a missing root (mode 0755) to lock it. Otherwise a missing root
            is not locked: there is no publication to protect, and the command fails on
            its missing inputs with the usual message.

    Raises:
        LockBusy: Another process held the lock for the whole timeout.
    """
    if not os.path.isdir(root):
        if not create:
            yield
            return
        make_dirs(root, root)
    key = os.path.realpath(root)
    with _guard:
        held = _held.get(key)
        if held is not None:
            _held[key] = (held[0], held[1] + 1)
    if held is None:
        fd = _acquire(Path(key), _timeout(timeout))
        with _guard:
            _held[key] = (fd, 1)
    try:
        yield
    finally:
        with _guard:
            fd, depth = _held[key]
            if depth > 1:
                _held[key] = (fd, depth - 1)
            else:
                del _held[key]
                _release(fd)


def _release(fd: int) -> None:
    """Empty the file, then close it (which releases the flock).

    The pid is only for a writer refused while this one holds the lock. Left behind, it
    would change the file's bytes with every writing command, and the holdout gate, which
    scans every file under the root, would find bytes it has not scanned clean and build
    its index of held-out texts again in the next ``check`` (about 1.3 s of a warm one at
    60 candidates); an empty file is scanned clean once.
    """
    try:
        os.ftruncate(fd, 0)
    except OSError:
        pass  # the lock is released all the same
    finally:
        os.close(fd)


def holds(root: Path) -> bool:
    """Whether this process holds ``root``'s writer lock."""
    with _guard:
        return os.path.realpath(root) in _held
