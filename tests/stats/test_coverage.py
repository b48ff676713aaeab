"""Simulated coverage of every published interval method (seeded, deterministic).

Each check runs 2,000 simulated volumes, so the Monte Carlo standard error of a coverage
near 95% is about 0.5 points and the accepted band 95 +/- 3 points is six standard errors
wide: a method that really covers 90% or 99% cannot pass by luck. The full-size tables
(more repetitions and harder scenarios) come from ``benchmarks/coverage.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.stats._arrays import Bounds, FloatArray
from tests.stats.simulate import (
    SCENARIOS,
    SHAPES,
    Coverage,
    difference_coverage,
    leniency_coverage,
    rate_coverage,
    unpooled_score,
)

REPETITIONS = 2000
BAND = (0.92, 0.98)
BY_NAME = {s.name: s for s in SCENARIOS + SHAPES}


def assert_nominal(result: Coverage) -> None:
    assert result.repetitions == REPETITIONS
    assert BAND[0] <= result.rate <= BAND[1], result
    # Misses on both sides, not one tail carrying all the error.
    assert result.below > 0 and result.above > 0, result


@pytest.mark.parametrize("scenario", ["bank-63", "uneven-draws-63"])
@pytest.mark.parametrize("kind", ["narrow", "wide"])
def test_rate_intervals_cover(scenario: str, kind: str) -> None:
    assert_nominal(rate_coverage(BY_NAME[scenario], kind, REPETITIONS, seed=20240611))  # type: ignore[arg-type]


@pytest.mark.parametrize("design", ["split-half", "drift", "two-candidates", "unpaired"])
@pytest.mark.parametrize("kind", ["narrow", "wide"])
def test_difference_intervals_cover(design: str, kind: str) -> None:
    result = difference_coverage(BY_NAME["bank-63"], design, kind, REPETITIONS, seed=7)  # type: ignore[arg-type]
    assert_nominal(result)


def assert_conservative(result: Coverage) -> None:
    """At least nominal coverage, for the single-draw bound on items that differ (where
    it is knowingly wide: the per-item variances it bounds are not estimable)."""
    assert result.repetitions == REPETITIONS
    assert result.rate >= BAND[0], result


# Protocol shapes of 1, 2, 3 and 10 draws an item (issue 14). The flat banks (every item
# alike) are where the single-draw bound is tight, so they must land in the band.
@pytest.mark.parametrize(
    ("scenario", "kind"),
    [
        ("flat-09-d1", "narrow"),
        ("flat-30-d1", "narrow"),
        ("probe-30-d2", "narrow"),
        ("flat-30-d3", "narrow"),
        ("probe-30-d3", "narrow"),
        ("flat-09-d10", "narrow"),
        ("flat-30-d1to3", "narrow"),
        ("flat-30-d1", "wide"),
        ("probe-09-d1", "wide"),
        ("probe-30-d2", "wide"),
        ("probe-30-d3", "wide"),
    ],
)
def test_rate_intervals_cover_every_draw_count(scenario: str, kind: str) -> None:
    assert_nominal(rate_coverage(BY_NAME[scenario], kind, REPETITIONS, seed=14))  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", ["probe-09-d1", "probe-30-d1", "probe-09-d1to3"])
def test_single_draw_narrow_bound_is_conservative_on_mixed_banks(scenario: str) -> None:
    assert_conservative(rate_coverage(BY_NAME[scenario], "narrow", REPETITIONS, seed=14))


@pytest.mark.parametrize(
    ("scenario", "design", "kind"),
    [
        ("flat-30-d1", "split-half", "narrow"),  # two halves of one draw each
        ("flat-30-d1", "split-half", "wide"),
        ("flat-30-d1", "drift", "narrow"),
        ("probe-30-d1", "two-candidates", "wide"),
        ("probe-30-d2", "split-half", "narrow"),
        ("probe-30-d3", "two-candidates", "narrow"),
        ("flat-30-d1to3", "unpaired", "narrow"),
    ],
)
def test_difference_intervals_cover_small_draw_counts(
    scenario: str, design: str, kind: str
) -> None:
    result = difference_coverage(BY_NAME[scenario], design, kind, REPETITIONS, seed=15)  # type: ignore[arg-type]
    assert_nominal(result)


def test_the_band_catches_the_single_draw_failure() -> None:
    # The unpooled interval covered 66-92% with one draw an item; the band must reject it.
    result = rate_coverage(
        BY_NAME["flat-30-d1"], "narrow", REPETITIONS, seed=14, method=unpooled_score
    )
    assert result.rate < BAND[0] - 0.1, result


def test_leniency_interval_covers() -> None:
    assert_nominal(leniency_coverage(150, (0.70, 0.08, 0.04, 0.18), REPETITIONS, seed=3))


def plug_in_wald(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """The rejected textbook interval: plug-in binomial variance, normal quantile."""
    x = k / n
    estimate = np.mean(x, axis=-1)
    se = np.sqrt(np.sum(x * (1 - x) / n, axis=-1)) / k.shape[-1]
    return Bounds(lo=estimate - 1.96 * se, hi=estimate + 1.96 * se)


def test_the_harness_detects_an_undercovering_method() -> None:
    # Guards against a harness that passes anything: the plug-in interval collapses on
    # an easy bank and must fall well outside the band.
    result = rate_coverage(
        BY_NAME["very-easy-103"], "narrow", REPETITIONS, seed=1, method=plug_in_wald
    )
    assert result.rate < BAND[0] - 0.03
    assert result.method == "plug_in_wald"


def test_simulation_is_deterministic_in_its_seed() -> None:
    scenario = BY_NAME["bank-63"]
    first = rate_coverage(scenario, "narrow", 200, seed=5)
    assert rate_coverage(scenario, "narrow", 200, seed=5) == first
    assert rate_coverage(scenario, "narrow", 200, seed=6).mean_width != first.mean_width
