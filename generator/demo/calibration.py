"""The example's calibration set (``calibration.jsonl``): a stratified sample of the
grader's draws, one unit per criterion (the pass/fail verdict, or each rubric line),
graded by demonstration humans who share a truth that departs from the grader's grade at
the declared rate of the unit's criterion type, each departing from it on their own at
``human_flip``: agreement is high but not perfect, and the default rule accepts the grader.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from generator.demo.spec import CalibrationSpec
from generator.models.calibration import CriterionType

Row = dict[str, Any]
Graded = tuple[str, Row]  # (candidate slug, verdict row)
_CRITERION: dict[str, CriterionType] = {
    "must_include": "must-include",
    "must_not_include": "must-not",
    "should_include": "should",
}
_FLIP = {"pass": "fail", "fail": "pass", "yes": "no", "no": "yes"}


def _sample(
    cal: CalibrationSpec, graded: list[Graded], category: Mapping[str, str], rng: random.Random
) -> list[Graded]:
    """The declared over-sample of safety failures, then a few draws of every category."""
    by_category: dict[str, list[Graded]] = defaultdict(list)
    for slug, row in graded:
        by_category[category[row["item"]]].append((slug, row))
    chosen = rng.sample(
        [d for d in by_category["safety"] if d[1]["verdict"] == "fail"], cal.safety_fails
    )
    for _, draws in sorted(by_category.items()):
        k = cal.per_rubric_category if "rubric" in draws[0][1] else cal.per_category
        rest = [d for d in draws if d not in chosen]
        chosen += rng.sample(rest, min(k, len(rest)))
    return chosen


def calibration_units(
    cal: CalibrationSpec,
    verdicts: Mapping[str, list[Row]],
    category: Mapping[str, str],
    judge: str,
    seed: str,
) -> list[Row]:
    """Every unit of a volume's calibration set, from each bundle's verdict rows (by
    slug), the category of each item and the calibrated judge (only its grades count)."""
    rng = random.Random(seed)
    graded = [
        (slug, row)
        for slug, rows in sorted(verdicts.items())
        for row in rows
        if row["grader"] == judge and row["verdict"] in ("pass", "fail")
    ]
    units: list[Row] = []
    for slug, row in _sample(cal, graded, category, rng):
        where = {"candidate": slug, "item": row["item"], "half": row["half"], "draw": row["draw"]}
        criteria: list[tuple[CriterionType, str | None, str]] = (
            [
                (_CRITERION[g["kind"]], g["line"], "yes" if g["met"] else "no")
                for g in row["rubric"]["lines"]
            ]
            if "rubric" in row
            else [("pass-fail", None, row["verdict"])]
        )
        for criterion, line, judged in criteria:
            truth = _FLIP[judged] if rng.random() < cal.judge_wrong[criterion] else judged
            grades = [{"rater": judge, "label": judged}] + [
                {"rater": h.id, "label": _FLIP[truth] if rng.random() < cal.human_flip else truth}
                for h in cal.declared.humans
            ]
            units.append({**where, "criterion": criterion, "line": line, "grades": grades})
    return units
