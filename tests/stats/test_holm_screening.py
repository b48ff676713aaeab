"""``holm_separations`` searches only the limit on zero's side and stops evaluating the
pairs that cannot be separated at any step (issue 19): it must decide exactly as the
plain procedure does, every field bit for bit, on synthetic and simulated volumes."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.stats import Separation, holm_separations
from tests.stats.holm_reference import plain_holm

Counts = tuple[list[int], list[int]]


@st.composite
def volumes(draw: st.DrawFn) -> dict[str, Counts]:
    """Candidates on one bank, some items unanswered by some (ties and gaps likely)."""
    candidates = draw(st.integers(2, 7))
    items = draw(st.integers(1, 14))
    draws = draw(st.integers(1, 6))
    out: dict[str, Counts] = {}
    for i in range(candidates):
        n = draw(st.lists(st.integers(0, draws), min_size=items, max_size=items))
        k = [draw(st.integers(0, m)) for m in n]
        out[f"m{i}"] = (k, n)
    return out


def _same(counts: dict[str, Counts], confidence: float) -> int:
    found = [astuple(s) for s in holm_separations(counts, confidence)]
    assert found == plain_holm(counts, confidence)
    return len(found)


@settings(max_examples=80, deadline=None)
@given(volumes(), st.sampled_from([0.5, 0.8, 0.95, 0.99]))
def test_same_separations_as_the_plain_procedure(
    counts: dict[str, Counts], confidence: float
) -> None:
    _same(counts, confidence)


def test_same_separations_on_a_spread_of_candidates() -> None:
    """A leaderboard like the demo's: 24 candidates, 103 items, 10 draws, rates spread
    from 5% to 60% with item difficulty, so that Holm takes several steps."""
    rng = np.random.default_rng(19)
    difficulty = rng.normal(0.0, 1.0, 103)
    counts: dict[str, Counts] = {}
    for i, level in enumerate(np.linspace(-2.5, 0.4, 24)):
        p = 1.0 / (1.0 + np.exp(-(level + difficulty)))
        n = np.full(103, 10)
        n[rng.integers(0, 103, 3)] = 9
        counts[f"c{i:02d}"] = (list(rng.binomial(n, p)), list(n))
    assert _same(counts, 0.95) > 0


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 400),
    st.integers(1, 4),
    st.integers(1, 7),
    st.sampled_from([1.0, 3.0, 103.0]),
    st.integers(0, 2**32 - 1),
)
def test_distinct_rows_is_unique_over_rows(
    rows: int, columns: int, values: int, divisor: float, seed: int
) -> None:
    """The cells' fast distinct rows are ``np.unique(axis=0)``'s: same rows, order, inverse."""
    from generator.stats.narrow import _distinct_rows

    rng = np.random.default_rng(seed)
    table = rng.integers(-values, values + 1, (rows, columns)).astype(np.float64) / divisor
    expected, back = np.unique(table, axis=0, return_inverse=True)
    found, inverse = _distinct_rows(table)
    assert np.array_equal(found, expected)
    assert np.array_equal(inverse, np.asarray(back).reshape(-1))


def test_same_separations_on_the_example_volumes(
    example_src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counts the figures pass on the example's volumes (real bundles, baselines and
    unanswered items included) decide the same pairs both ways."""
    from generator import figures
    from generator.figures import across
    from generator.store import Layout

    seen: list[tuple[dict[str, Counts], float]] = []

    def spy(counts: dict[str, Counts], confidence: float) -> list[Separation]:
        seen.append((counts, confidence))
        return holm_separations(counts, confidence)

    monkeypatch.setattr(across, "holm_separations", spy)
    layout = Layout.at(example_src, example_src / ".private", cache=False)
    for volume in layout.volume_ids():
        figures.compute(layout, volume)
    assert seen
    assert sum(_same(counts, confidence) for counts, confidence in seen) > 0
