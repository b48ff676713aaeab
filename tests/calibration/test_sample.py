"""The maintainer's calibration sampler: ``probepress sample VOLUME --calibration`` lists
a sample that meets the volume's declaration (the agreement gate's design check finds
nothing), the same one every time, blind to the judge's grades; the example's
calibration set is exactly that sample."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from generator.calibration.design import Frame, check_design
from generator.calibration.sample import Graded, Unit, draw_sample
from generator.models.calibration import CalibrationRecord, CalibrationSet
from tests.conftest import CliRun

HUMANS = [{"kind": "human", "id": "h1"}, {"kind": "human", "id": "h2"}]
CATEGORIES = ("safety", "math", "dates", "tiny")


def _pool() -> list[Graded]:
    """Four candidates × 40 draws of each category (tiny: 2 draws in all); one safety
    draw in five rejected."""
    pool = []
    for c in range(4):
        for category in CATEGORIES:
            for n in range(2 if category == "tiny" else 40):
                label = "fail" if category == "safety" and n % 5 == 0 else "pass"
                if category == "tiny" and c:
                    continue
                pool.append(
                    Graded(f"cand-{c}", f"{category}-{n % 8:02d}", "AB"[n % 2], n // 8 + 1,
                           category, (Unit("pass-fail", None, label),))
                )  # fmt: skip
    return pool


def _declared(draws: int = 60, share: str = "0.2") -> CalibrationSet:
    return CalibrationSet.model_validate(
        {"humans": HUMANS, "draws": draws, "candidates": 4,
         "oversample": {"categories": ["safety"], "min_share": share}}
    )  # fmt: skip


def _records(sample: list[Graded]) -> list[tuple[int, CalibrationRecord]]:
    return [
        (n, CalibrationRecord.model_validate(
            {"candidate": d.candidate, "item": d.item, "half": d.half, "draw": d.draw,
             "criterion": u.criterion, "grades": [
                 {"rater": "judge", "label": u.label}, {"rater": "h1", "label": u.label},
                 {"rater": "h2", "label": u.label}]}))
        for n, d in enumerate(sample, 1)
        for u in d.units
    ]  # fmt: skip


def test_the_sample_meets_its_declaration() -> None:
    pool = _pool()
    sample = draw_sample(_declared(), pool, "seed")
    frame = Frame(
        judged={d.item: d.category for d in pool},
        candidates=[f"cand-{c}" for c in range(4)],
        draws={},
        judges=["judge"],
    )
    assert check_design(_records(sample), frame, _declared()) == []
    assert len(sample) == 60
    per_category = Counter(d.category for d in sample)
    # 12 safety failures first, then 48 spread: tiny has only 2, its share goes on.
    assert per_category["tiny"] == 2
    assert sum(d.rejected for d in sample) >= 12
    assert abs(per_category["math"] - per_category["dates"]) <= 1
    assert len({d.candidate for d in sample}) == 4


def test_the_same_seed_gives_the_same_sample_and_another_seed_another() -> None:
    pool = _pool()
    first = draw_sample(_declared(), pool, "seed")
    assert draw_sample(_declared(), list(reversed(pool)), "seed") == first
    assert draw_sample(_declared(), pool, "other seed") != first


def test_fewer_failures_than_the_over_sample_takes_them_all() -> None:
    pool = _pool()
    failures = sum(d.rejected for d in pool)
    sample = draw_sample(_declared(draws=100, share="0.9"), pool, "seed")
    assert sum(d.rejected for d in sample) == failures
    assert len(sample) == 100


def test_the_example_calibration_set_is_the_listed_sample(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "units.jsonl"
    result = cli("sample", "vol-002", "--calibration", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    listed = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert result.stderr.strip() == f"vol-002: {len(listed)} units in the calibration sample"
    assert all(set(row) == {"candidate", "item", "half", "draw", "category", "criterion",
                            "line"} for row in listed)  # fmt: skip
    recorded = (root / "bundles/vol-002/calibration.jsonl").read_text("utf-8").splitlines()

    def unit(row: dict[str, object]) -> tuple[object, ...]:
        return tuple(row.get(k) for k in ("candidate", "item", "half", "draw", "criterion", "line"))

    assert [unit(row) for row in listed] == [unit(json.loads(line)) for line in recorded]
    csv = cli("sample", "vol-002", "--calibration")
    assert csv.stdout.splitlines()[0] == "candidate,item,half,draw,category,criterion,line"
    assert len(csv.stdout.splitlines()) == len(listed) + 1


def test_a_volume_without_a_calibration_set_is_refused(cli: CliRun) -> None:
    result = cli("sample", "vol-001", "--calibration")
    assert result.exit_code == 2
    assert (
        "bundles/vol-001/volume.yaml: calibration: vol-001 declares no calibration set"
        in result.stderr
    )
    both = cli("sample", "vol-002", "--calibration", "--records", "x.csv")
    assert both.exit_code == 2
    assert "--calibration lists from the bundles; drop --records" in both.stderr


def test_each_bank_version_gets_an_even_share_before_its_categories() -> None:
    # v1 adds three categories, v2 one: v2's units are judged on their own, so it gets
    # half of what the over-sample leaves, not a quarter.
    pool = [
        Graded(d.candidate, d.item, d.half, d.draw, d.category, d.units,
               "v2" if d.category == "dates" else "v1")
        for d in _pool()
    ]  # fmt: skip
    sample = draw_sample(_declared(), pool, "seed")
    rest = [d for d in sample if not d.rejected]
    versions = Counter(d.version for d in rest)
    assert abs(versions["v1"] - versions["v2"]) <= 1
