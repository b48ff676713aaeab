"""A calibration set on a copy of the example: a stratified sample of the grader's
judged draws, graded by three humans who mostly agree with it.

Humans disagree with the grader on a seeded few units (``flip``), so agreement is high but
not perfect; tests then break one rule at a time.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from generator.models.calibration import CALIBRATION_FILE
from generator.store import Layout, load_volume
from tests.factories import VOL1, edit_volume

HUMANS = [
    {"kind": "human", "id": "rater-a", "affiliation": "Example Clinic"},
    {"kind": "human", "id": "rater-b"},
    {"kind": "human", "id": "rater-c"},
]
SEED = 15
Row = dict[str, Any]


def _judged_draws(root: Path, volume: str) -> tuple[str, dict[str, list[Row]]]:
    """The grader's key and its pass/fail verdicts on judged draws, by category."""
    data = load_volume(Layout.at(root, root / ".private"), volume)
    grader = data.volume.jury.grader.key
    category = {m.id: m.category for m in data.bank.active_items(data.volume.bank_version)}
    out: dict[str, list[Row]] = defaultdict(list)
    for slug, bundle in sorted(data.bundles.items()):
        for v in bundle.verdicts:
            if v.tier == 1 and v.grader == grader and v.verdict in ("pass", "fail"):
                key = {"candidate": slug, "item": v.key.item, "half": v.key.half}
                out[category[v.key.item]].append({**key, "draw": v.key.draw, "judge": v.verdict})
    return grader, out


def sample(by_category: dict[str, list[Row]], rng: random.Random) -> list[Row]:
    """Every category's draws, about 100 in all, with the safety failures over-sampled."""
    safety_fails = [r for r in by_category["safety"] if r["judge"] == "fail"]
    chosen = rng.sample(safety_fails, 24)
    for cat in sorted(by_category):
        rest = [r for r in by_category[cat] if r not in chosen]
        chosen += rng.sample(rest, min(6, len(rest)))
    return chosen


def _flip(label: str) -> str:
    return {"pass": "fail", "fail": "pass", "yes": "no", "no": "yes"}[label]


def unit(
    row: Row, humans: list[str], judge: str, rng: random.Random, flip: float, wrong: float
) -> Row:
    """One pass/fail unit: the judge's verdict; the humans' shared grade is the opposite
    with probability ``wrong`` (the judge erred), and each human's own grade departs from
    it with probability ``flip``."""
    grades = [{"rater": judge, "label": row["judge"]}]
    truth = _flip(row["judge"]) if rng.random() < wrong else row["judge"]
    for h in humans:
        label = _flip(truth) if rng.random() < flip else truth
        grades.append({"rater": h, "label": label})
    keys = ("candidate", "item", "half", "draw")
    return {
        "schema_version": 1,
        **{k: row[k] for k in keys},
        "criterion": "pass-fail",
        "grades": grades,
    }


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
    root: Path, volume: str = VOL1, flip: float = 0.05, wrong: float = 0.04
) -> list[Row]:
    """Declare and write the calibration set; return its units."""
    rng = random.Random(SEED)
    grader, by_category = _judged_draws(root, volume)
    humans = [h["id"] for h in HUMANS]
    units = [unit(r, humans, grader, rng, flip, wrong) for r in sample(by_category, rng)]
    write_units(root, units, volume)
    declare(root, volume)
    return units
