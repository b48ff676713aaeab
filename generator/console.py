"""Where output goes: artifacts and ``--json`` to stdout, logs and progress to stderr.

Rich decides colour by itself: none when the stream is not a terminal or ``NO_COLOR`` is set.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bar

from generator.canonical import dumps
from generator.progress import Counter, Progress, silent


def _console(stderr: bool) -> Console:
    # No emoji codes: ":100:" in "volume.yaml:100: …" would print as an emoji.
    console = Console(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)
    if not console.is_terminal:
        # Pipes and CI logs are not 80 columns wide; do not squeeze tables into them.
        console = Console(
            stderr=stderr,
            highlight=False,
            soft_wrap=True,
            emoji=False,
            width=max(console.width, 140),
        )
    return console


out = _console(stderr=False)
err = _console(stderr=True)


def print_json(data: Any) -> None:
    """Canonical JSON on stdout (plain text, never styled).

    Characters a terminal might act on (C1 controls, bidi and other format characters)
    are written as ``\\uXXXX`` escapes: the same JSON value, inert on a screen. ``json``
    escapes C0 controls itself; outside strings there are only spaces and newlines.
    """
    text = dumps(data).removesuffix("\n")
    if not text.isprintable():
        text = "".join(c if c.isprintable() or c in " \n" else _json_escape(c) for c in text)
    sys.stdout.write(text + "\n")


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells an astral character as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


@contextmanager
def progress(
    description: str, total: int | None = None, *, ticking: bool = True
) -> Iterator[Progress]:
    """A progress bar on stderr when it is a terminal; a no-op callback otherwise.

    Yields a callback taking a short label for each step, counting them ("3 of 9: …")
    against ``total`` and the steps announced with ``progress.expect``. ``ticking=False``
    redraws the bar only at each step, without rich's refresh thread (``check`` and
    ``audit`` use it: their steps are the gates and sections, so a ticking clock adds
    nothing but a thread).
    """
    if not err.is_terminal:
        yield silent
        return
    bar = Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[label]}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        auto_refresh=ticking,
    )
    with bar:
        task = bar.add_task(description, total=total, label="")

        def show(done: int, steps: int | None, text: str) -> None:
            bar.update(task, completed=done, total=steps, label=text)
            if not ticking:
                bar.refresh()

        yield Counter(show, total)
