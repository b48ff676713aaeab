"""Reference and known-wrong answers on bank items (item schema version 2)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from generator.models.bank import BankItem
from generator.store.bank import item_text_sha256
from tests.ladder_data import LADDER


def _item(**extra: Any) -> dict[str, Any]:
    check = {"kind": "number", "expected": "5", "tolerance": "0"}
    return {
        "id": "arith-901",
        "category": "arithmetic",
        "tier": 0,
        "added_in": "v1",
        "core": True,
        "status": "validated",
        "validation": LADDER,
        "prompt": "2 + 3?",
        "pass_criterion": "States 5.",
        "check": check,
        "text_sha256": item_text_sha256("2 + 3?", "States 5.", check),
        **extra,
    }


REF = {"answer": "5", "known_wrong": [{"answer": "6", "rule": "wrong-number"}]}


def test_a_reference_needs_schema_version_2() -> None:
    with pytest.raises(ValidationError, match="reference needs schema_version 2"):
        BankItem.model_validate(_item(reference=REF))
    assert BankItem.model_validate(_item(reference=REF, schema_version=2)).reference


def test_a_known_wrong_rule_must_belong_to_the_check() -> None:
    wrong = {"known_wrong": [{"answer": "x", "rule": "forbidden-match"}]}
    with pytest.raises(ValidationError, match="'forbidden-match' is not a rule of a number"):
        BankItem.model_validate(_item(reference=wrong, schema_version=2))


def test_a_tier_1_item_takes_no_known_wrong_answers() -> None:
    data = _item(reference=REF, schema_version=2, tier=1)
    data.pop("check")
    data["text_sha256"] = item_text_sha256("2 + 3?", "States 5.", None)
    with pytest.raises(ValidationError, match="known_wrong answers are for Tier 0 items"):
        BankItem.model_validate(data)


def test_an_empty_reference_is_refused() -> None:
    with pytest.raises(ValidationError, match="declares an answer, known-wrong answers"):
        BankItem.model_validate(_item(reference={}, schema_version=2))


def test_the_public_download_leaves_the_reference_out_and_keeps_its_bytes() -> None:
    plain = BankItem.model_validate(_item())
    referenced = BankItem.model_validate(_item(reference=REF, schema_version=2))
    assert referenced.public_dump() == plain.public_dump()
    assert "reference" not in json.dumps(referenced.public_dump())
    assert referenced.heldout_texts()[-2:] == ["5", "6"]
