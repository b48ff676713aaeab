"""Pages as the PDF workers lay them out, passed on to the run's progress (issue 17).

WeasyPrint announces every page it starts to lay out on its ``weasyprint.progress``
logger ("Step 5 - Creating layout - Page 3"). Each worker forwards those announcements,
tagged with the PDF it is rendering, over a queue to the parent, where a thread hands
them to the progress callback as notes ("4 of 11 done; volumes/vol-002/leaderboard.pdf:
laying out page 14"), then the page count once the layout is done ("…: writing 27
pages"), without counting them as steps: a step is still a PDF, counted when its bytes
are back. Notes are only a display: a lost one changes nothing in any output.
"""

from __future__ import annotations

import logging
import queue
import threading
from types import TracebackType
from typing import Any

from generator.progress import Progress, note
from generator.words import counted

LAYOUT = "Step 5 - Creating layout - Page %d"
"""WeasyPrint's message for a page it starts to lay out (one kept as it was says more)."""
_POLL = 0.1

_state: dict[str, Any] = {"queue": None, "path": None, "page": 0}


class _Forward(logging.Handler):
    """Sends a note for each page WeasyPrint starts to lay out."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg != LAYOUT or not isinstance(record.args, tuple) or len(record.args) != 1:
            return
        page = record.args[0]
        # A repagination lays pages out again: report each page number once.
        if isinstance(page, int) and page > _state["page"]:
            _state["page"] = page
            _send(f"laying out page {page}")


def _send(text: str) -> None:
    events, path = _state["queue"], _state["path"]
    if events is not None and path is not None:
        events.put((path, text))


def forward(events: Any) -> None:
    """In a worker: send the pages WeasyPrint lays out to ``events`` (None: nowhere)."""
    _state["queue"] = events
    if events is None:
        return
    logger = logging.getLogger("weasyprint.progress")
    logger.setLevel(logging.INFO)  # its parent "weasyprint" shows errors only
    logger.propagate = False
    logger.addHandler(_Forward())


def rendering(path: str | None) -> None:
    """In a worker: the pages laid out from now on belong to ``path``."""
    _state["path"], _state["page"] = path, 0


def laid_out(pages: int) -> None:
    """In a worker: the current PDF's layout is done; its pages are drawn and written."""
    _send(f"writing {counted(pages, 'page')}")


class Listener:
    """In the parent: a thread passing the workers' notes on to ``progress`` while the run
    lasts (no thread without a queue)."""

    def __init__(self, events: Any, progress: Progress | None) -> None:
        self.events, self.progress = events, progress
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="pdf-pages", daemon=True)

    def __enter__(self) -> Listener:
        if self.events is not None:
            self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.events is not None:
            self.done.set()
            self.thread.join(2 * _POLL + 1)
            self.events.close()

    def _run(self) -> None:
        while True:
            try:
                path, text = self.events.get(timeout=_POLL)
            except queue.Empty:
                if self.done.is_set():
                    return  # the run is over and every note sent was shown
                continue
            except (EOFError, OSError, ValueError):
                return  # the queue broke (a worker killed mid-message): no more notes
            note(self.progress, f"{path}: {text}")
