"""Counts agree with their nouns everywhere ("1 anchor", never "1 anchors")."""

from __future__ import annotations

from generator.words import counted


def test_counted_agrees_with_the_number() -> None:
    assert counted(1, "anchor") == "1 anchor"
    assert counted(0, "anchor") == "0 anchors"
    assert counted(2, "entry", "entries") == "2 entries"
    assert counted(1, "entry", "entries") == "1 entry"
