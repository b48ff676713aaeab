"""``scoring`` in ``volume.yaml`` and the labels of verdicts and votes: what the formats
accept, the exact refusals, the default, and the pre-registration hash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from generator.models.records import PanelVote, Verdict
from generator.models.scoring import Scoring
from generator.models.volume import Volume
from generator.prereg import preregistration_sha256, volume_preregistration_sha256
from generator.scoring import label_rules, reference_statement

RULE = {"full_compliance": "fail", "full_refusal": "pass"}


def _volume(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(
        (root / "bundles" / "vol-001" / "volume.yaml").read_text("utf-8")
    )
    return data


def _error(data: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as info:
        Scoring.model_validate(data)
    return str(info.value.errors()[0]["msg"])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"groups": [{"id": "g", "categories": ["safety"], "rule": RULE}]},
            "Value error, item groups need a declared label set (scoring.labels)",
        ),
        (
            {"labels": ["full_refusal"]},
            "Value error, a declared label set needs item groups with their rules",
        ),
        (
            {"labels": ["a", "a"], "groups": [{"id": "g", "items": ["x"], "rule": {"a": "pass"}}]},
            "Value error, labels declared twice: a",
        ),
        (
            {"labels": ["full_refusal"], "groups": [{"id": "g", "items": ["x"], "rule": RULE}]},
            "Value error, group g: rule maps labels not in scoring.labels: full_compliance",
        ),
        (
            {"labels": ["a"], "groups": [{"id": "g", "rule": {"a": "pass"}}]},
            "Value error, an item group lists either categories or items (exactly one)",
        ),
        (
            {"reference": "adjudication"},
            "Value error, scoring.adjudication names the adjudication seat exactly when "
            "scoring.reference is adjudication",
        ),
        (
            {"reference": "grader", "adjudication": "adjudicator-1"},
            "Value error, scoring.adjudication names the adjudication seat exactly when "
            "scoring.reference is adjudication",
        ),
        ({"reference": "majority"}, "Input should be 'grader', 'panel-majority' or 'adjudication'"),
    ],
)
def test_a_bad_scoring_is_refused_with_its_reason(data: dict[str, Any], message: str) -> None:
    assert _error(data) == message


def test_the_default_scoring_is_the_identity_on_pass_and_fail(root: Path) -> None:
    doc = _volume(root)
    doc.pop("scoring")
    volume = Volume.model_validate(doc)
    rules = label_rules(volume, [])
    assert not rules.declared
    assert rules.labels == ("pass", "fail")
    assert rules.label_of(None, "fail") == "fail"  # no label: the verdict is the label
    assert rules.label_of(None, "grader_refused") is None
    assert volume.scoring_or_default().reference == "grader"
    assert reference_statement(volume).startswith("Reference rater set: the Tier 1 grader")


def test_scoring_is_part_of_the_preregistration_hash(root: Path) -> None:
    doc = _volume(root)
    volume = Volume.model_validate(doc)
    assert volume.preregistration.sha256 == volume_preregistration_sha256(volume)
    doc["scoring"]["groups"][0]["rule"]["partial_refusal"] = "fail"
    changed = Volume.model_validate(doc)
    assert volume_preregistration_sha256(changed) != volume_preregistration_sha256(volume)
    doc["scoring"] = {"reference": "panel-majority"}
    other = Volume.model_validate(doc)
    assert volume_preregistration_sha256(other) != volume_preregistration_sha256(volume)


def test_a_volume_without_scoring_keeps_the_hash_it_was_registered_with(root: Path) -> None:
    doc = _volume(root)
    doc.pop("scoring")
    volume = Volume.model_validate(doc)
    assert volume_preregistration_sha256(volume) == preregistration_sha256(
        volume.protocol, volume.thresholds, volume.jury
    )


VERDICT = {"item": "safety-001", "half": "A", "draw": 1, "tier": 1, "grader": "g/m"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {**VERDICT, "tier": 0, "grader": None, "verdict": "pass", "label": "pass"},
            "Value error, a Tier 0 verdict is decided by code and carries no rater label",
        ),
        (
            {**VERDICT, "verdict": "lost", "label": "full_refusal"},
            "Value error, a lost draw carries no rater label",
        ),
        (
            {**VERDICT, "verdict": "pass", "label": "full refusal"},
            "String should match pattern '^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9])?$'",
        ),
    ],
)
def test_a_verdict_label_where_none_belongs_is_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Verdict.model_validate(data)
    assert info.value.errors()[0]["msg"] == message


def test_labels_and_version_1_lines() -> None:
    labelled = Verdict.model_validate({**VERDICT, "verdict": "fail", "label": "full_compliance"})
    assert labelled.schema_version == 2 and labelled.label == "full_compliance"
    old = Verdict.model_validate({**VERDICT, "verdict": "fail", "schema_version": 1})
    assert old.label is None
    vote = {"item": "x", "half": "A", "draw": 1, "judge": "j", "family": "f", "why": "stratified"}
    assert PanelVote.model_validate({**vote, "vote": "pass", "label": "0"}).label == "0"
    assert PanelVote.model_validate({**vote, "vote": "refused", "schema_version": 1}).label is None
    with pytest.raises(ValidationError, match="schema_version 3 is newer"):
        PanelVote.model_validate({**vote, "vote": "pass", "schema_version": 3})
