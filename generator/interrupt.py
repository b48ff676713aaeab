"""SIGTERM as an exception, so every ``finally`` runs and nothing temporary is left.

The default SIGTERM action ends the process on the spot: the staging copy, the PDF
workers and their temporary folders would stay behind, and a publish half-way through
its move would wait for the next writer to roll it back. With :func:`sigterm_exits`
active, SIGTERM raises :class:`Terminated` (a ``SystemExit`` with status 143) in the main
thread instead; a commit rolls itself back and every clean-up block runs. A second
SIGTERM during that clean-up is ignored rather than interrupting it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Terminated(SystemExit):
    """The process received SIGTERM (exit status 128 + 15)."""


@contextmanager
def sigterm_exits() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` for the ``with`` block (main thread only:
    Python delivers signals there), restoring the previous handler after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        if fired:
            return
        fired = True
        raise Terminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
