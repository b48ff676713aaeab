"""The calibration rule applied per dataset version, through the CLI: when the sample
spans bank versions, each version's units (those of the items it added) are judged on
their own, and the agreement gate names the version that fails, even when the numbers
pooled over every version would pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.calibration.agreement import consensus
from tests.calibration.factory import HUMANS, VOL2, write_units
from tests.conftest import CliRun
from tests.gates.test_calibration import GRADER, _humans_on_must_not, _notes, _rubric_set
from tests.gates.test_gates import _expect, _messages

CAL = f"bundles/{VOL2}/calibration.jsonl"


def _added_in(root: Path) -> dict[str, str]:
    out = {}
    for name in ("public.jsonl", "heldout_index.jsonl"):
        for line in (root / "bank" / name).read_text("utf-8").splitlines():
            row = json.loads(line)
            out[row["id"]] = row["added_in"]
    return out


def _humans_overrule_on(units: list[dict[str, Any]], items: set[str]) -> list[dict[str, Any]]:
    """On every other pass/fail unit of ``items``, all humans grade the other way."""
    out, n = [], 0
    for u in units:
        if u["criterion"] != "pass-fail" or u["item"] not in items:
            out.append(u)
            continue
        if n % 2 == 0:
            other = _other(_judged(u))
            grades = [g if g["rater"] == GRADER else {**g, "label": other} for g in u["grades"]]
            out.append({**u, "grades": grades})
        else:
            out.append(u)
        n += 1
    return out


def _judged(unit: dict[str, Any]) -> str:
    (label,) = [g["label"] for g in unit["grades"] if g["rater"] == GRADER]
    return str(label)


def _other(label: str) -> str:
    return "fail" if label == "pass" else "pass"


def _kappa(units: list[dict[str, Any]]) -> float:
    """The judge's κ against the human majority, by scikit-learn."""
    humans = [h["id"] for h in HUMANS]
    judge, majority = [], []
    for u in units:
        grades = {g["rater"]: g["label"] for g in u["grades"]}
        agreed = consensus(grades, humans)
        if agreed is not None:
            judge.append(grades[GRADER])
            majority.append(agreed)
    from sklearn.metrics import cohen_kappa_score  # seconds to import: only where it runs

    return float(cohen_kappa_score(judge, majority))


def test_a_version_whose_units_break_the_rule_fails_though_the_pool_passes(
    cli: CliRun, root: Path
) -> None:
    units = _rubric_set(root)
    added = _added_in(root)
    new = {i for i, v in added.items() if v == "v1.2"}
    # must-not lines as good as the humans (the seeded set's are not): pass/fail is the rule
    units = _humans_overrule_on(_humans_on_must_not(units, judge_wrong=0), new)
    write_units(root, units, VOL2)
    pass_fail = [u for u in units if u["criterion"] == "pass-fail"]
    pooled = _kappa(pass_fail)
    newer = _kappa([u for u in pass_fail if u["item"] in new])
    assert pooled >= 0.6 > newer  # pooled, the judge would be accepted
    v12 = sum(u["item"] in new for u in units)
    report = _expect(
        cli,
        root,
        {"agreement"},
        f"bundles/{VOL2}/volume.yaml: bank v1.2 items ({v12} units): judge {GRADER} on "
        f"pass-fail units: Cohen's κ against the human consensus = {newer:.4f} (95% CI ",
        VOL2,
    )
    (message,) = _messages(report, "agreement")  # v1 and v1.1 are not refused
    assert "is below the pre-registered 0.6" in message
    notes = _notes(report)
    for version in ("v1", "v1.1"):  # the older versions' units meet the rule
        n = sum(added[u["item"]] == version for u in units)
        accepted = f"calibration rule on bank {version} items ({n} units): accepted {GRADER}"
        assert f"{accepted}; refused none" in notes
    assert (
        f"calibration rule on bank v1.2 items ({v12} units): accepted none; refused {GRADER}"
        in (notes)
    )
    assert f"calibration rule: accepted none; refused {GRADER}" in notes
    assert any(
        n.startswith(f"calibration pass-fail: {GRADER} κ vs human consensus 0.") for n in notes
    )
