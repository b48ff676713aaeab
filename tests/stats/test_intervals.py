"""Rates, Wilson, narrow, wide and difference intervals: exact cases and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from generator.stats import (
    Interval,
    StatsError,
    difference_interval,
    narrow_interval,
    rate,
    wide_interval,
    wilson,
)
from generator.stats.narrow import constrained_rates

Z95 = float(stats.norm.ppf(0.975))


def wilson_limits(p: float, size: float, q: float) -> tuple[float, float]:
    """Textbook Wilson limits, written out independently of the library."""
    centre = (p + q * q / (2 * size)) / (1 + q * q / size)
    half = q / (1 + q * q / size) * np.sqrt(p * (1 - p) / size + q * q / (4 * size * size))
    return centre - half, centre + half


@st.composite
def volumes(draw: st.DrawFn, min_items: int = 1) -> tuple[list[int], list[int]]:
    """Per-item fail counts and draw counts."""
    n = draw(st.lists(st.integers(1, 12), min_size=min_items, max_size=40))
    k = [draw(st.integers(0, n_i)) for n_i in n]
    return k, n


def test_rate_is_mean_of_item_fractions_not_pooled() -> None:
    assert rate([1, 0], [2, 10]) == pytest.approx(0.25)  # pooled would be 1/12
    assert rate([0, 0, 0], [10, 10, 10]) == 0.0


def test_wilson_is_the_textbook_formula() -> None:
    result = wilson(7, 23, 0.9)
    lo, hi = wilson_limits(7 / 23, 23, float(stats.norm.ppf(0.95)))
    assert (result.lo, result.hi) == pytest.approx((lo, hi), abs=1e-15)
    assert result == Interval(7 / 23, result.lo, result.hi, "wilson", 0.9)


def test_narrow_for_one_item_is_wilson_with_n_minus_one() -> None:
    # One item: the constraint fixes p = theta, so the score interval is Wilson's with
    # the n - 1 divisor of the unbiased per-item variance.
    result = narrow_interval([3], [10])
    assert (result.lo, result.hi) == pytest.approx(wilson_limits(0.3, 9, Z95), abs=1e-9)


def test_narrow_with_one_draw_an_item_is_wilson_of_the_pooled_draws() -> None:
    # One draw an item: the items are pooled into one binomial cell of 63 draws, so the
    # interval is Wilson's for 13 of 63 with 62 in place of 63, and says so.
    result = narrow_interval([0] * 50 + [1] * 13, [1] * 63)
    assert (result.lo, result.hi) == pytest.approx(wilson_limits(13 / 63, 62, Z95), abs=1e-9)
    assert result.method == "binomial-mean-score-pooled-single-draws"
    assert result.params["single_draw_items"] == 63
    assert result.params["single_draw_variance"] == "pooled-bernoulli-bound"


def test_one_draw_pooling_ignores_item_order_and_keeps_other_items() -> None:
    k = [1, 0, 0, 3, 1, 0, 7, 0, 1]
    n = [1, 1, 1, 10, 1, 1, 10, 2, 1]
    forward = narrow_interval(k, n)
    backward = narrow_interval(k[::-1], n[::-1])
    assert (forward.lo, forward.hi) == pytest.approx((backward.lo, backward.hi), abs=1e-12)
    assert forward.params["single_draw_items"] == 6
    assert forward.lo < forward.estimate < forward.hi
    # Without single draws nothing is pooled and nothing new is declared.
    plain = narrow_interval([3, 7, 0], [10, 10, 2])
    assert plain.method == "binomial-mean-score"
    assert set(plain.params) == {"variance", "divisor", "items"}


def test_one_draw_difference_pools_each_side() -> None:
    # Two halves of one draw: each side is one pooled cell, so the interval is the
    # score interval for a difference of two binomial proportions (n - 1 in place of n).
    a, b = [1] * 12 + [0] * 28, [1] * 6 + [0] * 34
    result = difference_interval(a, [1] * 40, b, [1] * 40, paired=True, kind="narrow")
    assert result.params["single_draw_items"] == 80
    assert result.lo < 0.15 < result.hi
    for theta in (result.lo, result.hi):  # each limit sits on the score boundary
        p_a, p_b = _constrained_pair(12, 6, 40, theta)
        variance = (p_a * (1 - p_a) + p_b * (1 - p_b)) / 39
        assert (0.15 - theta) ** 2 == pytest.approx(Z95**2 * variance, rel=1e-5)  # grid


def _constrained_pair(k_a: int, k_b: int, n: int, theta: float) -> tuple[float, float]:
    """Maximum-likelihood (p_a, p_b) with p_a - p_b = theta, by a fine grid search."""
    p_b = np.linspace(max(0.0, -theta), min(1.0, 1.0 - theta), 200_001)[1:-1]
    p_a = p_b + theta
    loglik = k_a * np.log(p_a) + (n - k_a) * np.log1p(-p_a)
    loglik += k_b * np.log(p_b) + (n - k_b) * np.log1p(-p_b)
    best = int(np.argmax(loglik))
    return float(p_a[best]), float(p_b[best])


def test_narrow_all_clean_items_share_one_wilson_bound() -> None:
    # 30 items at 0/10: under H0 all items move up together, so the upper limit is
    # Wilson's at 0 out of 30 * (10 - 1).
    result = narrow_interval([0] * 30, [10] * 30)
    assert result.lo == 0.0
    assert result.hi == pytest.approx(Z95**2 / (270 + Z95**2), rel=1e-9)
    mirrored = narrow_interval([10] * 30, [10] * 30)
    assert (mirrored.lo, mirrored.hi) == pytest.approx((1 - result.hi, 1.0), rel=1e-9)


def test_narrow_is_not_zero_width_when_items_are_all_or_nothing() -> None:
    # Plug-in variance is 0 here; the interval must still admit uncertainty.
    result = narrow_interval([0] * 50 + [10] * 13, [10] * 63)
    assert result.lo < result.estimate < result.hi
    assert result.hi - result.lo > 0.01


def test_constrained_rates_solve_the_stationarity_equation() -> None:
    k = np.array([0.0, 3.0, 7.0, 10.0])
    n = np.full(4, 10.0)
    for mu in (-50.0, -4.0, 0.0, 2.5, 30.0):
        p = constrained_rates(np.full(4, mu), k, n)
        interior = (p > 0) & (p < 1)
        gradient = k[interior] / p[interior] - (n - k)[interior] / (1 - p[interior])
        assert gradient == pytest.approx(np.full(interior.sum(), mu), abs=1e-8)
        # Boundary cells stay there only when the gradient at the boundary points outward.
        assert np.all((p[~interior] == 0) == (k[~interior] == 0))


def test_wide_interval_formula_on_a_small_bank() -> None:
    k, n = [0, 0, 0, 1, 5, 10], [10, 10, 10, 10, 10, 10]
    result = wide_interval(k, n)
    x = np.array(k) / np.array(n)
    mean, items = x.mean(), x.size
    size = mean * (1 - mean) / (x.var(ddof=1) / items)
    kurtosis = items * np.sum((x - mean) ** 4) / np.sum((x - mean) ** 2) ** 2
    df = min(items - 1.0, 2 * items / (kurtosis - 1))
    expected = wilson_limits(mean, min(max(size, items), 60), float(stats.t.ppf(0.975, df)))
    assert (result.lo, result.hi) == pytest.approx(expected, abs=1e-12)
    assert result.params["n_eff"] == pytest.approx(size)
    assert result.params["df"] == pytest.approx(df)


def test_wide_with_no_failures_uses_items_as_sample_size() -> None:
    result = wide_interval([0] * 63, [10] * 63)
    q = float(stats.t.ppf(0.975, 62))
    assert result.lo == 0.0
    assert result.hi == pytest.approx(q * q / (63 + q * q), rel=1e-12)
    assert result.params["n_eff"] == 63


def test_wide_with_identical_items_uses_all_draws() -> None:
    result = wide_interval([2] * 20, [10] * 20)
    assert result.params["n_eff"] == pytest.approx(200, rel=1e-12)


def test_wide_is_wider_than_narrow_when_items_differ() -> None:
    k, n = [0] * 40 + [3, 5, 8, 10] * 5, [10] * 60
    assert wide_interval(k, n).hi - wide_interval(k, n).lo > (
        narrow_interval(k, n).hi - narrow_interval(k, n).lo
    )


@settings(max_examples=60, deadline=None)
@given(volumes(min_items=2), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_intervals_contain_estimate_and_nest_by_confidence(
    counts: tuple[list[int], list[int]], confidence: float
) -> None:
    k, n = counts
    for build in (narrow_interval, wide_interval):
        result = build(k, n, confidence)
        wider = build(k, n, 0.995)
        assert 0.0 <= result.lo <= result.estimate <= result.hi <= 1.0
        assert wider.lo <= result.lo + 1e-9
        assert wider.hi >= result.hi - 1e-9
        assert result.estimate == pytest.approx(rate(k, n))


@settings(max_examples=40, deadline=None)
@given(volumes())
def test_narrow_difference_of_a_volume_with_itself_is_symmetric(
    counts: tuple[list[int], list[int]],
) -> None:
    k, n = counts
    for paired in (True, False):
        result = difference_interval(k, n, k, n, paired=paired, kind="narrow")
        assert result.estimate == 0.0
        assert result.lo == pytest.approx(-result.hi, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(volumes(min_items=2), volumes(min_items=2))
def test_difference_flips_sign_when_sides_swap(
    a: tuple[list[int], list[int]], b: tuple[list[int], list[int]]
) -> None:
    for kind in ("narrow", "wide"):
        forward = difference_interval(*a, *b, paired=False, kind=kind)  # type: ignore[arg-type]
        backward = difference_interval(*b, *a, paired=False, kind=kind)  # type: ignore[arg-type]
        assert -1.0 <= forward.lo <= forward.estimate <= forward.hi <= 1.0
        assert backward.lo == pytest.approx(-forward.hi, abs=1e-9)
        assert backward.hi == pytest.approx(-forward.lo, abs=1e-9)


def test_pairing_narrows_the_wide_difference_for_correlated_items() -> None:
    k_a = [0] * 30 + [10] * 10 + [6, 7, 8, 9, 5] * 4
    k_b = [0] * 30 + [10] * 10 + [5, 7, 6, 8, 4] * 4
    n = [10] * 60
    paired = difference_interval(k_a, n, k_b, n, paired=True, kind="wide")
    unpaired = difference_interval(k_a, n, k_b, n, paired=False, kind="wide")
    assert paired.params["correlation"] > 0.9
    assert paired.hi - paired.lo < 0.5 * (unpaired.hi - unpaired.lo)
    narrow = difference_interval(k_a, n, k_b, n, paired=True, kind="narrow")
    assert narrow == difference_interval(k_a, n, k_b, n, paired=True, kind="narrow")
    assert narrow.method == "binomial-mean-score"


@pytest.mark.parametrize(
    ("k", "n", "message"),
    [
        ([1, 2], [10], "same length"),
        ([], [], "at least 1 item"),
        ([1, 0], [10, 0], "item 1 has n=0 usable draws"),
        ([11], [10], "item 0 has k=11 fails out of n=10"),
        ([-1], [10], "need 0 <= k <= n"),
        ([0.5], [10], "whole numbers"),
        ([float("nan")], [10], "finite"),
    ],
)
def test_rate_refuses_bad_counts(k: list[float], n: list[float], message: str) -> None:
    with pytest.raises(StatsError, match=message):
        narrow_interval(k, n)


def test_wide_needs_two_items_and_paired_needs_same_items() -> None:
    with pytest.raises(StatsError, match="at least 2 item"):
        wide_interval([1], [10])
    with pytest.raises(StatsError, match="same items in the same order"):
        difference_interval([1, 2], [10, 10], [1], [10], paired=True, kind="narrow")
    with pytest.raises(StatsError, match='"narrow" or "wide"'):
        difference_interval([1], [10], [1], [10], paired=True, kind="both")  # type: ignore[arg-type]
    with pytest.raises(StatsError, match="confidence"):
        wilson(1, 10, confidence=0.0)


@pytest.mark.parametrize(("k", "n"), [(11, 10), (-1, 10), (0, 0), (1.0, 10), (True, 10)])
def test_wilson_refuses_bad_counts(k: int, n: int) -> None:
    with pytest.raises(StatsError, match="wilson: need whole numbers"):
        wilson(k, n)
