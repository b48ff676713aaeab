"""How counts are written in every message and page: "1 anchor", "2 anchors"."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the noun in the number it agrees with (``plural`` defaults to the
    singular plus "s")."""
    noun = singular if count == 1 else (plural or singular + "s")
    return f"{count} {noun}"
