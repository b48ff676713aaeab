"""Grader instructions shipped with probepress, and the SHA-256 results record them by.

The instructions are part of the measurement: a result is only reproducible with the
exact text the grader was given, so each text ships as a package file and is identified
by the SHA-256 of its bytes (the receipts of DESIGN §13).
"""

from __future__ import annotations

from importlib import resources

from generator.hashing import sha256_bytes

RUBRIC_GRADER = "rubric_grader.md"
"""Instructions for grading an answer against an item's rubric, line by line."""


def text(name: str = RUBRIC_GRADER) -> str:
    """The instructions ``name`` (a file of this package), as UTF-8 text."""
    return resources.files(__package__).joinpath(name).read_text("utf-8")


def sha256(name: str = RUBRIC_GRADER) -> str:
    """SHA-256 of the instructions' bytes, as results record it."""
    return sha256_bytes(resources.files(__package__).joinpath(name).read_bytes())
