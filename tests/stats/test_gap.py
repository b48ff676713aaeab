"""The contamination gap (``generator.stats.gap``): its estimate, its narrow interval (the
project's score engine with stratified weights) and the simulated coverage of its wide
interval under a contamination-free random split of public and held-out items."""

from __future__ import annotations

import numpy as np
import pytest

from generator.stats import StatsError
from generator.stats.differences import difference_interval
from generator.stats.gap import Stratum, pooled_t, stratum
from tests.stats.one_row import contamination_gap

REPETITIONS = 1000
BAND = (0.92, 0.98)


def _two_strata() -> list[Stratum]:
    return [
        stratum("a", [6, 4], [10, 10], [1, 0, 2], [10, 10, 10]),
        stratum("b", [3], [10], [0, 1, 0, 0, 2], [10, 10, 10, 10, 10]),
    ]


def test_estimate_is_the_category_weighted_held_out_minus_public_rate() -> None:
    gap = contamination_gap(_two_strata())
    # Stratum a: 5 of 11 items, held out 0.5, public 0.1; stratum b: 6 of 11, 0.3 and 0.06.
    held = 5 / 11 * 0.5 + 6 / 11 * 0.3
    public = 5 / 11 * 0.1 + 6 / 11 * 0.06
    assert gap.heldout_rate == pytest.approx(held)
    assert gap.public_rate == pytest.approx(public)
    assert gap.estimate == pytest.approx(held - public)
    assert (gap.heldout_items, gap.public_items, gap.categories) == (3, 8, ("a", "b"))
    assert gap.narrow.lo < gap.estimate < gap.narrow.hi
    assert gap.wide is not None and gap.wide.lo <= gap.narrow.lo and gap.wide.hi >= gap.narrow.hi


def test_one_stratum_narrow_interval_is_the_unpaired_difference_of_the_engine() -> None:
    k_h, n_h, k_p, n_p = [7, 5, 9], [10, 10, 10], [2, 0, 1, 3], [10, 10, 10, 10]
    gap = contamination_gap([stratum("x", k_h, n_h, k_p, n_p)])
    same = difference_interval(k_h, n_h, k_p, n_p, paired=False, kind="narrow")
    assert (gap.narrow.estimate, gap.narrow.lo, gap.narrow.hi) == pytest.approx(
        (same.estimate, same.lo, same.hi), abs=1e-12
    )
    assert gap.narrow.method == "stratified-binomial-mean-score"


def test_a_model_that_fails_only_held_out_items_shows_a_gap_excluding_zero() -> None:
    strata = [stratum(c, [8, 9, 7], [10] * 3, [0, 1, 0], [10] * 3) for c in "abcd"]
    gap = contamination_gap(strata)
    assert gap.estimate == pytest.approx(0.8 - 1 / 30)
    assert gap.narrow.lo > 0 and gap.wide is not None and gap.wide.lo > 0


def test_the_wide_interval_is_absent_without_degrees_of_freedom() -> None:
    # One item a side: N - 2C = 0, no within-category variance to learn from.
    gap = contamination_gap([stratum("a", [3], [10], [1], [10])])
    assert gap.wide is None
    assert pooled_t([stratum("a", [3], [10], [1], [10])], 0.95) is None


def test_items_all_at_zero_keep_the_draw_noise() -> None:
    gap = contamination_gap([stratum("a", [0, 0], [10, 10], [0, 0, 0], [10, 10, 10])])
    assert gap.estimate == 0
    assert gap.wide is not None and gap.wide.lo < 0 < gap.wide.hi  # not a point
    assert gap.wide.params["widened_to_narrow"] == 1


def test_refusals() -> None:
    with pytest.raises(StatsError, match="needs a category with public and held-out items"):
        contamination_gap([])
    with pytest.raises(StatsError, match=r"contamination gap \(a, held out\): needs at least 1"):
        stratum("a", [], [], [1], [10])
    with pytest.raises(StatsError, match="confidence"):
        contamination_gap(_two_strata(), 1.5)


@pytest.mark.parametrize(
    ("categories", "public", "heldout"),
    [(13, 3, 2), (4, 10, 8)],
)
def test_wide_interval_covers_zero_under_a_random_split(
    categories: int, public: int, heldout: int
) -> None:
    """Items of a category drawn from one population, split at random: the population gap
    is 0, and the pooled t limits (before widening, which only adds) cover it near 95%."""
    rng = np.random.default_rng(20261201 + categories + public)
    inside = below = above = 0
    size = public + heldout
    for _ in range(REPETITIONS):
        strata = []
        for c in range(categories):
            mean = rng.beta(1.0, 2.0)
            p = rng.beta(2.0 * mean + 0.1, 2.0 * (1.0 - mean) + 0.1, size=size)
            k, n = rng.binomial(10, p), np.full(size, 10)
            strata.append(stratum(str(c), k[:heldout], n[:heldout], k[heldout:], n[heldout:]))
        found = pooled_t(strata, 0.95)
        assert found is not None
        if found.hi < 0:
            below += 1
        elif found.lo > 0:
            above += 1
        else:
            inside += 1
    assert BAND[0] <= inside / REPETITIONS <= BAND[1], (inside, below, above)
    assert below > 0 and above > 0
