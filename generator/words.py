"""How counts are written in every message and page: "1 anchor", "2 anchors"."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the noun in the number it agrees with (``plural`` defaults to the
    singular plus "s")."""
    noun = singular if count == 1 else (plural or singular + "s")
    return f"{count} {noun}"


def noun(count: int, singular: str, plural: str | None = None) -> str:
    """The noun alone, in the number ``count`` asks for ("line" or "lines")."""
    return singular if count == 1 else (plural or singular + "s")


def agrees(count: int, singular: str, plural: str) -> str:
    """The verb form that agrees with ``count`` of something ("is" or "are")."""
    return singular if count == 1 else plural
