"""``gwet_ac1`` gives irrCAC's numbers to the last bit (it replaced irrCAC in the package).

Every field of the result is compared with ``==``, never with a tolerance: on random panels
(seeded, up to 4,000 subjects so that numpy's pairwise sums would show), on every
published worked example in ``tests/data/stats_reference_cases.json``, and on the real
JailbreakBench labels (three humans, four judges) in ``tests/data/jbb``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.stats import gwet_ac1
from tests.stats.irrcac_reference import irrcac_ac1
from tests.stats.test_reference_cases import CASES, raw_from_counts, raw_from_table

JBB = Path(__file__).resolve().parent.parent / "data" / "jbb" / "judge-comparison.csv"
HUMANS = ("human1", "human2", "human3")
LABELS = ["0", "1"]


def _same(ratings: list[list[str | None]], categories: list[str], level: float = 0.95) -> None:
    ours = gwet_ac1(ratings, categories, confidence=level)
    assert ours == irrcac_ac1(ratings, categories, level)


def _panel(seed: int) -> tuple[list[list[str | None]], list[str]]:
    """A seeded random panel: 2-4 categories, 2-5 raters, some ratings missing."""
    rng = np.random.default_rng(seed)
    categories = [f"c{k}" for k in range(int(rng.integers(2, 5)))]
    raters = int(rng.integers(2, 6))
    subjects = int(rng.choice([3, 12, 130, 1000, 4000]))
    missing, follow = rng.uniform(0.0, 0.5), rng.uniform(0.0, 1.0)
    rows: list[list[str | None]] = []
    for _ in range(subjects):
        usual = str(rng.choice(categories))
        row = [
            usual if rng.random() < follow else str(rng.choice(categories)) for _ in "x" * raters
        ]
        rows.append([None if rng.random() < missing else v for v in row])
    rows += [[categories[0]] * raters, [categories[-1]] * raters]  # two paired subjects
    return rows, categories


@pytest.mark.parametrize("seed", range(40))
def test_random_panels_equal_irrcac(seed: int) -> None:
    rows, categories = _panel(seed)
    _same(rows, categories, (0.5, 0.9, 0.95, 0.99)[seed % 4])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c"])), min_size=3, max_size=3),
        max_size=25,
    )
)
def test_small_panels_equal_irrcac(extra: list[list[str | None]]) -> None:
    rows: list[list[str | None]] = [["a", "a", "b"], ["c", None, "c"], *extra]
    _same(rows, ["a", "b", "c"])


def test_perfect_agreement_equals_irrcac() -> None:
    rows: list[list[str | None]] = [["pass", "pass", "pass"]] * 5 + [["fail", "fail", None]] * 3
    _same(rows, ["pass", "fail"])
    assert gwet_ac1(rows, ["pass", "fail"]).se == 0.0


@pytest.mark.parametrize(
    "case_id",
    ["gwet_cont3x3abstractors", "gwet_raw4raters", "gwet_distrib6raters_fleiss1971_first15"],
)
def test_published_examples_equal_irrcac(case_id: str) -> None:
    case = CASES[case_id]
    categories = [str(c) for c in case["categories"]]
    shape = case["data_format"].split()[0]
    if shape == "contingency_table":
        rows = raw_from_table(case["ratings"], categories)
    elif shape == "subject":
        rows = raw_from_counts(case["ratings"], categories)
    else:
        rows = [[None if v is None else str(v) for v in row] for row in case["ratings"]]
    widest = max(len(r) for r in rows)
    _same([[*r, *[None] * (widest - len(r))] for r in rows], categories)


def _jbb() -> list[dict[str, str]]:
    with JBB.open(encoding="mac_roman", newline="") as handle:  # the file is Mac Roman
        return list(csv.DictReader(handle))


def test_jailbreakbench_humans_equal_irrcac() -> None:
    rows: list[list[str | None]] = [[r[h] for h in HUMANS] for r in _jbb()]
    assert len(rows) == 300
    _same(rows, LABELS)
    assert f"{gwet_ac1(rows, LABELS).value:.4f}" == "0.8642"  # the README's published value


@pytest.mark.parametrize(
    ("judge", "published"),
    [
        ("harmbench_cf", "0.5754"),
        ("gpt4_cf", "0.8169"),
        ("llamaguard2_cf", "0.7651"),
        ("llama3_cf", "0.8215"),
    ],
)
def test_jailbreakbench_judges_equal_irrcac(judge: str, published: str) -> None:
    data = _jbb()
    pairs: list[list[str | None]] = [[r["human_majority"], r[judge]] for r in data]
    _same(pairs, LABELS)
    assert f"{gwet_ac1(pairs, LABELS).value:.4f}" == published  # the README's table
    _same([[*(r[h] for h in HUMANS), r[judge]] for r in data], LABELS, 0.9)
