"""Where output goes: artifacts and ``--json`` to stdout, logs and progress to stderr.

Rich decides colour by itself: none when the stream is not a terminal or ``NO_COLOR`` is set.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn


def _console(stderr: bool) -> Console:
    console = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not console.is_terminal:
        # Pipes and CI logs are not 80 columns wide; do not squeeze tables into them.
        console = Console(
            stderr=stderr, highlight=False, soft_wrap=True, width=max(console.width, 140)
        )
    return console


out = _console(stderr=False)
err = _console(stderr=True)


def print_json(data: Any) -> None:
    """Canonical JSON on stdout (plain text, never styled)."""
    sys.stdout.write(json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n")


@contextmanager
def progress(description: str, total: int | None = None, *, ticking: bool = True) -> Iterator[Any]:
    """A progress bar on stderr when it is a terminal; a no-op callback otherwise.

    Yields a function taking a short label for the step just started. ``ticking=False``
    redraws the bar only at each step, without rich's refresh thread, for commands that
    fork (``generator.forked`` forks only a single-threaded process).
    """
    if not err.is_terminal:
        yield lambda label: None
        return
    bar = Progress(
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

        def step(label: str) -> None:
            bar.update(task, advance=1, label=label)
            if not ticking:
                bar.refresh()

        yield step
