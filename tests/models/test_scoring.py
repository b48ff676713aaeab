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
        # The seat is the jury's (jury.adjudication), not named in scoring.
        ({"reference": "adjudication", "adjudication": "a-1"}, "Extra inputs are not permitted"),
        ({"reference": "majority"}, "Input should be 'grader', 'panel-majority' or 'adjudication'"),
    ],
)
def test_a_bad_scoring_is_refused_with_its_reason(data: dict[str, Any], message: str) -> None:
    assert _error(data) == message


ADJUDICATION = {
    "rater": {"kind": "human", "id": "adjudicator-1"},
    "adjudicates": ["annotator-1", "annotator-2"],
}


def test_an_adjudication_reference_needs_the_jurys_adjudication_seat(
    root: Path, tmp_path: Path
) -> None:
    from generator.store.jsonl import Problems, load_document

    doc = _volume(root)
    doc["scoring"]["reference"] = "adjudication"
    with pytest.raises(ValidationError) as info:
        Volume.model_validate(doc)
    (error,) = info.value.errors()
    assert error["loc"] == ("scoring",)
    assert error["msg"] == (
        "Value error, reference is adjudication, but the jury declares no adjudication seat: "
        "declare jury.adjudication (its rater and the panel seats it adjudicates), or choose "
        "reference grader or panel-majority"
    )
    # As a maintainer sees it: the file, the line of scoring, the rule.
    path = tmp_path / "volume.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    problems = Problems()
    assert load_document(path, Volume, "volume.yaml", problems, 1 << 20) is None
    # The loader names the line the scoring mapping's content starts on.
    line = yaml.safe_dump(doc, sort_keys=False).splitlines().index("scoring:") + 2
    (problem,) = problems.items
    assert (problem.path, problem.line) == ("volume.yaml", line)
    assert problem.message.startswith("scoring: reference is adjudication, but the jury")
    # Seated: the reference is that seat's labels, named on every page.
    panel = [{"kind": "human", "id": f"annotator-{n}"} for n in (1, 2, 3)]
    doc["jury"].update(panel=panel, adjudication=ADJUDICATION)
    volume = Volume.model_validate(doc)
    assert reference_statement(volume).startswith(
        "Reference rater set: the adjudication seat adjudicator-1 (human), adjudicating "
        "annotator-1, annotator-2: its label decides every judged draw"
    )


def test_prereg_refuses_an_adjudication_reference_without_the_seat(root: Path) -> None:
    from generator.errors import InputError
    from generator.prereg import volume_preregistration
    from generator.store import Layout

    path = root / "bundles" / "vol-001" / "volume.yaml"
    doc = _volume(root)
    doc["scoring"]["reference"] = "adjudication"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    with pytest.raises(InputError) as info:
        volume_preregistration(Layout.at(root, root / ".private"), "vol-001")
    (problem,) = info.value.problems
    assert problem.message.startswith("scoring: reference is adjudication, but the jury")


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
        volume.protocol, volume.thresholds, volume.jury, baselines=volume.declared_baselines()
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
