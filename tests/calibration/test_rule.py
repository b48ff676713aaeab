"""The acceptance rule on hand-made calibration sets: grouped by criterion type, each
part of the default rule refuses the judge that breaks it, naming type and numbers."""

from __future__ import annotations

from decimal import Decimal

import pytest

from generator.calibration.agreement import by_criterion, consensus
from generator.calibration.rule import decide
from generator.models.calibration import CalibrationGrade, CalibrationRecord, CalibrationRule

HUMANS = ("h1", "h2", "h3")


def _unit(n: int, criterion: str, labels: dict[str, str]) -> CalibrationRecord:
    return CalibrationRecord(
        candidate="model-a",
        item=f"item-{n}",
        half="A",
        draw=1,
        criterion=criterion,  # type: ignore[arg-type]
        line=None if criterion == "pass-fail" else "line-1",
        grades=[CalibrationGrade(rater=r, label=x) for r, x in labels.items()],  # type: ignore[arg-type]
    )


def _must_not(judge_errors: int, human_errors: int, n: int = 40) -> list[CalibrationRecord]:
    """``n`` must-not units, half hit: h3 departs from h1 = h2 on ``human_errors`` units,
    the judge from the humans' majority on ``judge_errors``."""
    out = []
    for i in range(n):
        truth = "yes" if i % 2 else "no"
        other = "no" if truth == "yes" else "yes"
        h3 = other if i < human_errors else truth
        judge = other if n - judge_errors <= i else truth
        out.append(_unit(i, "must-not", {"h1": truth, "h2": truth, "h3": h3, "j": judge}))
    return out


def test_must_not_agreement_below_the_humans_refuses_the_judge() -> None:
    records = _must_not(judge_errors=8, human_errors=2)
    (result,) = by_criterion(records, HUMANS, ["j"])
    decision = decide([result], CalibrationRule(), ["j"])
    assert decision.refused == ("j",)
    (refusal,) = decision.refusals
    assert (refusal.criterion, refusal.rule) == ("must-not", "not-worse-than-humans")
    assert refusal.message.startswith(
        "judge j on must-not units: mean Cohen's κ with each human = 0.5667 is below the "
        "humans' mean Cohen's κ with each other = 0.9333 (40 units)"
    )


def test_must_not_agreement_as_good_as_the_humans_accepts_the_judge() -> None:
    records = _must_not(judge_errors=0, human_errors=2)
    (result,) = by_criterion(records, HUMANS, ["j"])
    assert decide([result], CalibrationRule(), ["j"]).accepted == ("j",)


def test_must_not_can_compare_observed_agreement_instead() -> None:
    records = _must_not(judge_errors=8, human_errors=2)
    (result,) = by_criterion(records, HUMANS, ["j"])
    rule = CalibrationRule(not_worse_statistic="agreement")
    (refusal,) = decide([result], rule, ["j"]).refusals
    assert "mean observed agreement with each human = 0.7833" in refusal.message


def test_the_false_accept_of_a_must_not_line_is_a_missed_hit() -> None:
    # the judge says "no" (not hit) where the humans say "yes" (hit): a false accept
    records = [
        _unit(0, "must-not", {"h1": "yes", "h2": "yes", "h3": "yes", "j": "no"}),
        _unit(1, "must-not", {"h1": "no", "h2": "no", "h3": "no", "j": "no"}),
    ]
    (result,) = by_criterion(records, HUMANS, ["j"])
    errors = result.judges[0].errors
    assert (errors.false_accept.k, errors.false_accept.n) == (1, 1)
    assert (errors.false_reject.k, errors.false_reject.n) == (0, 1)


def test_criterion_types_are_grouped_and_ruled_separately() -> None:
    good = [
        _unit(i, "must-include", {"h1": x, "h2": x, "h3": x, "j": x})
        for i, x in enumerate(["yes", "no"] * 10)
    ]
    bad = [
        _unit(100 + i, "pass-fail", {"h1": x, "h2": x, "h3": x, "j": "pass"})
        for i, x in enumerate(["pass", "fail"] * 10)
    ]
    results = by_criterion(good + bad, HUMANS, ["j"])
    assert [r.criterion for r in results] == ["pass-fail", "must-include"]
    (refusal,) = decide(results, CalibrationRule(), ["j"]).refusals
    assert refusal.criterion == "pass-fail"
    assert "Cohen's κ against the human consensus = 0.0000" in refusal.message
    lenient = CalibrationRule(kappa_floor_on=["must-include"])
    assert decide(results, lenient, ["j"]).accepted == ("j",)


def test_should_lines_are_reported_but_ruled_only_when_declared() -> None:
    records = [
        _unit(i, "should", {"h1": x, "h2": x, "h3": x, "j": "yes"})
        for i, x in enumerate(["yes", "no"] * 5)
    ]
    results = by_criterion(records, HUMANS, ["j"])
    assert decide(results, CalibrationRule(), ["j"]).accepted == ("j",)
    strict = CalibrationRule(kappa_floor_on=["should"], kappa_floor=Decimal("0.6"))
    assert decide(results, strict, ["j"]).refused == ("j",)


def test_a_tie_among_humans_has_no_consensus() -> None:
    assert consensus({"h1": "yes", "h2": "no"}, ["h1", "h2"]) is None
    assert consensus({"h1": "yes", "h2": "no", "h3": "no"}, HUMANS) == "no"


def test_records_refuse_mixed_label_formats() -> None:
    with pytest.raises(ValueError, match="must-not units take the labels yes / no, not pass"):
        _unit(0, "must-not", {"h1": "pass", "h2": "no"})
    with pytest.raises(ValueError, match="a rubric unit names its line"):
        CalibrationRecord.model_validate(
            {
                "candidate": "m",
                "item": "i",
                "half": "A",
                "draw": 1,
                "criterion": "must-include",
                "grades": [{"rater": "a", "label": "yes"}, {"rater": "b", "label": "no"}],
            }
        )
    twice = [{"rater": "h1", "label": "pass"}, {"rater": "h1", "label": "fail"}]
    with pytest.raises(ValueError, match="a rater grades the unit twice: h1, h1"):
        CalibrationRecord.model_validate(
            {
                "candidate": "m",
                "item": "i",
                "half": "A",
                "draw": 1,
                "criterion": "pass-fail",
                "grades": twice,
            }
        )
