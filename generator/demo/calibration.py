"""The example's calibration set: a stratified sample of the grader's draws, graded by
demonstration humans who mostly agree with it (``calibration.jsonl``).

Each sampled draw gives one unit per criterion: its pass/fail verdict, or each line of its
rubric. The humans share a truth that departs from the grader's grade at the declared
rate of the unit's criterion type, and each departs from that truth on their own at
``human_flip``, so agreement is high but not perfect, and the default rule accepts the
grader.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from generator.demo.bank import DemoItem
from generator.demo.spec import CalibrationSpec
from generator.models.calibration import CriterionType

Row = dict[str, Any]
_CRITERION: dict[str, CriterionType] = {
    "must_include": "must-include",
    "must_not_include": "must-not",
    "should_include": "should",
}
_FLIP = {"pass": "fail", "fail": "pass", "yes": "no", "no": "yes"}


def _sample(
    cal: CalibrationSpec,
    graded: list[tuple[str, Row]],
    category: Mapping[str, str],
    rng: random.Random,
) -> list[tuple[str, Row]]:
    """The declared over-sample of safety failures, then a few draws of every category."""
    by_category: dict[str, list[tuple[str, Row]]] = defaultdict(list)
    for slug, row in graded:
        by_category[category[row["item"]]].append((slug, row))
    fails = [d for d in by_category["safety"] if d[1]["verdict"] == "fail"]
    chosen = rng.sample(fails, cal.safety_fails)
    rubric_categories = {category[r["item"]] for _, r in graded if "rubric" in r}
    for cat in sorted(by_category):
        rest = [d for d in by_category[cat] if d not in chosen]
        k = cal.per_rubric_category if cat in rubric_categories else cal.per_category
        chosen += rng.sample(rest, min(k, len(rest)))
    return chosen


def _unit(
    cal: CalibrationSpec, criterion: CriterionType, judged: str, judge: str, rng: random.Random
) -> list[Row]:
    """The grades of one unit: the judge's ``judged``, then each human's."""
    truth = _FLIP[judged] if rng.random() < cal.judge_wrong[criterion] else judged
    humans = [h.id for h in cal.declared.humans]
    return [{"rater": judge, "label": judged}] + [
        {"rater": h, "label": _FLIP[truth] if rng.random() < cal.human_flip else truth}
        for h in humans
    ]


def calibration_units(
    cal: CalibrationSpec,
    verdicts: Mapping[str, list[Row]],
    items: list[DemoItem],
    judge: str,
    rng: random.Random,
) -> list[Row]:
    """Every unit of the volume's calibration set, in sample order.

    Args:
        cal: The volume's calibration set and how it is simulated.
        verdicts: Each bundle's ``verdicts.jsonl`` rows, by candidate slug.
        items: The volume's items.
        judge: The calibrated judge (the volume's grader): only its verdicts are sampled.
        rng: The only source of randomness.
    """
    category = {d.item.id: d.item.category for d in items}
    graded = [
        (slug, row)
        for slug, rows in sorted(verdicts.items())
        for row in rows
        if row["grader"] == judge and row["verdict"] in ("pass", "fail")
    ]
    units: list[Row] = []
    for slug, row in _sample(cal, graded, category, rng):
        where = {"candidate": slug, "item": row["item"], "half": row["half"], "draw": row["draw"]}
        if "rubric" not in row:
            grades = _unit(cal, "pass-fail", row["verdict"], judge, rng)
            units.append({**where, "criterion": "pass-fail", "grades": grades})
            continue
        for line in row["rubric"]["lines"]:
            criterion = _CRITERION[line["kind"]]
            grades = _unit(cal, criterion, "yes" if line["met"] else "no", judge, rng)
            units.append({**where, "criterion": criterion, "line": line["line"], "grades": grades})
    return units
