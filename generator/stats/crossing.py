"""The root search of the narrow interval (``generator.stats.narrow``): where, along
log-lambda, a row's hypothesised value leaves the interval.

Each row is searched on its own (the rows of a batch only share numpy calls): a fixed
grid brackets the outermost inside-to-outside change, and the bracket is cut into
sections until negligibly small. A caller that only needs to know whether a limit
excludes a value (``Exclusion``) has the rows that cannot, or must, exclude it left
unrefined as soon as their bracket shows it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from generator.stats._arrays import FloatArray

# log-|lambda| grid, relative to the scale max(n)/min|w|: wide enough that at its ends every
# cell sits within 1e-9 of its limit, fine enough that a grid step rarely hides two roots.
GRID = np.linspace(-16.0, 24.0, 54)
_PRECISION_BITS = 42  # a grid step is 0.75 in log-lambda; 2**-42 of it is far below 1e-12
MAX_SECTIONS = 15
# Cell values a search call evaluates at least (when there are that many): below it numpy's
# per-call overhead dominates; above it, points beyond a row's answer are wasted work.
_SMALLEST_CALL = 100_000


Rows = npt.NDArray[np.intp] | slice
"""Rows of a batch still searched: their positions, or ``slice(None)`` for all of them."""


@dataclass(frozen=True)
class Exclusion:
    """What a caller of ``score_bounds_rows`` wants of each searched limit: whether the
    interval excludes ``value`` (the lower limit above it, the upper one below it), and,
    with ``exact``, the exact limit where it does.

    The limit's search first brackets the answer on the grid, then refines the bracket.
    ``theta`` is monotone in ``lambda`` (each cell's constrained rate is), so when the
    rate at the bracket's inner end is already on the far side of ``value`` the
    interval cannot exclude it, and (without ``exact``) when the rate at its outer end is
    already past ``value`` it must: such a row is not refined, and its limit is the
    inner end's, a stand-in on the same side of ``value`` (compared with ``value`` it
    decides as the refined limit would, after the same clipping). A row within
    ``SETTLED_MARGIN`` of ``value`` at the bracket's end is refined; every refined
    limit is bit for bit what the full search gives (the rows are independent).
    """

    value: float
    exact: bool


SETTLED_MARGIN = 1e-9
"""How far past ``value`` a bracket's end must be to settle a row (``Exclusion``): far
above the rounding of a sum of a few hundred cells' rates."""


def settled_rows(
    theta: Callable[[FloatArray, Rows], FloatArray],
    side: float,
    excludes: Exclusion,
    left: FloatArray,
    right: FloatArray,
    rows: npt.NDArray[np.intp],
) -> npt.NDArray[np.bool_]:
    """Which of ``rows`` of a one-sided search need no more refinement (``Exclusion``);
    ``left`` and ``right``: their brackets, ``theta``: the limit at a log-lambda."""
    # side 1 (lower limit): theta falls as log-lambda grows, so the refined limit lies
    # between theta(right) and theta(left); side -1 (upper limit): it rises.
    value = excludes.value * side
    done = theta(left, rows) * side < value - SETTLED_MARGIN  # cannot exclude the value
    if not excludes.exact:
        done |= theta(right, rows) * side > value + SETTLED_MARGIN  # must exclude it
    return np.asarray(done)


_IsOutside = Callable[[FloatArray, "Rows"], npt.NDArray[np.bool_]]
_IsSettled = Callable[[FloatArray, FloatArray, npt.NDArray[np.intp]], npt.NDArray[np.bool_]]


def outermost_crossing(
    is_outside: _IsOutside,
    shape: tuple[int, int],
    block: int,
    sections: int,
    settled: _IsSettled | None = None,
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Largest log-lambda still inside the interval, and where the grid never left it.

    The grid brackets the outermost inside-to-outside change; the bracket is then cut into
    sections (plain bisection for big batches, where each evaluation is costly) and the
    section holding the last change is kept until it is negligibly small. ``shape``: rows
    and cells of the batch; ``block``: points evaluated per call for all of its rows;
    ``settled``: which rows need no more refinement, asked before every cut (a row's
    answer is then its bracket's left end; ``Exclusion``); a row the grid never left
    is one of them (its limit is the attainable end, whatever its bracket).
    """
    rows, cells = shape
    grid = np.broadcast_to(GRID[:, None], (GRID.size, rows))
    last = _last_inside(is_outside, grid, block * rows, cells)
    left = np.where(last >= 0, GRID[np.maximum(last, 0)], GRID[0] - 40.0)
    right = GRID[np.minimum(last + 1, GRID.size - 1)]
    unbounded = np.asarray(last == GRID.size - 1)
    chosen: Rows = slice(None) if settled is None else np.flatnonzero(~unbounded)
    left = _Cut(is_outside, block, cells, sections, settled).refined(left, right, chosen)
    return left, unbounded


@dataclass(frozen=True)
class _Cut:
    """The refinement of ``outermost_crossing``'s brackets."""

    is_outside: _IsOutside
    block: int
    cells: int
    sections: int
    settled: _IsSettled | None = None

    def refined(self, left: FloatArray, right: FloatArray, chosen: Rows) -> FloatArray:
        """Each row's bracket ``[left, right]`` cut into ``sections`` until negligibly
        small, keeping the section of the last change: its final left end (the rows
        not ``chosen``, or settled on the way, keep the left end they had then)."""
        fractions = (np.arange(1, self.sections + 1) / (self.sections + 1))[:, None]
        out, left, right = left.copy(), left[chosen], right[chosen]
        for _ in range(math.ceil(_PRECISION_BITS / math.log2(self.sections + 1))):
            test = self.is_outside
            if not isinstance(chosen, slice):
                if self.settled is not None and chosen.size:
                    done = self.settled(left, right, chosen)
                    out[chosen[done]] = left[done]
                    chosen, left, right = chosen[~done], left[~done], right[~done]
                if not chosen.size:
                    return out
                test = partial(_of_chosen, self.is_outside, chosen)
            points = left + fractions * (right - left)
            index = _last_inside(test, points, self.block * left.size, self.cells)
            padded = np.concatenate([left[None], points, right[None]])
            left = np.take_along_axis(padded, (index + 1)[None], axis=0)[0]
            right = np.take_along_axis(padded, (index + 2)[None], axis=0)[0]
        out[chosen] = left
        return out


def _of_chosen(
    is_outside: _IsOutside, chosen: npt.NDArray[np.intp], points: FloatArray, rows: Rows
) -> npt.NDArray[np.bool_]:
    """``is_outside`` of a batch's ``chosen`` rows, with ``rows`` counted among them."""
    return is_outside(points, chosen if isinstance(rows, slice) else chosen[rows])


def _last_inside(
    is_outside: _IsOutside, points: FloatArray, working: int, cells: int
) -> npt.NDArray[np.int64]:
    """Index along axis 0 of the last point inside the interval (-1 if none is), per row.

    Points are evaluated from the last one back, a block at a time, and a row leaves the
    evaluation at its first inside point: no earlier point can change its answer. A block
    is as few points as make ``_SMALLEST_CALL`` cell values for the rows still open, at
    least one, and at most ``working`` evaluations (points times open rows).
    """
    count, rows = points.shape
    last = np.full(rows, -1, dtype=np.int64)
    open_rows: Rows = slice(None)
    left, stop = rows, count
    while True:
        least = -(-_SMALLEST_CALL // (left * cells))
        start = max(0, stop - max(1, min(least, working // left)))
        outside = is_outside(points[start:stop, open_rows], open_rows)
        index = np.arange(start, stop)[:, None]
        last[open_rows] = np.max(np.where(outside, -1, index), axis=0)
        if start == 0:
            return last
        open_rows = np.flatnonzero(last < 0)
        left, stop = open_rows.size, start
        if not left:
            return last
