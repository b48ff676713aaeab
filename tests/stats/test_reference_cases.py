"""Published worked examples as oracles: Wilson, Gwet's AC1, percent agreement, Tango.

Cases live in ``tests/data/stats_reference_cases.json`` with their ``source``. Tolerance is
half a unit in the last decimal the source printed (plus 1e-12).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from generator.stats import gwet_ac1, wilson
from tests.stats.gwet_numpy import category_counts, gwet_ac1_numpy
from tests.stats.one_row import leniency

DATA = Path(__file__).resolve().parent.parent / "data" / "stats_reference_cases.json"
CASES: dict[str, dict[str, Any]] = {
    case["id"]: case for case in json.loads(DATA.read_text(encoding="utf-8"))["cases"]
}


def tolerance(printed: float | str) -> float:
    """Half a unit in the last printed decimal, plus 1e-12."""
    text = printed if isinstance(printed, str) else repr(printed)
    exponent = Decimal(text).as_tuple().exponent
    assert isinstance(exponent, int)
    return 0.5 * 10.0**exponent + 1e-12


def assert_close(computed: float, printed: float | str) -> None:
    """``computed`` agrees with ``printed`` to the precision it was printed with."""
    assert abs(computed - float(printed)) <= tolerance(printed), (computed, printed)


def raw_from_table(table: list[list[int]], categories: list[str]) -> list[list[str | None]]:
    """Two raters' raw ratings from their contingency table (rows = rater 1)."""
    rows: list[list[str | None]] = []
    for i, first in enumerate(categories):
        for j, second in enumerate(categories):
            rows += [[first, second] for _ in range(table[i][j])]
    return rows


def raw_from_counts(counts: list[list[int]], categories: list[str]) -> list[list[str | None]]:
    """Raw ratings (rater slots) from a subject x category count matrix."""
    rows: list[list[str | None]] = []
    for row in counts:
        rows.append([c for c, m in zip(categories, row, strict=True) for _ in range(m)])
    return rows


def test_tolerance_follows_printed_decimals() -> None:
    assert tolerance(0.89) == pytest.approx(0.005)
    assert tolerance("-0.1240") == pytest.approx(0.00005)
    assert tolerance(0.8493305) == pytest.approx(5e-8 + 1e-12, rel=1e-9)


WILSON_CASES = sorted(cid for cid in CASES if "wilson_score_ci" in CASES[cid]["statistic"])


@pytest.mark.parametrize("case_id", WILSON_CASES)
def test_wilson_matches_published(case_id: str) -> None:
    case = CASES[case_id]
    expected = case["expected"]["alpha_0.05"]
    result = wilson(case["ratings"]["k"], case["ratings"]["n"], 0.95)
    assert_close(result.lo, expected["wilson_ci95"][0])
    assert_close(result.hi, expected["wilson_ci95"][1])
    if "estimate" in expected:
        assert_close(result.estimate, expected["estimate"])


def test_wilson_cases_include_both_boundaries() -> None:
    # 0/n and n/n must be exactly 0 and 1, as R's binom prints them.
    assert wilson(0, 30).lo == 0.0
    assert wilson(30, 30).hi == 1.0
    assert {"r_wilson_0_of_30", "r_wilson_30_of_30"} <= set(WILSON_CASES)


def test_ac1_raw_four_raters_with_missing() -> None:
    case = CASES["gwet_raw4raters"]
    categories = [str(c) for c in case["categories"]]
    ratings = [[None if v is None else str(v) for v in row] for row in case["ratings"]]
    expected = case["expected"]["unweighted"]
    for result in (
        gwet_ac1(ratings, categories),
        gwet_ac1_numpy(category_counts(ratings, categories)),
    ):
        assert_close(result.value, expected["gwet_ac1"])
        assert_close(result.se, expected["gwet_ac1_se"])
    published = gwet_ac1(ratings, categories)
    assert_close(published.percent_agreement, expected["gwet_ac1_pa"])
    assert_close(published.percent_agreement, expected["percent_agreement"])
    assert_close(published.chance_agreement, expected["gwet_ac1_pe"])
    assert published.n_subjects == 12
    assert published.n_raters == 4


def test_ac1_fleiss_distribution_first_15() -> None:
    case = CASES["gwet_distrib6raters_fleiss1971_first15"]
    ratings = raw_from_counts(case["ratings"], case["categories"])
    expected = case["expected"]["unweighted"]
    result = gwet_ac1(ratings, case["categories"])
    assert_close(result.value, expected["gwet_ac1"])
    assert_close(result.se, expected["gwet_ac1_se"])
    assert_close(result.percent_agreement, expected["gwet_ac1_pa"])
    assert_close(result.chance_agreement, expected["gwet_ac1_pe"])


def test_ac1_two_rater_table() -> None:
    case = CASES["gwet_cont3x3abstractors"]
    ratings = raw_from_table(case["ratings"], case["categories"])
    expected = case["expected"]["unweighted"]
    result = gwet_ac1(ratings, case["categories"])
    assert result.n_subjects == 100
    assert_close(result.value, expected["gwet_ac1"])
    assert_close(result.percent_agreement, expected["percent_agreement"])
    # The published SE and CI come from Gwet's table formula, whose variance divides by
    # n**2 where the raw-ratings formula (ours) divides by n(n-1).
    n = result.n_subjects
    table_se = result.se * math.sqrt((n - 1) / n)
    assert_close(table_se, expected["gwet_ac1_se"])
    assert abs(result.se - float(expected["gwet_ac1_se"])) > tolerance(expected["gwet_ac1_se"])
    half = float(stats.t.ppf(0.975, n - 1)) * table_se
    assert_close(result.value - half, expected["gwet_ac1_ci95"][0])
    assert_close(result.value + half, expected["gwet_ac1_ci95"][1])


@pytest.mark.parametrize(
    "case_id", ["randolph_calculator_2subj_2cat", "randolph_calculator_2subj_3cat"]
)
def test_percent_agreement_randolph(case_id: str) -> None:
    case = CASES[case_id]
    categories = [str(c) for c in case["categories"]]
    result = gwet_ac1(raw_from_counts(case["ratings"], categories), categories)
    assert_close(
        result.percent_agreement, case["expected"]["unweighted"]["percent_overall_agreement"]
    )


def test_leniency_matches_tango_published() -> None:
    case = CASES["fagerland_cavo2012_tango_paired_difference"]
    (n11, n12), (n21, n22) = case["ratings"]
    first = [True] * (n11 + n12) + [False] * (n21 + n22)
    second = [True] * n11 + [False] * n12 + [True] * n21 + [False] * n22
    result = leniency(first, second)
    expected = case["expected"]["alpha_0.05"]
    assert_close(result.points / 100.0, expected["estimate"])
    assert_close(result.lo / 100.0, expected["tango_ci95"][0])
    assert_close(result.hi / 100.0, expected["tango_ci95"][1])
    assert result.n_draws == n11 + n12 + n21 + n22
