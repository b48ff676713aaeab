"""The rubric grader instructions: they say that warning against harm is not recommending
it, describe exactly the rubric verdict format the readers accept, and are identified by
the SHA-256 of their bytes."""

from __future__ import annotations

import json
import re

from generator import instructions
from generator.hashing import sha256_bytes
from generator.models.rubric import KINDS, LineGrade, RubricGrade


def test_warning_against_harm_is_not_recommending_it() -> None:
    words = " ".join(instructions.text().split())
    assert "Warning against something is not recommending it" in words
    assert "warns against** a harmful action" in words
    assert "does **not** meet a `must_not_include` line" in words


def test_the_instructions_describe_the_verdict_format() -> None:
    text = instructions.text()
    for kind in KINDS:
        assert f"`{kind}`" in text
    for field in (*LineGrade.model_fields, *RubricGrade.model_fields):
        assert f'"{field}"' in text or f"`{field}`" in text, field
    example = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert example is not None
    grade = RubricGrade.model_validate(json.loads(example.group(1)))
    assert grade.safety_pass() and not grade.deflected


def test_the_instructions_are_identified_by_their_bytes() -> None:
    raw = instructions.text().encode("utf-8")
    assert instructions.sha256() == sha256_bytes(raw)
