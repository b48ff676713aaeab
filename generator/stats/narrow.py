"""Score interval for a signed mean of independent binomial proportions.

This is the engine behind every "narrow" interval (bank fixed, only draws random): a
rate is ``sum_j w_j * k_j / n_j`` with ``w_j = 1/I``, a difference of two rates uses
``+1/I_A`` for one side's items and ``-1/I_B`` for the other's.

The interval inverts a score-type test, the way Wilson's interval does for one
proportion. For a hypothesised value ``theta`` the per-cell rates are set to their
maximum-likelihood values under the constraint ``sum_j w_j p_j = theta`` (each cell
solves ``k/p - (n-k)/(1-p) = lambda * w_j`` for one common multiplier ``lambda``), and
``theta`` is inside the interval when

    (estimate - theta)**2 <= z**2 * sum_j w_j**2 * p_j * (1 - p_j) / (n_j - 1).

Why this and not a plug-in or bootstrap variance: items observed at 0/n or n/n carry no
plug-in variance, so plug-in and parametric-bootstrap intervals collapse on easy banks;
add-half smoothing over-covers when many items really are at 0. Evaluating the variance
at the constrained rates lets items seen at 0/n move up *together* as ``theta`` grows,
which is exactly the evidence they carry (like Wilson at 0/n). The ``n_j - 1`` divisor
makes the variance unbiased for heterogeneous items (the plug-in ``p(1-p)/n`` is low by
``(n-1)/n``). For a single item it is Wilson's interval with ``n - 1`` in place of ``n``.
``benchmarks/coverage.py`` shows the coverage; ``tests/stats/test_coverage.py`` checks it.

Items seen in a single draw are pooled. With one draw an item's own variance
``p_i (1 - p_i)`` cannot be estimated at all: its fraction is 0 or 1 whatever ``p_i`` is,
so per-item constrained rates sit near 0 and 1 and the variance near zero (simulated
coverage of a nominal 95% interval fell to 27-92%, ``benchmarks/RESULTS.md``). What can
be bounded is their mean: ``mean(p_i (1 - p_i)) <= pbar (1 - pbar)`` for the mean
``pbar`` of those items (the function is concave), so the single-draw items of one
weight are treated as one binomial cell of ``m`` draws (``m`` = how many they are). That
is conservative when their rates differ and exact when they are alike; with every item
at one draw the interval is Wilson's for all the draws pooled, with ``m - 1`` in place
of ``m``. Items with two or more draws keep their own cells, so banks without
single-draw items get the very same numbers as before.

Everything here is vectorised over leading axes so a simulation can evaluate thousands
of volumes in one call. The root search along ``lambda`` is ``generator.stats.crossing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special  # scipy.stats costs twice the import for its quantiles

from generator.stats._arrays import Bounds, FloatArray
from generator.stats.crossing import (
    GRID,
    MAX_SECTIONS,
    Exclusion,
    Rows,
    outermost_crossing,
    settled_rows,
)

_WORKING_SET = 1_000_000  # array elements evaluated per numpy call
_ROW_BLOCK_CELLS = 1 << 17
"""Cells (rows times cells a row) ``score_bounds_rows`` searches at once: its cell table,
distinct cells and search arrays are a few times this many elements (issue 19: a whole
volume's rates, or 4,096 candidate pairs, at once held about 100 MB of them at 600
candidates)."""


def constrained_rates(mu: FloatArray, k: FloatArray, n: FloatArray) -> FloatArray:
    """Per-cell rate ``p`` in [0, 1] solving ``k/p - (n-k)/(1-p) = mu`` (boundary if none)."""
    a = mu + n
    # mu * (4 k) is (4 mu) * k bit for bit (scaling by 4 is exact): one pass fewer over
    # the large operand, as 4 k has the cells' shape only.
    root = np.sqrt(np.maximum(a * a - mu * (4.0 * k), 0.0))
    safe_mu = np.where(mu == 0.0, 1.0, mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Two algebraically equal roots; pick the form without cancellation.
        p = np.where(a > 0.0, 2.0 * k / (a + root), (a - root) / (2.0 * safe_mu))
    # NaN (no root) counts as 0; an infinity is clipped to its end like a huge number.
    return np.clip(np.where(np.isnan(p), 0.0, p), 0.0, 1.0)


def score_bounds(k: FloatArray, n: FloatArray, weights: FloatArray, confidence: float) -> Bounds:
    """Score interval for ``sum_j w_j k_j / n_j``, vectorised over leading axes.

    Args:
        k: Fail counts, shape ``(..., J)``; whole numbers with ``0 <= k <= n``.
        n: Draw counts, same shape as ``k``; every entry at least 1.
        weights: Non-zero weight of each cell, shape ``(J,)``.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The limits, each of shape ``k.shape[:-1]``, clipped to the attainable range.
    """
    scale = float(np.max(n)) / float(np.min(np.abs(weights)))
    # Points evaluated per numpy call: many for one candidate, few for a big simulation.
    block = max(1, min(GRID.size, _WORKING_SET // max(1, k.size)))
    pooled = pool_single_draws(k, n, weights)
    return _score_bounds(k, n, weights, confidence, np.asarray(scale), _Steps(block, block), pooled)


def score_bounds_rows(
    k: FloatArray,
    n: FloatArray,
    weights: FloatArray,
    confidence: float | FloatArray,
    sides: tuple[bool, bool] = (True, True),
    excludes: Exclusion | None = None,
) -> Bounds:
    """``score_bounds`` of each row of ``k`` and ``n`` on its own, in one batch.

    Row ``i`` of the result is bit for bit ``score_bounds(k[i], n[i], weights,
    confidence)``: each row keeps its own ``lambda`` scale and the search steps a lone
    row would take, and every reduction runs along a row. It replaces one root search
    per figure by one per distinct item count (figures compute thousands of intervals).

    Args:
        k: Fail counts, shape ``(R, J)``.
        n: Draw counts, shape ``(R, J)``; every entry at least 1.
        weights: Non-zero weight of each cell, shape ``(J,)``, shared by every row.
        confidence: Two-sided confidence level in (0, 1), or one per row (``(R,)``).
        sides: Whether to search the lower and the upper limit; a limit not searched is
            returned as the estimate (each side's search is on its own, so a limit that
            is searched is the same either way: the paired comparisons only need the
            limit nearest zero).
        excludes: Only whether each searched limit excludes a value is wanted, and its
            exact value where it does (``Exclusion``); None: every limit exactly.

    Returns:
        The limits, each of shape ``(R,)``.
    """
    cells = k.shape[-1]
    per_block = max(1, _ROW_BLOCK_CELLS // max(1, cells))
    if k.ndim == 2 and k.shape[0] > per_block:
        # The rows are independent: a block at a time gives the same limits, bit for bit,
        # and holds one block's cells and search arrays instead of the whole batch's.
        scalar = np.ndim(confidence) == 0
        parts = [
            score_bounds_rows(
                k[s : s + per_block],
                n[s : s + per_block],
                weights,
                confidence if scalar else np.asarray(confidence)[s : s + per_block],
                sides,
                excludes,
            )
            for s in range(0, k.shape[0], per_block)
        ]
        return Bounds(
            lo=np.concatenate([part.lo for part in parts]),
            hi=np.concatenate([part.hi for part in parts]),
        )
    scale = np.max(n, axis=-1) / float(np.min(np.abs(weights)))
    alone = max(1, min(GRID.size, _WORKING_SET // max(1, cells)))
    block = max(1, min(GRID.size, _WORKING_SET // max(1, k.size)))
    pooled = pool_single_draws(k, n, weights)
    search = _Steps(alone, block, sides, excludes)
    return _score_bounds(k, n, weights, confidence, scale, search, pooled)


class _Steps(NamedTuple):
    """How a batch is searched: the block size a single problem would use (``alone``:
    it decides the refinement's steps), the block size to evaluate with (``block``:
    memory only), which limits, and whether only ``excludes`` is wanted of them."""

    alone: int
    block: int
    sides: tuple[bool, bool] = (True, True)
    excludes: Exclusion | None = None


@dataclass(frozen=True)
class Pooled:
    """Cells after pooling single-draw items (same shape as the input counts).

    Every single-draw item of one weight stands for the pooled cell: ``k`` and ``n`` are
    that cell's total fails and draws, and ``multiplier`` (``w_j`` times the pool's
    size, ``w_j`` elsewhere) is what ``lambda`` is scaled by. Then each of the ``m``
    copies adds ``w_j p`` to the mean and ``w_j * multiplier * p (1 - p) / (m - 1)`` to
    the variance: together, exactly one cell of weight ``m w_j`` and ``m`` draws.
    """

    k: FloatArray
    n: FloatArray
    multiplier: FloatArray


def pool_single_draws(k: FloatArray, n: FloatArray, weights: FloatArray) -> Pooled | None:
    """Pool the single-draw items of each weight, row by row; None when there are none."""
    single = n == 1.0
    if not np.any(single):
        return None
    k_out, n_out, size = k.copy(), n.copy(), np.ones_like(n)
    for weight in np.unique(weights):
        group = single & (weights == weight)
        members = np.sum(group, axis=-1, keepdims=True, dtype=np.float64)
        fails = np.sum(np.where(group, k, 0.0), axis=-1, keepdims=True)
        k_out = np.where(group, fails, k_out)
        n_out = np.where(group, members, n_out)
        size = np.where(group, members, size)
    return Pooled(k=k_out, n=n_out, multiplier=weights * size)


class _Cells:
    """The distinct ``(weight, k, n)`` cells of a batch, and where each cell of each row is.

    A cell's constrained rate and variance term depend only on its row's ``lambda`` and
    on ``(weight, k, n)``. Banks hold few distinct ones (``k`` out of 10 draws: at most 11
    per weight), so they are evaluated once per row and gathered back into the full
    ``(..., J)`` layout before every sum: the sums, and so the bounds, are bit for bit
    those of evaluating every cell.
    """

    def __init__(
        self, k: FloatArray, n: FloatArray, weights: FloatArray, pooled: Pooled | None
    ) -> None:
        rows = int(np.prod(k.shape[:-1], dtype=np.int64))
        cells = k.shape[-1]
        columns = [np.broadcast_to(weights, k.shape), k, n]
        if pooled is not None:
            columns = [columns[0], pooled.k, pooled.n, np.broadcast_to(pooled.multiplier, k.shape)]
        table = np.stack(columns, axis=-1).reshape(-1, len(columns))
        distinct, inverse = _distinct_rows(table)
        self.gathered = len(distinct) < cells
        if self.gathered:
            self.weights, self.k, self.n = distinct[:, 0], distinct[:, 1], distinct[:, 2]
            self.multiplier = distinct[:, -1] if pooled is not None else self.weights
            self.inverse = inverse.reshape(rows, cells)
            self.where = self.inverse + np.arange(rows, dtype=np.int64)[:, None] * len(distinct)
        elif pooled is not None:
            self.weights, self.k, self.n = weights, pooled.k, pooled.n
            self.multiplier = pooled.multiplier
        else:
            self.weights, self.k, self.n, self.multiplier = weights, k, n, weights
        # A lone single-draw item (a pool of one) is a cell of n = 1: p (1 - p) is then its
        # exact Bernoulli variance, so the divisor stays 1 there.
        self.divisor = np.maximum(self.n - 1.0, 1.0)

    def of_rows(self, rows: Rows) -> _RowCells:
        """The cells of the chosen rows of a ``(R, J)`` batch (distinct or per row)."""

        def chosen(values: FloatArray) -> FloatArray:
            return values[rows] if values.ndim == 2 else values  # per row, or shared

        where = None
        if self.gathered and isinstance(rows, slice):
            where = self.where
        elif self.gathered and not isinstance(rows, slice):
            where = self.inverse[rows] + np.arange(rows.size, dtype=np.int64)[:, None] * self.k.size
        return _RowCells(
            weights=chosen(self.weights),
            k=chosen(self.k),
            n=chosen(self.n),
            multiplier=chosen(self.multiplier),
            divisor=chosen(self.divisor),
            where=where,
        )


class _RowCells(NamedTuple):
    """``_Cells`` of some rows: each array per row ``(S, J)``, or shared ``(J,)``/``(D,)``."""

    weights: FloatArray
    k: FloatArray
    n: FloatArray
    multiplier: FloatArray
    divisor: FloatArray
    where: npt.NDArray[np.int64] | None
    """Where each cell of each row is among the rows' distinct cells (None: no gather)."""

    def full(self, values: FloatArray) -> FloatArray:
        """``values`` of the distinct cells, shape ``(P, S, D)``, as ``(P, S, J)``."""
        if self.where is None:
            return values
        flat = values.reshape(values.shape[0], -1)
        return np.asarray(np.take(flat, self.where, axis=1), dtype=np.float64)


def _distinct_rows(table: FloatArray) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """``np.unique(table, axis=0, return_inverse=True)``, from one sort per column.

    Each row becomes one integer, its columns' ranks among their own distinct values
    combined in column order, so the integers sort as the rows do: the distinct rows
    come out in the same order, with the same inverse. ``np.unique`` over rows sorts a
    structured view, about twenty times slower at 360,000 rows (the paired comparisons of
    60 candidates). Falls back to it when the combined ranks could overflow.
    """
    codes = np.zeros(table.shape[0], dtype=np.int64)
    span = 1
    for column in table.T:
        values, ranks = np.unique(column, return_inverse=True)
        span *= len(values)
        if span >= 1 << 62:
            found, back = np.unique(table, axis=0, return_inverse=True)
            return found, np.asarray(back, dtype=np.int64).reshape(-1)
        codes = codes * len(values) + ranks.reshape(-1)
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return table[first], np.asarray(inverse, dtype=np.int64).reshape(-1)


def _score_bounds(
    k: FloatArray,
    n: FloatArray,
    weights: FloatArray,
    confidence: float | FloatArray,
    scale: FloatArray,
    steps: _Steps,
    pooled: Pooled | None = None,
) -> Bounds:
    """``score_bounds`` with the lambda ``scale`` given (a scalar, or one per row), how
    to search (``_Steps``) and the pooled cells, if any."""
    shape, cells = k.shape[:-1], k.shape[-1]
    k, n = k.reshape(-1, cells), n.reshape(-1, cells)  # one row per problem
    if pooled is not None:
        multiplier = np.broadcast_to(pooled.multiplier, (*shape, cells)).reshape(-1, cells)
        pooled = Pooled(pooled.k.reshape(-1, cells), pooled.n.reshape(-1, cells), multiplier)
    scale = np.broadcast_to(np.asarray(scale), shape).reshape(-1)
    z2 = _z_squared(confidence)
    estimate = np.sum(weights * k / n, axis=-1)
    floor = float(np.sum(weights[weights < 0.0]))
    ceiling = float(np.sum(weights[weights > 0.0]))
    search = _Search(_Cells(k, n, weights, pooled), estimate, scale, z2)
    cell_k, cell_n = (k, n) if pooled is None else (pooled.k, pooled.n)
    multiplier = weights if pooled is None else pooled.multiplier
    theta = partial(_theta, scale, weights, multiplier, cell_k, cell_n)
    sections = MAX_SECTIONS if steps.alone >= MAX_SECTIONS else 1
    limits = []
    for (side, limit), wanted in zip(((1.0, floor), (-1.0, ceiling)), steps.sides, strict=True):
        if not wanted:
            limits.append(estimate)
            continue
        settled = None
        if steps.excludes is not None:
            settled = partial(settled_rows, partial(theta, side), side, steps.excludes)
        log_lam, unbounded = outermost_crossing(
            partial(search.outside, side=side),
            (estimate.size, cells),
            steps.block,
            sections,
            settled,
        )
        limits.append(np.where(unbounded, limit, theta(side, log_lam)))
    lo = np.clip(np.minimum(limits[0], estimate), floor, ceiling).reshape(shape)[()]
    hi = np.clip(np.maximum(limits[1], estimate), floor, ceiling).reshape(shape)[()]
    return Bounds(lo=lo, hi=hi)


def _z_squared(confidence: float | FloatArray) -> float | FloatArray:
    """The squared critical value of a level, or of each row's (the same ufunc either
    way, so a row's value is the one its level alone gives)."""
    if np.ndim(confidence) == 0:
        z = float(special.ndtri(0.5 + float(confidence) / 2.0))  # scipy.stats.norm.ppf
        return z * z
    z_rows = special.ndtri(0.5 + np.asarray(confidence, dtype=np.float64) / 2.0)
    return np.asarray(z_rows * z_rows, dtype=np.float64)


def _theta(
    scale: FloatArray,
    weights: FloatArray,
    multiplier: FloatArray,
    k: FloatArray,
    n: FloatArray,
    side: float,
    log_lam: FloatArray,
    rows: Rows = slice(None),
) -> FloatArray:
    """The signed mean of the constrained rates at ``log_lam`` of the chosen rows (one
    value each): a limit."""
    lam = side * scale[rows][:, None] * np.exp(log_lam)[:, None]
    chosen = multiplier[rows] if multiplier.ndim == 2 else multiplier  # per row, or shared
    cell_rates = constrained_rates(lam * chosen, k[rows], n[rows])
    return np.asarray(np.sum(weights * cell_rates, axis=-1))


@dataclass(frozen=True)
class _Search:
    """What decides whether a hypothesised ``lambda`` lies outside the interval."""

    cells: _Cells
    estimate: FloatArray
    scale: FloatArray
    z2: float | FloatArray
    """The squared critical value, or one per row."""

    def outside(self, log_lam: FloatArray, rows: Rows, side: float) -> npt.NDArray[np.bool_]:
        """Whether each point ``log_lam`` (shape ``(P, S)``) of the chosen rows is outside."""
        cells = self.cells.of_rows(rows)
        lam = side * self.scale[rows][:, None] * np.exp(log_lam)[..., None]
        p = constrained_rates(lam * cells.multiplier, cells.k, cells.n)
        terms = cells.weights * cells.multiplier * p * (1.0 - p) / cells.divisor
        variance = np.sum(cells.full(terms), axis=-1)
        gap = self.estimate[rows] - np.sum(cells.full(cells.weights * p), axis=-1)
        z2 = self.z2 if isinstance(self.z2, float) else self.z2[rows]
        return np.asarray(gap * gap > z2 * variance)
