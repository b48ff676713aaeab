"""Batched intervals give, bit for bit, what one call per interval gives.

Figures compute thousands of narrow and wide intervals in a few batched calls
(``narrow.score_bounds_rows``, ``narrow_intervals``, ``wide_intervals``,
``narrow_differences``); the registry's bytes must not depend on that.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.stats import narrow, paired
from generator.stats.agreement import leniencies
from generator.stats.crossing import Exclusion
from generator.stats.differences import difference_interval, narrow_differences
from generator.stats.gap import _cells as gap_cells
from generator.stats.gap import contamination_gaps, stratum
from generator.stats.intervals import (
    Interval,
    narrow_interval,
    narrow_intervals,
    wide_interval,
    wide_intervals,
    wilson,
    wilson_intervals,
)
from generator.stats.scores import ItemScores, narrow_score_bounds, score_intervals
from tests.stats.one_row import contamination_gap


def _exact(iv: Interval) -> tuple[object, ...]:
    """Every field, floats as hex: equal only when bit for bit equal (-0.0 too)."""

    def bits(x: object) -> object:
        return float(x).hex() if isinstance(x, float) else x

    return (
        bits(iv.estimate),
        bits(iv.lo),
        bits(iv.hi),
        iv.method,
        iv.confidence,
        tuple(sorted((k, bits(v)) for k, v in iv.params.items())),
    )


def _counts(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Fail counts of one candidate: mostly 10 draws an item, sometimes fewer."""
    n = np.full(size, 10) if rng.random() < 0.6 else rng.integers(1, 11, size=size)
    k = rng.binomial(n, rng.random() ** 3)
    if rng.random() < 0.15:
        k[:] = 0
    return k, n


def _random_rows(
    rng: np.random.Generator, max_rows: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fail and draw counts of up to ``max_rows`` rows of up to 89 cells, and weights: a
    mean of all cells, or (at a random split) a difference of two means."""
    cells, rows = int(rng.integers(1, 90)), int(rng.integers(1, max_rows))
    n = rng.integers(1, 11, size=(rows, cells)).astype(float)
    k = rng.binomial(n.astype(int), rng.random((rows, 1)) ** 2).astype(float)
    split = int(rng.integers(0, cells))
    weights = np.full(cells, 1.0 / cells)
    if split:
        weights = np.concatenate(
            [np.full(split, 1.0 / split), np.full(cells - split, -1.0 / (cells - split))]
        )
    return k, n, weights


@pytest.mark.parametrize("seed", range(4))
def test_score_bounds_rows_equal_one_call_per_row(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(6):
        k, n, weights = _random_rows(rng, 12)
        batch = narrow.score_bounds_rows(k, n, weights, 0.95)
        for row in range(k.shape[0]):
            alone = narrow.score_bounds(k[row], n[row], weights, 0.95)
            assert float(batch.lo[row]).hex() == float(alone.lo).hex()
            assert float(batch.hi[row]).hex() == float(alone.hi).hex()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("exact", [True, False])
def test_limits_wanted_only_where_they_exclude_a_value(seed: int, exact: bool) -> None:
    """``score_bounds_rows`` with ``excludes`` decides for every row as the full search
    does whether its limit excludes the value (values on both sides, near the limits
    too), and gives the full search's limit bit for bit where it does (with ``exact``)."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(6):
        k, n, weights = _random_rows(rng, 40)
        level = float(rng.choice([0.5, 0.95, 0.99995]))
        full = narrow.score_bounds_rows(k, n, weights, level)
        near = [float(full.lo[0]), float(full.hi[-1]), float(np.median(full.lo))]
        for value in [0.0, -0.3, 0.3, *near]:
            for side, limits, beyond in (
                ((True, False), full.lo, full.lo > value),
                ((False, True), full.hi, full.hi < value),
            ):
                wanted = Exclusion(value, exact)
                found = narrow.score_bounds_rows(k, n, weights, level, side, wanted)
                limit = found.lo if side[0] else found.hi
                assert np.array_equal(limit > value if side[0] else limit < value, beyond)
                if exact:
                    assert [x.hex() for x in limit[beyond]] == [x.hex() for x in limits[beyond]]


def test_distinct_cells_do_not_change_the_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Evaluating distinct (weight, k, n) cells once is the same as every cell."""
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(12):
        cells = int(rng.integers(2, 120))
        k, n = _counts(rng, cells)
        cases.append((k.astype(float), n.astype(float), np.full(cells, 1.0 / cells)))
    gathered = [narrow.score_bounds(*case, 0.9) for case in cases]
    original = narrow._Cells.__init__

    def every_cell(
        self: narrow._Cells,
        k: np.ndarray,
        n: np.ndarray,
        w: np.ndarray,
        pooled: narrow.Pooled | None,
    ) -> None:
        original(self, k, n, w, pooled)
        self.gathered = False
        self.weights, self.k, self.n, self.multiplier = w, k, n, w
        if pooled is not None:  # single-draw items stand for their pooled cell
            self.k, self.n, self.multiplier = pooled.k, pooled.n, pooled.multiplier
        self.divisor = np.maximum(self.n - 1.0, 1.0)

    monkeypatch.setattr(narrow._Cells, "__init__", every_cell)
    for case, bounds in zip(cases, gathered, strict=True):
        direct = narrow.score_bounds(*case, 0.9)
        assert float(direct.lo).hex() == float(bounds.lo).hex()
        assert float(direct.hi).hex() == float(bounds.hi).hex()


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_batched_rates_equal_one_call_each(confidence: float) -> None:
    rng = np.random.default_rng(11)
    counts = [_counts(rng, int(rng.choice([2, 3, 8, 8, 40, 103]))) for _ in range(60)]
    assert [_exact(iv) for iv in narrow_intervals(counts, confidence)] == [
        _exact(narrow_interval(k, n, confidence)) for k, n in counts
    ]
    assert [_exact(iv) for iv in wide_intervals(counts, confidence)] == [
        _exact(wide_interval(k, n, confidence)) for k, n in counts
    ]


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_batched_scores_equal_one_call_each(confidence: float) -> None:
    """Mean scores of many candidates (each with its own dispersion, so its own level)
    searched in one batch per item count give each one's narrow bounds bit for bit."""
    rng = np.random.default_rng(23)
    entries = []
    for _ in range(40):
        items = int(rng.choice([1, 2, 5, 5, 12]))
        n = rng.integers(1, 6, size=items).astype(float)
        draws = [rng.choice([0.0, 0.8, 1.0, float(rng.random())], size=int(m)) for m in n]
        entries.append(
            ItemScores(
                np.array([d.sum() for d in draws]), np.array([(d * d).sum() for d in draws]), n
            )
        )
    batch = score_intervals(entries, confidence)
    for entry, (low, high) in zip(entries, batch, strict=True):
        (alone_low, alone_high), *_ = score_intervals([entry], confidence)
        lo, hi, phi = narrow_score_bounds(
            np.asarray(entry.s), np.asarray(entry.ss), np.asarray(entry.n), confidence
        )
        assert _exact(low) == _exact(alone_low)
        assert (float(low.lo).hex(), float(low.hi).hex()) == (lo.hex(), hi.hex())
        assert low.params["dispersion"] == phi
        assert (high is None) == (alone_high is None)
        if high is not None and alone_high is not None:
            assert _exact(high) == _exact(alone_high)
    assert len({iv.params["dispersion"] for iv, _ in batch}) > 5  # levels differ by row


def test_batched_split_halves_equal_one_call_each() -> None:
    rng = np.random.default_rng(3)
    sides = []
    for _ in range(30):
        size = int(rng.choice([1, 5, 50]))
        (k_a, n_a), (k_b, n_b) = _counts(rng, size), _counts(rng, size)
        sides.append((k_a, n_a, k_b, n_b))
    batched = narrow_differences(sides, paired=True, confidence=0.95)
    single = [difference_interval(*s, paired=True, kind="narrow") for s in sides]
    assert [_exact(iv) for iv in batched] == [_exact(iv) for iv in single]


def test_batched_gaps_equal_the_score_bounds_of_each() -> None:
    """Candidates with the same strata share a search; each gap keeps its own limits."""
    rng = np.random.default_rng(5)
    each = []
    for _ in range(24):
        sizes = [(2, 3), (1, 4)] if rng.random() < 0.7 else [(3, 3)]
        each.append(
            [
                stratum(f"c{i}", *_counts(rng, held), *_counts(rng, public))
                for i, (held, public) in enumerate(sizes)
            ]
        )
    for strata, gap in zip(each, contamination_gaps(each, 0.9), strict=True):
        k, n, weights = gap_cells(strata)
        alone = narrow.score_bounds(k, n, weights, 0.9)
        assert (gap.narrow.lo, gap.narrow.hi) == (float(alone.lo), float(alone.hi))
        assert _exact(gap.narrow) == _exact(contamination_gap(strata, 0.9).narrow)


def test_batched_wilson_equals_one_call_each() -> None:
    rng = np.random.default_rng(9)
    counts = []
    for _ in range(200):
        n = int(rng.integers(1, 200))
        counts.append((int(rng.choice([0, n, rng.integers(0, n + 1)])), n))
    assert [_exact(iv) for iv in wilson_intervals(counts, 0.9)] == [
        _exact(wilson(k, n, 0.9)) for k, n in counts
    ]
    with pytest.raises(Exception, match="got k=3, n=2"):
        wilson_intervals([(1, 2), (3, 2)])


def test_batched_leniencies_equal_tango_bounds_of_each() -> None:
    rng = np.random.default_rng(13)
    samples = []
    for _ in range(40):
        size = int(rng.integers(1, 120))
        grader = rng.random(size) < rng.random()
        samples.append((grader, np.where(rng.random(size) < 0.2, ~grader, grader)))
    for (grader, majority), found in zip(samples, leniencies(samples, 0.9), strict=True):
        total = np.asarray(float(grader.size))
        n12 = np.asarray(float(np.sum(grader & ~majority)))
        n21 = np.asarray(float(np.sum(~grader & majority)))
        alone = paired.tango_bounds(n12, n21, total, 0.9)
        assert (found.lo, found.hi) == (100.0 * float(alone.lo), 100.0 * float(alone.hi))
        assert found.points == 100.0 * float((n12 - n21) / total)
    with pytest.raises(Exception, match="at least one draw"):
        leniencies([([True], [False]), ([], [])])


def test_batched_calls_check_their_inputs_like_single_calls() -> None:
    with pytest.raises(Exception, match="needs at least 2 item"):
        wide_intervals([([1, 2], [10, 10]), ([1], [10])])
    with pytest.raises(Exception, match="paired sides must list the same items"):
        narrow_differences([([1, 2], [5, 5], [1], [5])], paired=True)
    assert narrow_intervals([]) == []


@pytest.mark.parametrize("seed", range(3))
def test_score_bounds_rows_a_block_at_a_time_equal_one_batch(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19: a large batch is searched a block of rows at a time (memory); the limits
    are those of the whole batch in one search, bit for bit, in row order."""
    rng = np.random.default_rng(100 + seed)
    cells, rows = int(rng.integers(2, 40)), int(rng.integers(20, 60))
    n = rng.integers(1, 11, size=(rows, cells)).astype(float)
    k = rng.binomial(n.astype(int), rng.random((rows, 1)) ** 2).astype(float)
    weights = np.concatenate([np.full(cells - 1, 1.0 / (cells - 1)), [-1.0]])
    sides = [(True, True), (False, True), (True, False)][seed]
    # One level for all rows, one level per row (rubric scores), and a search that only
    # asks whether each limit excludes zero (the paired ranks): each is cut into blocks.
    levels = rng.choice([0.5, 0.9, 0.99], size=rows)
    wanted = Exclusion(0.0, exact=bool(seed % 2))
    calls = [(0.9, None), (levels, None), (0.9, wanted)]
    whole = [narrow.score_bounds_rows(k, n, weights, c, sides, e) for c, e in calls]
    monkeypatch.setattr(narrow, "_ROW_BLOCK_CELLS", cells * int(rng.integers(1, 7)))
    for (confidence, excludes), one in zip(calls, whole, strict=True):
        blocks = narrow.score_bounds_rows(k, n, weights, confidence, sides, excludes)
        assert [float(x).hex() for x in blocks.lo] == [float(x).hex() for x in one.lo]
        assert [float(x).hex() for x in blocks.hi] == [float(x).hex() for x in one.hi]
        assert blocks.lo.shape == blocks.hi.shape == (rows,)
