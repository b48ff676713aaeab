"""The progress callback long steps take (``render``, ``site``, ``publish``, ``verify`` …).

A step calls the callback with a short label as it starts (or, where work finishes out
of order, as it ends: each PDF). Before a run of steps, the code that knows how many
there are announces them with ``expect``, so a display can count: "12 of 31: PDF
volumes/vol-001/leaderboard.pdf (9 pages)". Long steps may also ``note`` what they are
doing without counting a step ("11 of 31 done; volumes/vol-001/leaderboard.pdf: page 4
laid out"). A plain function is a valid callback; it is simply not told the counts or
the notes.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]
"""Called with a short label for each step; the CLI shows it on stderr."""


def silent(label: str) -> None:
    """A progress callback that shows nothing."""


def expect(progress: Progress | None, steps: int) -> None:
    """Tell ``progress`` that ``steps`` more steps follow (a callback that does not count
    ignores it)."""
    announce = getattr(progress, "expect", None)
    if callable(announce):
        announce(steps)


def note(progress: Progress | None, label: str) -> None:
    """Show ``label`` as what is under way, without counting a step (a callback that does
    not count ignores it)."""
    show = getattr(progress, "note", None)
    if callable(show):
        show(label)


Show = Callable[[int, int | None, str], None]
"""Shows one step: its number, the steps announced so far (None: none) and its text."""


class Counter:
    """A progress callback that counts its steps against those announced."""

    def __init__(self, show: Show, total: int | None = None) -> None:
        self.show = show
        self.done = 0
        self.total = total

    def expect(self, steps: int) -> None:
        """``steps`` more steps follow (after any done without being announced)."""
        self.total = max(self.total or 0, self.done) + steps

    def __call__(self, label: str) -> None:
        self.done += 1
        if self.total is not None and self.done > self.total:
            self.total = self.done  # an unannounced step still counts
        self.show(self.done, self.total, self.text(label))

    def note(self, label: str) -> None:
        """Show what is under way (``N of M done; label``) without counting a step."""
        done = f"{self.done} done" if self.total is None else f"{self.done} of {self.total} done"
        self.show(self.done, self.total, f"{done}; {label}")

    def text(self, label: str) -> str:
        """``N of M: label`` (``N: label`` while nothing was announced)."""
        if self.total is None:
            return f"{self.done}: {label}"
        return f"{self.done} of {self.total}: {label}"
