"""Simulated coverage of the rank ranges' simultaneous statement (seeded, deterministic).

Small on purpose (each simulated volume runs the published Holm procedure, about a tenth
of a second); ``benchmarks/coverage.py --only-ranks`` prints the full-size table. With
150 volumes the standard error of a 95% share is under 2 points, so the 90% floor is
three of them below nominal, while comparisons without Holm's adjustment, wrong in about
half of such volumes, cannot pass by luck.
"""

from __future__ import annotations

from tests.stats.simulate_ranks import RANK_SCENARIOS, rank_coverage

BY_NAME = {s.name: s for s in RANK_SCENARIOS}


def test_no_claim_among_true_ties_at_the_familywise_level() -> None:
    holm, overlap, unadjusted = rank_coverage(BY_NAME["all-tied-6-of-63"], 150, seed=17)
    assert holm.rule == "paired-holm" and holm.repetitions == 150
    assert holm.rate >= 0.90, holm
    assert unadjusted.rate < 0.80, unadjusted  # the adjustment is what holds the statement
    assert overlap.rule == "overlap*"


def test_the_ladder_is_ordered_and_every_claim_holds() -> None:
    holm, _, _ = rank_coverage(BY_NAME["ladder-8-of-63"], 40, seed=29)
    assert holm.rate >= 0.9, holm
    assert holm.power > 0.4, holm  # most of the truly ordered pairs are claimed
