"""Rank ranges from paired comparisons with Holm's family-wise adjustment (issue 17)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.stats import (
    RankRange,
    Separation,
    StatsError,
    holm_separations,
    paired_rank_ranges,
    rank_ranges,
)
from generator.stats.differences import narrow_differences
from generator.stats.intervals import narrow_interval

Counts = tuple[list[int], list[int]]


def flat(fails: list[int], draws: int = 10) -> Counts:
    """An item list with the given fail count per item, ``draws`` draws each."""
    return fails, [draws] * len(fails)


def test_hand_made_three_candidates() -> None:
    # a and b fail alike (1 in 10 on every item); c fails 6 in 10: c is separated from
    # both, a and b from nothing.
    counts = {"a": flat([1] * 40), "b": flat([1, 2, 0, 1] * 10), "c": flat([6] * 40)}
    separated = holm_separations(counts, 0.95)
    assert [(s.better, s.worse) for s in separated] == [("a", "c"), ("b", "c")]
    assert all(s.hi < 0 and s.difference == pytest.approx(-0.5) for s in separated)
    assert paired_rank_ranges(["a", "b", "c"], separated) == [
        RankRange("a", 1, 2, None),
        RankRange("b", 1, 2, None),
        RankRange("c", 3, 3, None),
    ]


def test_paired_comparison_separates_where_the_intervals_overlap() -> None:
    # 30% against 36% on the same 60 items: the two rate intervals overlap (so the
    # overlap rule claims no order), the paired difference excludes zero.
    a = flat([3] * 60)
    b = flat([3, 4, 4, 4, 3] * 12)
    ivs = [narrow_interval(*c) for c in (a, b)]
    assert ivs[0].hi > ivs[1].lo
    overlap = rank_ranges([iv.estimate for iv in ivs], [iv.lo for iv in ivs],
                          [iv.hi for iv in ivs], ["a", "b"])  # fmt: skip
    assert [(r.best, r.worst) for r in overlap] == [(1, 2), (1, 2)]
    separated = holm_separations({"a": a, "b": b}, 0.95)
    assert [(s.better, s.worse) for s in separated] == [("a", "b")]
    assert [(r.best, r.worst) for r in paired_rank_ranges(["a", "b"], separated)] == [
        (1, 1),
        (2, 2),
    ]


def test_holm_steps_down_past_bonferroni() -> None:
    # Far apart: a and c, b and c; a and b are separated only at the second step, where
    # one pair remains and its level is the family-wise one.
    counts = {"a": flat([3] * 60), "b": flat([3, 4, 4, 4, 3] * 12), "c": flat([8] * 60)}
    sides = [(*counts[x], *counts[y]) for x, y in (("a", "b"), ("a", "c"), ("b", "c"))]
    bonferroni = narrow_differences(sides, paired=True, confidence=1 - 0.05 / 3)
    assert not bonferroni[0].hi < 0 and bonferroni[1].hi < 0 and bonferroni[2].hi < 0
    separated = {(s.better, s.worse): s for s in holm_separations(counts, 0.95)}
    assert set(separated) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert separated["a", "c"].level == pytest.approx(1 - 0.05 / 3)
    assert separated["a", "b"].level == pytest.approx(0.95)


def test_a_pair_is_compared_on_the_items_both_answered() -> None:
    # b has no usable draw of the last 20 items; the pair's difference is over 40 items.
    a = flat([2] * 40 + [9] * 20)
    b = ([8] * 40 + [0] * 20, [10] * 40 + [0] * 20)
    (only,) = holm_separations({"a": a, "b": b}, 0.95)
    assert (only.better, only.worse, only.items) == ("a", "b", 40)
    assert only.difference == pytest.approx(-0.6)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"a": flat([1] * 3), "b": flat([1] * 4)}, "same item list"),
        ({"a": ([11], [10]), "b": flat([1])}, "0 <= k <= n"),
        ({"a": flat([1]), "b": flat([1])}, None),
    ],
)
def test_refuses_bad_counts(counts: dict[str, Counts], message: str | None) -> None:
    if message is None:
        assert holm_separations(counts, 0.95) == []
        with pytest.raises(StatsError, match="confidence"):
            holm_separations(counts, 1.0)
        return
    with pytest.raises(StatsError, match=message):
        holm_separations(counts, 0.95)


def test_rank_ranges_refuse_inconsistent_separations() -> None:
    s = Separation("a", "b", -0.1, -0.05, 0.95, 10)
    with pytest.raises(StatsError, match="unique"):
        paired_rank_ranges(["a", "a"], [])
    with pytest.raises(StatsError, match="already separated"):
        paired_rank_ranges(["a", "b"], [s, Separation("b", "a", -0.1, -0.05, 0.95, 10)])
    with pytest.raises(StatsError, match="unknown"):
        paired_rank_ranges(["a", "c"], [s])


@st.composite
def volumes(draw: st.DrawFn) -> dict[str, Counts]:
    """Candidates on one bank: per-item fail counts out of a few draws (ties likely)."""
    candidates = draw(st.integers(2, 6))
    items = draw(st.integers(1, 12))
    draws = draw(st.integers(1, 5))
    fails = st.lists(st.integers(0, draws), min_size=items, max_size=items)
    return {f"m{i}": (draw(fails), [draws] * items) for i in range(candidates)}


@settings(max_examples=60, deadline=None)
@given(volumes(), st.sampled_from([0.8, 0.95]))
def test_separations_are_holm_on_the_paired_intervals(
    counts: dict[str, Counts], confidence: float
) -> None:
    separated = holm_separations(counts, confidence)
    names = sorted(counts)
    pairs = {frozenset(p) for p in itertools.combinations(names, 2)}
    claimed = {frozenset((s.better, s.worse)) for s in separated}
    assert claimed <= pairs and len(claimed) == len(separated)
    # Each claim follows the sign of its paired estimate, and its interval at the level
    # of its step is the published narrow difference there.
    for s in separated:
        (iv,) = narrow_differences(
            [(*counts[s.better], *counts[s.worse])], paired=True, confidence=s.level
        )
        assert (iv.estimate, iv.hi) == pytest.approx((s.difference, s.hi), abs=1e-9)
        assert s.hi < 0 and s.difference < 0
    # Holm never claims less than Bonferroni and never claims a pair whose interval at the
    # family-wise level itself contains zero.
    sides = [(*counts[x], *counts[y]) for x, y in itertools.combinations(names, 2)]
    at = [
        narrow_differences(sides, paired=True, confidence=level)
        for level in (1 - (1 - confidence) / len(sides), confidence)
    ]
    for (x, y), strict, loose in zip(itertools.combinations(names, 2), *at, strict=True):
        if strict.hi < 0 or strict.lo > 0:
            assert frozenset((x, y)) in claimed
        if not (loose.hi < 0 or loose.lo > 0):
            assert frozenset((x, y)) not in claimed
    ranges = paired_rank_ranges(names, separated)
    for r in ranges:
        assert 1 <= r.best <= r.worst <= len(names) and r.tie_group is None
    # A stricter family-wise level claims a subset.
    stricter = {frozenset((s.better, s.worse)) for s in holm_separations(counts, 0.99)}
    assert stricter <= claimed


@settings(max_examples=40, deadline=None)
@given(volumes(), st.randoms(use_true_random=False))
def test_invariant_under_candidate_order(counts: dict[str, Counts], shuffler) -> None:  # type: ignore[no-untyped-def]
    names = list(counts)
    shuffler.shuffle(names)
    reordered = {n: counts[n] for n in names}
    assert holm_separations(reordered, 0.95) == holm_separations(counts, 0.95)
    separated = holm_separations(counts, 0.95)
    by_name = {r.name: r for r in paired_rank_ranges(sorted(counts), separated)}
    assert {r.name: r for r in paired_rank_ranges(names, separated)} == by_name


def test_true_order_lies_in_every_range_when_the_claims_hold() -> None:
    # Every ordering of the candidates consistent with the claims (so the true order, when
    # they all hold) puts each candidate inside its range.
    rng = np.random.default_rng(7)
    base = rng.beta(0.6, 1.4, 50)
    counts = {
        f"c{i}": (list(rng.binomial(10, np.clip(base * m, 0, 1))), [10] * 50)
        for i, m in enumerate((0.7, 0.9, 1.0, 1.0, 1.4, 1.5))
    }
    separated = holm_separations(counts, 0.95)
    names = sorted(counts)
    ranges = {r.name: r for r in paired_rank_ranges(names, separated)}
    consistent = 0
    for order in itertools.permutations(names):
        place = {n: i + 1 for i, n in enumerate(order)}
        if all(place[s.better] < place[s.worse] for s in separated):
            consistent += 1
            for n in names:
                assert ranges[n].best <= place[n] <= ranges[n].worst
    assert 1 < consistent < 720 and separated
