"""Mean item scores in [0, 1] and their two intervals (rubric items, higher is better).

A rubric item's draws score anything in [0, 1] (0 on a safety failure, 0.8 × core +
0.2 × depth otherwise), not just 0 or 1. A candidate's score is the mean over items of the
per-item mean score ``s_i / n_i`` (``s_i``: the sum of the item's draw scores). It gets
the two intervals every rate gets, by the same two engines fed with score sums in place
of failure counts:

* **narrow** (bank fixed, draws random): ``generator.stats.narrow``'s score interval with
  a dispersion factor (quasi-binomial). That interval's variance for an item of mean
  ``p`` is ``p (1 - p) / (n - 1)``, the Bernoulli variance; for a draw score bounded in
  [0, 1] with mean ``p`` the variance is at most ``p (1 - p)`` (Bhatia–Davis inequality),
  with equality exactly when scores are 0 or 1. Rubric scores mostly sit inside the
  range, where that bound is loose (simulated coverage 100%, twice the needed width), so
  the variance is scaled by ``phi = (W + 1) / (B + 1)``, capped at 1: ``W`` is the
  pooled within-item sum of squared deviations of the draw scores, ``B`` the same sum if
  every draw had been 0 or 1 with the item's mean (``sum n_i x_i (1 - x_i)``), and the
  ``+ 1`` (one draw's worth of the bound) keeps a bank whose draws never vary from a
  zero-width interval. For 0/1 scores ``W = B`` and ``phi = 1``: the failure-rate method
  itself. Items with one draw tell nothing about ``W`` and add nothing to ``W`` or ``B``
  (with every item at one draw ``phi = 1``, the bound, and they are pooled as before).
  Scaling the variance by ``phi`` is the same as using the critical value ``z sqrt(phi)``.
* **wide** (items a sample too): ``generator.stats.wide``'s design-effect Wilson interval
  over the item mean scores. Its two variance facts hold for bounded item means: the
  variance of the mean of ``I`` items in [0, 1] is at most ``mean (1 - mean) / I`` (the
  floor of its effective size); the ceiling ``I**2 / sum(1/n_i)`` assumes draw variance
  ``p (1 - p)``, again an upper bound for bounded scores, so clipping there errs wide.

``benchmarks/coverage.py`` (its score block) and ``tests/stats/test_score_coverage.py``
show the coverage on simulated rubric volumes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special  # scipy.stats costs twice the import for its quantiles

from generator.stats import narrow, wide
from generator.stats._arrays import ArrayLike, Counts, FloatArray, check_confidence
from generator.stats.errors import StatsError
from generator.stats.intervals import Interval
from generator.words import counted

NARROW_SCORE_METHOD = "bounded-mean-score-dispersion"
WIDE_SCORE_METHOD = "item-deff-wilson-bounded"


def as_scores(s: ArrayLike, n: ArrayLike, *, min_items: int, what: str) -> Counts:
    """Check per-item score sums ``s`` (real, ``0 <= s_i <= n_i``) and draw counts ``n``
    (whole, at least 1); returned as float arrays (``Counts.k`` holds ``s``)."""
    s_arr = np.asarray(s, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    if s_arr.ndim != 1 or s_arr.shape != n_arr.shape:
        raise StatsError(f"{what}: score sums and draws must be 1-D of one length")
    if s_arr.size < min_items:
        raise StatsError(f"{what}: needs at least {counted(min_items, 'item')}, got {s_arr.size}")
    if not (np.all(np.isfinite(s_arr)) and np.all(np.isfinite(n_arr))):
        raise StatsError(f"{what}: score sums and draws must be finite numbers")
    if np.any(n_arr != np.round(n_arr)) or np.any(n_arr < 1):
        raise StatsError(f"{what}: draws must be whole numbers, at least 1 an item")
    if np.any(s_arr < 0) or np.any(s_arr > n_arr):
        first = int(np.argmax((s_arr < 0) | (s_arr > n_arr)))
        raise StatsError(
            f"{what}: item {first} has score sum {s_arr[first]} over {int(n_arr[first])} "
            "draws; draw scores lie in [0, 1]"
        )
    return Counts(k=s_arr, n=n_arr)


@dataclass(frozen=True)
class ItemScores:
    """One candidate's per-item score sums, sums of squares and draw counts."""

    s: ArrayLike
    """Sum of the item's draw scores."""
    ss: ArrayLike
    """Sum of the squares of the item's draw scores."""
    n: ArrayLike
    """Scored draws of the item (at least 1)."""


def dispersion(s: FloatArray, ss: FloatArray, n: FloatArray) -> FloatArray:
    """``phi = (W + 1) / (B + 1)`` capped at 1 (module docstring), over the last axis;
    1 when no item has two draws and an interior mean."""
    x = s / n
    multi = n >= 2.0
    within = np.sum(np.where(multi, np.maximum(ss - s * x, 0.0), 0.0), axis=-1)
    bound = np.sum(np.where(multi, n * x * (1.0 - x), 0.0), axis=-1)
    phi = np.where(bound > 0.0, (within + 1.0) / (bound + 1.0), 1.0)
    return np.asarray(np.clip(phi, 0.0, 1.0), dtype=np.float64)


def scaled_confidence(level: float, phi: float) -> float:
    """The level whose critical value is ``z(level) * sqrt(phi)``."""
    if phi >= 1.0:
        return level
    z = float(special.ndtri(0.5 + level / 2.0))  # scipy.stats.norm.ppf and .cdf
    return float(2.0 * special.ndtr(z * np.sqrt(phi)) - 1.0)


def narrow_score_bounds(
    s: FloatArray, ss: FloatArray, n: FloatArray, confidence: float
) -> tuple[float, float, float]:
    """``(lo, hi, phi)`` of the narrow interval of one candidate's mean score."""
    phi = float(dispersion(s, ss, n))
    weights = np.full(s.size, 1.0 / s.size)
    bounds = narrow.score_bounds(s, n, weights, scaled_confidence(confidence, phi))
    return float(bounds.lo), float(bounds.hi), phi


def _narrow_bounds(
    checked: Sequence[tuple[Counts, Counts]], level: float
) -> list[tuple[float, float, float]]:
    """``narrow_score_bounds`` of each checked ``(sums, squares)``, bit for bit, with one
    search per item count (``narrow.score_bounds_rows`` with each row's own level: the
    rows are independent, and a row's search is the one a single call makes)."""
    phis = [float(dispersion(c.k, squares.k, c.n)) for c, squares in checked]
    out: list[tuple[float, float, float]] = [(0.0, 0.0, 1.0)] * len(checked)
    groups: dict[int, list[int]] = {}
    for i, (c, _) in enumerate(checked):
        groups.setdefault(c.k.size, []).append(i)
    for size, members in groups.items():
        levels = np.array([scaled_confidence(level, phis[i]) for i in members])
        bounds = narrow.score_bounds_rows(
            np.stack([checked[i][0].k for i in members]),
            np.stack([checked[i][0].n for i in members]),
            np.full(size, 1.0 / size),
            levels,
        )
        for row, i in enumerate(members):
            out[i] = (float(bounds.lo[row]), float(bounds.hi[row]), phis[i])
    return out


def score_intervals(
    scores: Sequence[ItemScores], confidence: float = 0.95
) -> list[tuple[Interval, Interval | None]]:
    """Narrow and wide intervals of many mean scores (wide None with a single item).

    Args:
        scores: Per-item sums, sums of squares and draw counts, one entry per score.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        ``(narrow, wide)`` per entry of ``scores``, in order.

    Raises:
        StatsError: If any sums, counts or the confidence level are out of range.
    """
    level = check_confidence(confidence)
    checked = [
        (
            as_scores(entry.s, entry.n, min_items=1, what="score interval"),
            as_scores(entry.ss, entry.n, min_items=1, what="score interval (squares)"),
        )
        for entry in scores
    ]
    out: list[tuple[Interval, Interval | None]] = []
    for (c, _), (lo, hi, phi) in zip(checked, _narrow_bounds(checked, level), strict=True):
        size = c.k.size
        estimate = float(np.mean(c.k / c.n))
        params: dict[str, float | int | str] = {
            "items": size,
            "variance": "bernoulli-bound-times-dispersion",
            "dispersion": phi,
            "divisor": "n_i-1",
        }
        singles = int(np.sum(c.n == 1.0))
        if singles:
            params["single_draw_items"] = singles
        low = Interval(estimate, lo, hi, NARROW_SCORE_METHOD, level, params)
        if size < 2:
            out.append((low, None))
            continue
        x = wide.item_fractions(c.k, c.n)
        wb = wide.deff_wilson_bounds(c.k, c.n, level)
        wide_params: dict[str, float | int | str] = {
            "n_eff": float(wide.effective_size(x, c.n)),
            "df": float(wide.degrees_of_freedom(x)),
            "items": size,
        }
        high = Interval(estimate, float(wb.lo), float(wb.hi), WIDE_SCORE_METHOD, level, wide_params)
        out.append((low, high))
    return out
