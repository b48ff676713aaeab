"""Simulated coverage of the mean-score intervals of rubric items (seeded, deterministic).

1,000 simulated volumes a check: the Monte Carlo standard error of a coverage near 95% is
about 0.7 points, so the band 95 +/- 3 points is over four standard errors wide. The
full table (every scenario, more repetitions) comes from ``benchmarks/coverage.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.stats.intervals import narrow_interval, wide_interval
from generator.stats.scores import ItemScores, dispersion, score_intervals
from tests.stats.simulate_scores import SCORE_SCENARIOS, score_coverage

REPETITIONS = 1000
BAND = (0.92, 0.98)
BY_NAME = {s.name: s for s in SCORE_SCENARIOS}


@pytest.mark.parametrize("scenario", ["rubric-40", "rubric-unsafe-40"])
@pytest.mark.parametrize("kind", ["narrow", "wide"])
def test_score_intervals_cover(scenario: str, kind: str) -> None:
    result = score_coverage(BY_NAME[scenario], kind, REPETITIONS, seed=20261201)  # type: ignore[arg-type]
    assert result.repetitions == REPETITIONS
    assert BAND[0] <= result.rate <= BAND[1], result
    assert result.below > 0 and result.above > 0, result


def test_single_draws_are_conservative() -> None:
    # One draw an item: no within-item spread to learn from, so the Bernoulli bound.
    result = score_coverage(BY_NAME["rubric-40-d1"], "narrow", REPETITIONS, seed=5)
    assert result.rate >= BAND[0], result


def test_zero_one_scores_are_the_failure_rate_method() -> None:
    # Scores that are all 0 or 1 are binomial: dispersion 1, the rate's own intervals.
    k = np.array([0, 3, 10, 7, 1], dtype=float)
    n = np.array([10, 10, 10, 8, 9], dtype=float)
    assert float(dispersion(k, k, n)) == 1.0
    low, high = score_intervals([ItemScores(k, k, n)])[0]
    rate_low, rate_high = narrow_interval(k, n), wide_interval(k, n)
    assert (low.lo, low.hi) == pytest.approx((rate_low.lo, rate_low.hi), abs=1e-12)
    assert high is not None
    assert (high.lo, high.hi) == pytest.approx((rate_high.lo, rate_high.hi), abs=1e-12)


def test_constant_draws_keep_a_width() -> None:
    # Every draw scores 0.8: the dispersion is small but the interval is not a point.
    n = np.full(30, 10.0)
    low, _ = score_intervals([ItemScores(n * 0.8, n * 0.64, n)])[0]
    assert low.lo < 0.8 < low.hi
    # W = 0 and B = 300 draws x 0.8 x 0.2 = 48: phi = (0 + 1) / (48 + 1).
    assert float(low.params["dispersion"]) == pytest.approx(1 / 49)


def test_out_of_range_sums_are_refused() -> None:
    from generator.stats.errors import StatsError

    with pytest.raises(StatsError, match="draw scores lie in"):
        score_intervals([ItemScores([11.0], [11.0], [10.0])])
