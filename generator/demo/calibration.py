"""The example's calibration set (``calibration.jsonl``): the maintainer's stratified
sample (``generator.calibration.sample``) of the grader's draws, each unit graded by
demonstration humans who share a truth that departs from the grader's grade at the
declared rate of the unit's criterion type, each departing from it on their own at
``human_flip``: agreement is high but not perfect, and the default rule accepts the grader.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from generator.calibration.sample import calibration_seed, draw_sample, eligible, graded
from generator.demo.spec import CalibrationSpec
from generator.models.records import Verdict
from generator.models.volume import Volume

Row = dict[str, Any]
_FLIP = {"pass": "fail", "fail": "pass", "yes": "no", "no": "yes"}


def calibration_units(
    cal: CalibrationSpec,
    verdicts: Mapping[str, list[Row]],
    items: Mapping[str, tuple[str, str]],
    judge: str,
    volume: Volume,
) -> list[Row]:
    """Every unit of ``volume``'s calibration set, from each bundle's verdict rows (by
    slug), each item's category and ``added_in`` version, and the calibrated judge (only
    its grades count): the sample ``probepress sample --calibration`` lists, with
    simulated human grades."""
    pool = [
        graded(slug, v, *items[v.item])
        for slug, rows in sorted(verdicts.items())
        for v in map(Verdict.model_validate, rows)
        if eligible(v, judge)
    ]
    seed = calibration_seed(volume)
    rng = random.Random(f"{seed}:demonstration grades")
    units: list[Row] = []
    for d in draw_sample(cal.declared, pool, seed):
        where = {"candidate": d.candidate, "item": d.item, "half": d.half, "draw": d.draw}
        for unit in d.units:
            judged = unit.label
            truth = _FLIP[judged] if rng.random() < cal.judge_wrong[unit.criterion] else judged
            grades = [{"rater": judge, "label": judged}] + [
                {"rater": h.id, "label": _FLIP[truth] if rng.random() < cal.human_flip else truth}
                for h in cal.declared.humans
            ]
            units.append(
                {**where, "criterion": unit.criterion, "line": unit.line, "grades": grades}
            )
    return units
