"""Work run beside the caller in one forked child process, its result handed back.

``verify`` rebuilds the leaderboards and archives and checks the canary in a child while
it recomputes the figures itself, and passes :func:`forked` on as the :class:`Beside` of
the reading (a child reads the second half of the bundles) and of the recomputation (one
child computes the paired rank comparisons, one the figures that need only the tallies):
the machine's second core. Every other caller passes :func:`inline`, which runs the same
work in its own process when the result is asked for. The child is a fork, so it
starts from the caller's memory as it is (nothing is pickled in, nothing imported
again); it hands its result back pickled through a pipe and writes nothing else (no
output, no file). It ends with ``os._exit``: no exit handler, ``finally`` block or
buffered output of the caller runs a second time in it.

A child never passes by silence. Its result is read whole once the caller asks for it:
a child that raised hands its exception back, raised again in the caller with the
child's traceback as its cause (an interrupt or SIGTERM in the child too); a child that
ended without a result (a signal, the OOM killer) raises :class:`ChildDied`. A caller
that leaves the ``with`` block without the result (its own error, an interrupt) kills
the child and reaps it. POSIX only, like the root lock (``fcntl``). The caller runs
no other thread when it forks (a lock another thread held would stay locked in the
child): the CLI's progress display for ``verify`` has no refresh thread.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Generic, NoReturn, Protocol, TypeVar

from generator.errors import ProbepressError

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Waiting(Protocol[T_co]):
    """Work started beside the caller; ``result`` waits for its value."""

    def result(self) -> T_co: ...


class Beside(Protocol):
    """Where a caller runs a part of its work while it does the rest: :func:`forked`
    (another process), or :func:`inline` (here, when the result is asked for)."""

    def __call__(self, work: Callable[[], T], what: str) -> AbstractContextManager[Waiting[T]]: ...


class _Inline(Generic[T]):
    def __init__(self, work: Callable[[], T]) -> None:
        self.work = work

    def result(self) -> T:
        return self.work()


@contextlib.contextmanager
def inline(work: Callable[[], T], what: str) -> Iterator[Waiting[T]]:
    """Run ``work`` here, when its result is asked for (the one-process :class:`Beside`)."""
    del what  # nothing can die apart from the caller
    yield _Inline(work)


class ChildDied(ProbepressError):
    """The child ended without handing back a result (exit 2: nothing it checked holds)."""


class ChildTraceback(Exception):
    """The traceback of an exception raised in the child (its ``__cause__`` here)."""

    def __str__(self) -> str:
        return f"\n\nin the child process:\n{self.args[0]}"


class Child(Generic[T]):
    """A running child; :meth:`result` waits for it."""

    def __init__(self, pid: int, pipe: int, what: str) -> None:
        self.pid = pid
        self.pipe = pipe
        self.what = what

    def result(self) -> T:
        """The child's return value, once it has ended.

        Raises:
            ChildDied: It ended (or was killed) without handing one back.
            BaseException: What the child raised.
        """
        with os.fdopen(self.pipe, "rb") as pipe:
            self.pipe = -1
            payload = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        try:
            kind, value, where = pickle.loads(payload)
        except Exception:  # nothing, or a part: it died writing
            ended = _ended(status)
            message = (
                f"{self.what} did not finish: the child process {ended} before handing "
                "back a result, so nothing is verified"
            )
            raise ChildDied(message) from None
        if kind == "raised":
            raise value from ChildTraceback(where)
        result: T = value
        return result

    def stop(self) -> None:
        """Kill and reap the child unless its result was taken."""
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0


@contextlib.contextmanager
def forked(work: Callable[[], T], what: str) -> Iterator[Child[T]]:
    """Run ``work`` in a forked child for the ``with`` block; ``what`` names it in the
    error when it ends without a result ("the leaderboard checks did not finish: …")."""
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:
        os.close(read)
        _run(work, write)
    os.close(write)
    child: Child[T] = Child(pid, read, what)
    try:
        yield child
    finally:
        child.stop()


def _run(work: Callable[[], Any], pipe: int) -> NoReturn:
    """(In the child) run ``work`` and write its outcome to ``pipe``; never returns."""
    code = 0
    try:
        try:
            payload = pickle.dumps(("returned", work(), None))
        except BaseException as exc:  # handed back, raised again in the caller
            payload = _raised(exc)
        with os.fdopen(pipe, "wb") as out:
            out.write(payload)
    except BaseException:  # the caller is gone (a broken pipe): it reports nothing
        code = 1
    finally:
        os._exit(code)


def _raised(exc: BaseException) -> bytes:
    """``exc`` and its traceback pickled; an exception that does not survive pickling is
    handed back as a ``RuntimeError`` naming it."""
    where = "".join(traceback.format_exception(exc))
    try:
        payload = pickle.dumps(("raised", exc, where))
        pickle.loads(payload)
    except Exception:
        shown = RuntimeError(f"{type(exc).__qualname__}: {exc}")
        payload = pickle.dumps(("raised", shown, where))
    return payload


def _ended(status: int) -> str:
    """How a child ended, from its ``waitpid`` status."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"was killed by signal {number} ({signal.strsignal(number) or 'unknown'})"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"
