"""Counts agree with their nouns everywhere ("1 anchor", never "1 anchors")."""

from __future__ import annotations

from generator.words import counted


def test_counted_agrees_with_the_number() -> None:
    assert counted(1, "anchor") == "1 anchor"
    assert counted(0, "anchor") == "0 anchors"
    assert counted(2, "entry", "entries") == "2 entries"
    assert counted(1, "entry", "entries") == "1 entry"


def test_no_message_hedges_its_plural() -> None:
    """Every count names its noun in the number it agrees with (``words.counted``); a
    literal "item(s)" anywhere in the package's strings is a message that does not."""
    import ast
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "generator"
    hedged = re.compile(r"[A-Za-z]\(s\)")
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and hedged.search(text):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert not found, f"hedged plurals (use generator.words.counted): {found}"


def test_noun_and_verb_agree_with_the_number() -> None:
    from generator.words import agrees, noun

    assert noun(1, "line") == "line" and noun(3, "line") == "lines"
    assert noun(2, "half", "halves") == "halves"
    assert agrees(1, "is", "are") == "is" and agrees(0, "is", "are") == "are"
