"""Run one function in a forked child process while the parent goes on with other work.

``check`` reads a volume once and then runs nine gates; the holdout gate's leak scan
needs nothing the other gates compute, so on a machine with a second core it runs in a
child forked after the volume is read (the child sees the parent's memory as it was at
the fork, without copying or pickling it) while the parent runs the other gates.

The caller forks only a single-threaded process (``generator.checking``): a lock held by
another thread at the moment of the fork would stay held forever in the child. Only the
result travels back, pickled through a pipe. An exception raised in the child
is raised again in the parent; if the child dies without an answer (killed, or its
answer cannot be unpickled), the parent runs the function itself, so the outcome never
depends on whether the fork worked.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Generic, TypeVar, cast

T = TypeVar("T")


def usable_cpus() -> int:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _child(function: Callable[[], object], send: Connection) -> None:
    try:
        answer: tuple[str, object] = ("ok", function())
    except BaseException as exc:  # every outcome goes back to the parent
        answer = ("raised", exc)
    try:
        send.send(answer)
    except Exception:  # an unpicklable answer: the parent redoes the work
        send.send(("lost", None))
    finally:
        send.close()
        # Leave at once: no exit handlers, no flushing of streams inherited from the
        # parent (the answer is all the parent wants from this process).
        os._exit(0)


class Forked(Generic[T]):
    """``function()`` computed in a forked child; ``result()`` waits for it."""

    def __init__(self, function: Callable[[], T]) -> None:
        self._function = function
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_child, args=(function, send), daemon=True)
        self._process.start()
        send.close()

    def cancel(self) -> None:
        """Stop the child if it is still running (its answer is not wanted)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._receive.close()

    def result(self) -> T:
        """The child's result (or its exception); computed here if the child died."""
        try:
            status, value = self._receive.recv()
        except Exception:  # EOF (the child died) or an unreadable answer
            status, value = "lost", None
        finally:
            self._receive.close()
            self._process.join()
        if status == "ok":
            return cast(T, value)
        if status == "raised" and isinstance(value, BaseException):
            raise value
        return self._function()
