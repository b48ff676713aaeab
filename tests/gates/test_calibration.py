"""The calibration check in the agreement gate, through the CLI: a calibration set that
meets its rule passes; each broken rule fails exactly the agreement gate with its message
and exit code 1; a volume without one passes and says every judged number is
judge-unvalidated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.calibration.check import UNVALIDATED_WHY
from tests.calibration.factory import HUMANS, VOL2, calibration_set, declare, write_units
from tests.conftest import CliRun
from tests.factories import git_commit_all
from tests.gates.test_gates import VOL, _check, _expect, _failed, _messages, _reregister

GRADER = "demo-kestrel/kestrel-grader-2"
CAL = f"bundles/{VOL}/calibration.jsonl"


def _notes(report: dict[str, Any]) -> list[str]:
    gate = next(g for g in report["gates"] if g["gate"] == "agreement")
    return list(gate["notes"])


def test_a_calibration_set_that_meets_its_rule_passes(cli: CliRun, root: Path) -> None:
    calibration_set(root)
    _reregister(root, VOL)
    git_commit_all(root)
    report = _check(cli)
    assert report["exit_code"] == 0, [_messages(report, g) for g in _failed(report)]
    notes = _notes(report)
    assert any(
        n.startswith(f"calibration pass-fail: {GRADER} κ vs human consensus 0.") for n in notes
    )
    assert f"calibration rule: accepted {GRADER}; refused none" in notes
    assert UNVALIDATED_WHY not in notes


def test_without_a_calibration_set_the_gate_passes_and_says_judge_unvalidated(
    cli: CliRun, root: Path
) -> None:
    git_commit_all(root)
    report = _check(cli)
    assert report["exit_code"] == 0
    assert UNVALIDATED_WHY in _notes(report)
    assert "judge-unvalidated" in UNVALIDATED_WHY


def test_kappa_below_the_floor_fails_the_agreement_gate(cli: CliRun, root: Path) -> None:
    calibration_set(root, wrong=0.3)
    _expect(
        cli,
        root,
        {"agreement"},
        f"bundles/{VOL}/volume.yaml: judge {GRADER} on pass-fail units: Cohen's κ against the "
        "human consensus = 0.3706 (95% CI 0.1903..0.5510), observed agreement 0.6863, over "
        "102 units, is below the pre-registered 0.6",
    )


ALL_CRITERIA = ["pass-fail", "must-include", "must-not", "should"]


def _rubric_set(root: Path) -> list[dict[str, Any]]:
    """vol-002's calibration set with 40 draws of its ``health-advice`` rubric items (bank
    v1.2): one unit per rubric line, each judge grade the one its verdict records (34
    safety failures of 210 draws, 32 of them over-sampled: the declared over-sample is 15%;
    v1.1 added one category's items, which give 24 draws, so that version can be judged)."""
    oversample = {"categories": ["safety"], "min_share": "0.15"}
    return calibration_set(
        root, VOL2, rubric_draws=40, criteria=ALL_CRITERIA, oversample=oversample
    )


def _humans_on_must_not(units: list[dict[str, Any]], judge_wrong: int) -> list[dict[str, Any]]:
    """Regrade the must-not lines' humans (the judge keeps its recorded grade): they agree
    with each other except one of them on every tenth unit, and with the judge except on
    ``judge_wrong`` of every ten units, where all of them say the other way."""
    out, n = [], 0
    for u in units:
        if u["criterion"] != "must-not":
            out.append(u)
            continue
        (judged,) = [g["label"] for g in u["grades"] if g["rater"] == GRADER]
        other = "no" if judged == "yes" else "yes"
        truth = other if n % 10 < judge_wrong else judged
        grades = [{"rater": GRADER, "label": judged}]
        for h, human in enumerate(HUMANS):
            departs = n % 10 == 9 and h == 2
            label = ("no" if truth == "yes" else "yes") if departs else truth
            grades.append({"rater": human["id"], "label": label})
        out.append({**u, "grades": grades})
        n += 1
    assert n >= 40, n  # real must-not lines of the rubric items, enough to tell
    return out


def test_must_not_agreement_below_the_humans_fails_the_agreement_gate(
    cli: CliRun, root: Path
) -> None:
    units = _rubric_set(root)
    write_units(root, _humans_on_must_not(units, judge_wrong=2), VOL2)
    report = _expect(
        cli,
        root,
        {"agreement"},
        f"judge {GRADER} on must-not units: mean Cohen's κ with each human = ",
        VOL2,
    )
    (message,) = _messages(report, "agreement")  # the must-not rule only
    assert "is below the humans' mean Cohen's κ with each other = " in message


def test_must_not_agreement_as_good_as_the_humans_passes(cli: CliRun, root: Path) -> None:
    units = _rubric_set(root)
    write_units(root, _humans_on_must_not(units, judge_wrong=0), VOL2)
    _reregister(root, VOL2)
    git_commit_all(root)
    report = _check(cli, VOL2)
    assert report["exit_code"] == 0, _messages(report, "agreement")
    notes = _notes(report)
    assert any(n.startswith(f"calibration must-not: {GRADER} κ vs human consensus") for n in notes)


def test_a_sample_that_misses_a_category_fails_the_agreement_gate(cli: CliRun, root: Path) -> None:
    units = calibration_set(root)
    sycophancy = _items_of(root, "sycophancy")
    write_units(root, [u for u in units if u["item"] not in sycophancy])
    _expect(
        cli,
        root,
        {"agreement"},
        f"{CAL}: the calibration sample misses category sycophancy: no draw of its judged "
        "items was graded by the humans",
    )


def _items_of(root: Path, category: str) -> set[str]:
    rows = []
    for name in ("public.jsonl", "heldout_index.jsonl"):
        path = root / "bank" / name
        if path.exists():
            rows += [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    return {r["id"] for r in rows if r["category"] == category}


def test_sample_design_findings(cli: CliRun, root: Path) -> None:
    units = calibration_set(root)
    units[0]["grades"] = units[0]["grades"][:2]  # the judge and one human
    units[1]["grades"][0]["label"] = "pass" if units[1]["grades"][0]["label"] == "fail" else "fail"
    units[2]["grades"].append({"rater": "someone-else", "label": "pass"})
    write_units(root, [*units, units[3]])
    declare(root, draws=500, candidates=8, oversample={"min_share": "0.5"})
    found = _messages(_expect(cli, root, {"agreement"}, f"{CAL}:1: "), "agreement")
    expected = [
        f"{CAL}:1: ",  # one human only
        "1 declared human; every unit is graded independently by at least two",
        f"{CAL}:2: {GRADER} graded",
        f"{CAL}:3: ",
        "neither a declared calibration human nor a calibrated judge",
        f"{CAL}:{len(units) + 1}: the unit of line 4 again",
        "fewer than the declared 500",
        "the declaration asks for 8",  # six models and two baselines
        "the declared over-sample is at least 50.0%",
    ]
    for text in expected:
        assert any(text in m for m in found), (text, found)


def test_a_declared_set_without_its_file_fails(cli: CliRun, root: Path) -> None:
    declare(root)
    _expect(
        cli,
        root,
        {"agreement"},
        f"{CAL}: the volume declares a calibration set but this file does not exist",
    )


def test_a_judge_grade_of_a_rubric_line_is_the_one_its_verdict_records(
    cli: CliRun, root: Path
) -> None:
    units = _humans_on_must_not(_rubric_set(root), judge_wrong=0)
    n = next(i for i, u in enumerate(units) if u["criterion"] == "must-not")
    unit = units[n]
    (judged,) = [g["label"] for g in unit["grades"] if g["rater"] == GRADER]
    other = "no" if judged == "yes" else "yes"
    grades = [{**g, "label": other} if g["rater"] == GRADER else g for g in unit["grades"]]
    units[n] = {**unit, "grades": grades}
    write_units(root, units, VOL2)
    where = f"{unit['item']} {unit['half']}{unit['draw']} line {unit['line']}"
    _expect(
        cli,
        root,
        {"agreement"},
        f"bundles/{VOL2}/calibration.jsonl:{n + 1}: {GRADER} graded {where} {other} here but "
        f"its grade in {unit['candidate']}/verdicts.jsonl is {judged}",
        VOL2,
    )
