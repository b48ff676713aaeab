"""The progress callback long steps take (``render``, ``site``, ``publish``, ``verify`` …)."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]
"""Called with a short label before each step; the CLI shows it on stderr."""


def silent(label: str) -> None:
    """A progress callback that shows nothing."""
