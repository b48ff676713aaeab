"""Gwet's AC1 (irrCAC path vs the independent numpy path) and leniency."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from irrCAC.raw import CAC

from generator.errors import ProbepressError
from generator.stats import StatsError, gwet_ac1
from tests.stats.gwet_numpy import category_counts, gwet_ac1_numpy
from tests.stats.one_row import leniency

CATEGORIES = ["pass", "fail", "refused"]


@st.composite
def panels(draw: st.DrawFn) -> list[list[str | None]]:
    """Subjects x raters with some missing ratings; at least 2 fully rated subjects."""
    raters = draw(st.integers(2, 5))
    subjects = draw(st.integers(2, 30))
    value = st.one_of(st.none(), st.sampled_from(CATEGORIES))
    rows = draw(st.lists(st.lists(value, min_size=raters, max_size=raters), min_size=subjects))
    full = st.lists(st.sampled_from(CATEGORIES), min_size=raters, max_size=raters)
    rows += draw(st.lists(full, min_size=2, max_size=2))
    return rows


@settings(max_examples=60, deadline=None)
@given(panels())
def test_irrcac_and_numpy_agree(ratings: list[list[str | None]]) -> None:
    published = gwet_ac1(ratings, CATEGORIES)
    independent = gwet_ac1_numpy(category_counts(ratings, CATEGORIES))
    assert published.value == pytest.approx(independent.value, abs=1e-12)
    assert published.se == pytest.approx(independent.se, abs=1e-12)
    assert published.percent_agreement == pytest.approx(independent.pa, abs=1e-12)
    assert published.chance_agreement == pytest.approx(independent.pe, abs=1e-12)
    assert published.n_subjects == independent.n_subjects
    assert -1.0 <= published.ci_lo <= published.value <= published.ci_hi <= 1.0


def test_interval_matches_irrcac_at_95_percent() -> None:
    ratings = [["pass", "pass", "fail"], ["pass", "pass", "pass"], ["fail", "fail", None]]
    ratings += [["pass", "fail", "pass"], ["fail", "fail", "fail"], ["pass", "pass", "pass"]]
    frame = pd.DataFrame([[np.nan if v is None else v for v in r] for r in ratings], dtype=object)
    reference = CAC(frame, categories=["pass", "fail"], digits=17).gwet()["est"]
    result = gwet_ac1(ratings, ["pass", "fail"])
    lo, hi = reference["confidence_interval"]
    assert result.ci_lo == pytest.approx(lo, abs=1e-12)
    assert result.ci_hi == pytest.approx(hi, abs=1e-12)  # irrCAC also caps at 1 here
    assert result.ci_hi == 1.0  # six subjects: the t interval runs past 1
    narrower = gwet_ac1(ratings, ["pass", "fail"], confidence=0.5)
    assert result.ci_lo < narrower.ci_lo <= narrower.value <= narrower.ci_hi


def test_perfect_agreement_is_one_with_zero_width() -> None:
    ratings: list[list[str | None]] = [["pass", "pass", "pass"]] * 5 + [["fail", "fail", None]] * 3
    result = gwet_ac1(ratings, ["pass", "fail"])
    assert (result.value, result.se, result.ci_lo, result.ci_hi) == (1.0, 0.0, 1.0, 1.0)
    assert result.percent_agreement == 1.0
    one_category = gwet_ac1([["pass", "pass"]] * 4, ["pass", "fail"])
    assert (one_category.value, one_category.se, one_category.chance_agreement) == (1.0, 0.0, 0.0)


def test_subjects_without_ratings_are_dropped() -> None:
    base: list[list[str | None]] = [["pass", "fail"], ["pass", "pass"], ["fail", "fail"]]
    with_empty = [*base, [None, None]]
    assert gwet_ac1(with_empty, ["pass", "fail"]) == gwet_ac1(base, ["pass", "fail"])
    assert gwet_ac1(with_empty, ["pass", "fail"]).n_subjects == 3


def test_single_rated_subjects_count_for_propensity_only() -> None:
    base: list[list[str | None]] = [["pass", "fail"], ["pass", "pass"], ["fail", "fail"]]
    extra = gwet_ac1([*base, ["fail", None]], ["pass", "fail"])
    plain = gwet_ac1(base, ["pass", "fail"])
    assert extra.percent_agreement == plain.percent_agreement
    assert extra.chance_agreement != plain.chance_agreement
    assert extra.n_subjects == 4


@pytest.mark.parametrize(
    ("ratings", "categories", "message"),
    [
        ([["pass", "pass"], ["pass", "fail"]], ["pass"], "at least 2 declared categories"),
        ([["pass", "pass"], ["pass", "fail"]], ["pass", "pass"], "unique"),
        ([["pass", "pass"], ["pass", ""]], ["pass", ""], "non-empty strings"),
        ([["pass"], ["fail"]], ["pass", "fail"], "at least 2 raters"),
        ([["pass", "pass"], ["pass"]], ["pass", "fail"], "row 1 has 1 raters"),
        ([["pass", "maybe"], ["pass", "fail"]], ["pass", "fail"], "'maybe' is not a declared"),
        ([["pass", "pass"], ["pass", None]], ["pass", "fail"], "got 1"),
        ([], ["pass", "fail"], "at least 2 raters"),
    ],
)
def test_ac1_refuses_bad_input(
    ratings: list[list[str | None]], categories: list[str], message: str
) -> None:
    with pytest.raises(StatsError, match=message) as caught:
        gwet_ac1(ratings, categories)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, ProbepressError)


def test_ac1_refuses_bad_confidence() -> None:
    with pytest.raises(StatsError, match="confidence"):
        gwet_ac1([["pass", "pass"], ["fail", "fail"]], ["pass", "fail"], confidence=1.0)


def test_leniency_in_points() -> None:
    grader = [True] * 8 + [False] * 2
    majority = [True] * 6 + [False] * 4
    result = leniency(grader, majority)
    assert result.points == pytest.approx(20.0)
    assert (result.grader_pass_share, result.majority_pass_share) == (0.8, 0.6)
    assert result.lo < 20.0 < result.hi <= 100.0
    assert result.n_draws == 10
    assert result.method == "tango-score"


def test_leniency_with_no_disagreement_is_zero_with_a_real_interval() -> None:
    result = leniency(np.ones(40, dtype=bool), np.ones(40, dtype=bool))
    assert result.points == 0.0
    assert result.lo < 0.0 < result.hi


def test_leniency_extremes_reach_the_bounds() -> None:
    assert leniency([True] * 5, [False] * 5).hi == 100.0
    assert leniency([False] * 5, [True] * 5).lo == -100.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_leniency_interval_contains_estimate_and_flips_sign(pairs: list[tuple[bool, bool]]) -> None:
    grader = [g for g, _ in pairs]
    majority = [m for _, m in pairs]
    forward = leniency(grader, majority)
    backward = leniency(majority, grader)
    assert -100.0 <= forward.lo <= forward.points <= forward.hi <= 100.0
    assert backward.points == pytest.approx(-forward.points)
    assert backward.lo == pytest.approx(-forward.hi, abs=1e-9)
    assert backward.hi == pytest.approx(-forward.lo, abs=1e-9)


@pytest.mark.parametrize(
    ("grader", "majority", "message"),
    [
        ([True, False], [True], "2 grader verdicts but 1"),
        ([], [], "at least one draw"),
        ([1, 0], [True, False], "booleans"),
        ([[True]], [[True]], "booleans"),
    ],
)
def test_leniency_refuses_bad_input(
    grader: list[object], majority: list[object], message: str
) -> None:
    with pytest.raises(StatsError, match=message):
        leniency(grader, majority)  # type: ignore[arg-type]
