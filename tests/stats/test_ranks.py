"""Rank ranges and tie groups."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.stats import RankRange, StatsError, rank_ranges


@st.composite
def boards(draw: st.DrawFn) -> tuple[list[float], list[float], list[float], list[str]]:
    """Candidates with estimates inside their intervals (ties and touching limits likely)."""
    count = draw(st.integers(1, 12))
    grid = st.integers(0, 40).map(lambda v: v / 40)
    estimates, lo, hi = [], [], []
    for _ in range(count):
        a, b, c = sorted(draw(st.tuples(grid, grid, grid)))
        lo.append(a)
        estimates.append(b)
        hi.append(c)
    names = [f"model-{i:02d}" for i in range(count)]
    return estimates, lo, hi, names


def by_name(result: list[RankRange]) -> dict[str, RankRange]:
    return {r.name: r for r in result}


def overlap(lo: list[float], hi: list[float], i: int, j: int) -> bool:
    return not (hi[i] < lo[j] or hi[j] < lo[i])


@settings(max_examples=150)
@given(boards(), st.randoms(use_true_random=False))
def test_invariant_under_input_permutation(board, shuffler) -> None:  # type: ignore[no-untyped-def]
    estimates, lo, hi, names = board
    order = list(range(len(names)))
    shuffler.shuffle(order)
    shuffled = rank_ranges(
        [estimates[i] for i in order],
        [lo[i] for i in order],
        [hi[i] for i in order],
        [names[i] for i in order],
    )
    assert by_name(shuffled) == by_name(rank_ranges(estimates, lo, hi, names))


@settings(max_examples=150)
@given(boards())
def test_ranges_are_consistent_with_the_intervals(board) -> None:  # type: ignore[no-untyped-def]
    estimates, lo, hi, names = board
    result = rank_ranges(estimates, lo, hi, names)
    assert [r.name for r in result] == names
    count = len(names)
    for i, r in enumerate(result):
        assert 1 <= r.best <= r.worst <= count
        for j, s in enumerate(result):
            if i == j:
                continue
            if overlap(lo, hi, i, j):
                # Never a strict order between overlapping candidates.
                assert s.best < r.worst and r.best < s.worst
                assert r.tie_group == s.tie_group
            elif hi[i] < lo[j]:
                # i is clearly better: it ranks strictly ahead at both ends, and its tie
                # group is not later (a third candidate may chain them into one group).
                assert r.best < s.best and r.worst < s.worst
                assert r.tie_group <= s.tie_group
    groups = sorted({r.tie_group for r in result})
    assert groups == list(range(1, len(groups) + 1))


@settings(max_examples=100)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=15, unique=True))
def test_disjoint_intervals_give_strict_ranks(starts: list[int]) -> None:
    lo = [s / 1000 for s in starts]
    hi = [(s + 0.5) / 1000 for s in starts]
    estimates = [(s + 0.25) / 1000 for s in starts]
    names = [f"m{s}" for s in starts]
    result = rank_ranges(estimates, lo, hi, names)
    expected = {name: rank for rank, name in enumerate(sorted(names, key=lambda n: int(n[1:])), 1)}
    for r in result:
        assert r.best == r.worst == r.tie_group == expected[r.name]


def test_worked_example() -> None:
    result = rank_ranges(
        [0.10, 0.12, 0.30, 0.31, 0.60],
        [0.05, 0.08, 0.25, 0.13, 0.50],
        [0.15, 0.16, 0.35, 0.40, 0.70],
        ["a", "b", "c", "d", "e"],
    )
    # a, b and d overlap; d also overlaps c, which chains all four into one tie group
    # even though a and b are clearly better than c.
    assert result == [
        RankRange("a", 1, 3, 1),
        RankRange("b", 1, 3, 1),
        RankRange("c", 3, 4, 1),
        RankRange("d", 1, 4, 1),
        RankRange("e", 5, 5, 2),
    ]


def test_touching_intervals_tie() -> None:
    result = rank_ranges([0.1, 0.3], [0.0, 0.2], [0.2, 0.4], ["x", "y"])
    assert [(r.best, r.worst, r.tie_group) for r in result] == [(1, 2, 1), (1, 2, 1)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0.1], [0.0], [0.2], ["a", "b"]), "must match"),
        (([0.1, 0.2], [0.0, 0.1], [0.2, 0.3], ["a", "a"]), "unique"),
        (([0.3], [0.0], [0.2], ["a"]), "outside its interval"),
        (([float("nan")], [0.0], [0.2], ["a"]), "finite"),
    ],
)
def test_refuses_bad_input(
    args: tuple[list[float], list[float], list[float], list[str]], message: str
) -> None:
    with pytest.raises(StatsError, match=message):
        rank_ranges(*args)
