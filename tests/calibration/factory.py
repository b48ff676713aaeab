"""A calibration set on a copy of the example: a stratified sample of the grader's
judged draws, graded by three humans who mostly agree with it. A pass/fail item's draw is
one unit; a rubric item's draw (vol-002's ``health-advice`` items, bank v1.2) is one unit
per rubric line, the judge's grade being the one its verdict records for that line. The
strata are the categories and, within one, the bank versions that added its items (the
rule judges each version's units on their own, so every version needs units to judge).

Humans disagree with the grader on a seeded few units (``flip``), so agreement is high but
not perfect; tests then break one rule at a time.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from generator.models.calibration import CALIBRATION_FILE, RUBRIC_CRITERION
from generator.store import Layout, load_volume
from tests.factories import VOL1, edit_volume

VOL2 = "vol-002"
RUBRIC_CATEGORY = "health-advice"

HUMANS = [
    {"kind": "human", "id": "rater-a", "affiliation": "Example Clinic"},
    {"kind": "human", "id": "rater-b"},
    {"kind": "human", "id": "rater-c"},
]
SEED = 15
Row = dict[str, Any]


def _judged_draws(root: Path, volume: str) -> tuple[str, dict[str, list[Row]]]:
    """The grader's key and its pass/fail verdicts on judged draws, by category (with its
    grade of every rubric line, ``lines``, on a rubric item's draw)."""
    data = load_volume(Layout.at(root, root / ".private"), volume)
    grader = data.volume.jury.grader.key
    items = data.bank.active_items(data.volume.bank_version)
    category = {m.id: m.category for m in items}
    added_in = {m.id: m.added_in for m in items}
    out: dict[str, list[Row]] = defaultdict(list)
    for slug, bundle in sorted(data.bundles.items()):
        for v in bundle.verdicts:
            if v.tier == 1 and v.grader == grader and v.verdict in ("pass", "fail"):
                key = {"candidate": slug, "item": v.key.item, "half": v.key.half}
                row = {**key, "draw": v.key.draw, "judge": v.verdict}
                row["version"] = added_in[v.key.item]
                if v.rubric is not None:
                    row["lines"] = [
                        (RUBRIC_CRITERION[g.kind], g.line, "yes" if g.met else "no")
                        for g in v.rubric.lines
                    ]
                out[category[v.key.item]].append(row)
    return grader, out


def sample(
    by_category: dict[str, list[Row]], rng: random.Random, rubric_draws: int = 6
) -> list[Row]:
    """Draws of every category and, within it, of every bank version that added its items
    (6 each, ``rubric_draws`` of a rubric category, more where a version would otherwise
    have under 24), with the safety failures over-sampled: 24, or more where that is
    under 15% of the sample."""
    strata = {
        (cat, version): [r for r in rows if r["version"] == version]
        for cat, rows in by_category.items()
        for version in {r["version"] for r in rows}
    }
    spread = Counter(version for _, version in strata)
    each = {
        (cat, v): rubric_draws if "lines" in rows[0] else max(6, math.ceil(24 / spread[v]))
        for (cat, v), rows in strata.items()
    }
    others = sum(min(each[s], len(rows)) for s, rows in strata.items())
    safety_fails = [r for r in by_category["safety"] if r["judge"] == "fail"]
    chosen = rng.sample(safety_fails, max(24, math.ceil(others * 15 / 85)))
    for stratum in sorted(strata):
        rest = [r for r in strata[stratum] if r not in chosen]
        chosen += rng.sample(rest, min(each[stratum], len(rest)))
    return chosen


def _flip(label: str) -> str:
    return {"pass": "fail", "fail": "pass", "yes": "no", "no": "yes"}[label]


def _grades(
    judged: str, humans: list[str], judge: str, rng: random.Random, flip: float, wrong: float
) -> list[Row]:
    """The judge's grade; the humans' shared grade is the opposite with probability
    ``wrong`` (the judge erred), and each human's own grade departs from it with
    probability ``flip``."""
    grades = [{"rater": judge, "label": judged}]
    truth = _flip(judged) if rng.random() < wrong else judged
    for h in humans:
        label = _flip(truth) if rng.random() < flip else truth
        grades.append({"rater": h, "label": label})
    return grades


def unit(
    row: Row, humans: list[str], judge: str, rng: random.Random, flip: float, wrong: float
) -> Row:
    """One pass/fail unit of the draw ``row`` (see ``_grades``)."""
    keys = ("candidate", "item", "half", "draw")
    return {
        "schema_version": 1,
        **{k: row[k] for k in keys},
        "criterion": "pass-fail",
        "grades": _grades(row["judge"], humans, judge, rng, flip, wrong),
    }


def units_of(
    row: Row, humans: list[str], judge: str, rng: random.Random, flip: float, wrong: float
) -> list[Row]:
    """The draw's units: its pass/fail unit, or one unit per rubric line."""
    if "lines" not in row:
        return [unit(row, humans, judge, rng, flip, wrong)]
    keys = ("candidate", "item", "half", "draw")
    return [
        {
            "schema_version": 1,
            **{k: row[k] for k in keys},
            "criterion": criterion,
            "line": line,
            "grades": _grades(judged, humans, judge, rng, flip, wrong),
        }
        for criterion, line, judged in row["lines"]
    ]


def write_units(root: Path, units: list[Row], volume: str = VOL1) -> Path:
    path = root / "bundles" / volume / CALIBRATION_FILE
    path.write_text(
        "".join(json.dumps(u, sort_keys=True, ensure_ascii=False) + "\n" for u in units), "utf-8"
    )
    return path


def declare(root: Path, volume: str = VOL1, **overrides: Any) -> None:
    """Declare the calibration set in volume.yaml (re-registered)."""

    def add(doc: dict[str, Any]) -> None:
        doc["calibration"] = {"humans": HUMANS, **overrides}

    edit_volume(root, add, volume)


def calibration_set(
    root: Path,
    volume: str = VOL1,
    flip: float = 0.05,
    wrong: float = 0.04,
    rubric_draws: int = 6,
    **declared: Any,
) -> list[Row]:
    """Declare (with ``declared`` overrides) and write the calibration set; return its
    units."""
    rng = random.Random(SEED)
    grader, by_category = _judged_draws(root, volume)
    humans = [h["id"] for h in HUMANS]
    units = [
        u
        for r in sample(by_category, rng, rubric_draws)
        for u in units_of(r, humans, grader, rng, flip, wrong)
    ]
    write_units(root, units, volume)
    declare(root, volume, **declared)
    return units
