"""Tango's score interval for a difference of paired proportions, vectorised.

Pairs are classified as (first yes, second no) = ``n12``, (first no, second yes) =
``n21``, out of ``total`` pairs; the difference is ``(n12 - n21) / total``. Tango (1998,
Statistics in Medicine 17:891-908) inverts the score test with the restricted maximum
likelihood estimate of the (no, yes) cell probability. Fagerland, Lydersen and Laake
(2014, Statistical Methods in Medical Research 24:224-254) recommend it for paired
differences because its coverage stays close to nominal down to small samples and near
0 or 1, where Wald intervals break.

``holm_separations`` compares every pair of candidates by their paired item-level
difference on the same items, with Holm's family-wise adjustment across all pairs; the
rank ranges of ``generator.stats.ranks`` are built from the pairs it separates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import special  # scipy.stats costs twice the import for its quantiles

from generator.stats._arrays import ArrayLike, Bounds, FloatArray, check_confidence
from generator.stats.differences import narrow_differences
from generator.stats.errors import StatsError
from generator.stats.intervals import Interval

_BISECTIONS = 60


def tango_statistic(
    delta: FloatArray, n12: FloatArray, n21: FloatArray, total: FloatArray
) -> FloatArray:
    """Tango's score statistic for H0: difference = ``delta`` (NaN where undefined)."""
    a = 2.0 * total
    b = -n12 - n21 + (2.0 * total - n12 + n21) * delta
    c = -n21 * delta * (1.0 - delta)
    p21 = (np.sqrt(np.maximum(b * b - 4.0 * a * c, 0.0)) - b) / (2.0 * a)
    variance = total * (2.0 * p21 + delta * (1.0 - delta))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray((n12 - n21 - total * delta) / np.sqrt(variance), dtype=np.float64)


def tango_bounds(n12: FloatArray, n21: FloatArray, total: FloatArray, confidence: float) -> Bounds:
    """Tango score limits for ``(n12 - n21) / total``, vectorised over array inputs.

    The statistic decreases in ``delta``; each limit is found by bisection between the
    estimate and -1 or 1. An estimate of exactly -1 (or 1) is its own lower (upper) limit.
    """
    z = float(special.ndtri(0.5 + confidence / 2.0))  # scipy.stats.norm.ppf
    estimate = (n12 - n21) / total
    limits = []
    for end, sign in ((-1.0, 1.0), (1.0, -1.0)):
        outside = np.full(estimate.shape, end)
        inside = estimate.copy()
        for _ in range(_BISECTIONS):
            middle = 0.5 * (outside + inside)
            statistic = tango_statistic(middle, n12, n21, total)
            beyond = sign * statistic > z
            outside = np.where(beyond, middle, outside)
            inside = np.where(beyond, inside, middle)
        limits.append(np.where(estimate == end, end, inside))
    return Bounds(lo=limits[0], hi=limits[1])


@dataclass(frozen=True)
class Separation:
    """One pair of candidates the paired comparisons tell apart.

    Attributes:
        better: Name of the candidate with the lower failure rate.
        worse: Name of the other.
        difference: ``rate(better) - rate(worse)`` on the items both answered (negative).
        lo: Lower limit of that difference at ``level``.
        hi: Upper limit (below zero: the separation).
        level: Per-comparison confidence at the Holm step that decided the pair.
        items: Items both candidates answered, over which the difference is taken.
    """

    better: str
    worse: str
    difference: float
    lo: float
    hi: float
    level: float
    items: int


def holm_separations(
    counts: Mapping[str, tuple[ArrayLike, ArrayLike]], familywise_confidence: float
) -> list[Separation]:
    """Pairs of candidates whose paired difference excludes zero, Holm-adjusted.

    Every pair is compared on the items both candidates answered (usable draws on each
    side): the narrow difference of their rates, paired by item (``narrow_differences``).
    Holm's step-down procedure runs on the intervals: with ``r`` pairs not yet separated,
    every pair whose interval at confidence ``1 - alpha / r`` excludes zero is separated,
    then ``r`` shrinks and the remaining pairs are tried again, until a step separates
    none (``alpha = 1 - familywise_confidence``). The intervals are nested in their level,
    so this is Holm's procedure on the p-values they invert; the chance that any claimed
    order is wrong is at most ``alpha`` across all pairs at once (Holm 1979, Scandinavian
    Journal of Statistics 6:65-70), whatever the dependence between the comparisons.

    Args:
        counts: Per candidate, fail counts and usable draws per item, on one shared item
            list (an item with no usable draw has ``n == 0``).
        familywise_confidence: Chance that every separation is right at once, in (0, 1).

    Returns:
        The separated pairs, sorted by ``(better, worse)``; a pair with no shared item is
        never compared.

    Raises:
        StatsError: The item lists differ in length, or a count is invalid.
    """
    alpha = 1.0 - check_confidence(familywise_confidence)
    names = sorted(counts)
    arrays = {name: _item_counts(name, *counts[name]) for name in names}
    sizes = {a.size for a, _ in arrays.values()}
    if len(sizes) > 1:
        raise StatsError("paired comparisons: every candidate needs the same item list")
    pairs = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            (k_a, n_a), (k_b, n_b) = arrays[first], arrays[second]
            both = (n_a > 0) & (n_b > 0)
            if both.any():
                pairs.append(((first, second), (k_a[both], n_a[both], k_b[both], n_b[both])))
    found: list[Separation] = []
    while pairs:
        level = 1.0 - alpha / len(pairs)
        intervals = narrow_differences([sides for _, sides in pairs], paired=True, confidence=level)
        kept = []
        for ((first, second), sides), iv in zip(pairs, intervals, strict=True):
            if iv.hi < 0.0 or iv.lo > 0.0:
                found.append(_separation(first, second, iv, level, len(sides[0])))
            else:
                kept.append(((first, second), sides))
        if len(kept) == len(pairs):
            break
        pairs = kept
    return sorted(found, key=lambda s: (s.better, s.worse))


def _separation(first: str, second: str, iv: Interval, level: float, items: int) -> Separation:
    """The separation of ``first`` and ``second`` from the interval of first minus second."""
    if iv.hi < 0.0:
        return Separation(first, second, iv.estimate, iv.lo, iv.hi, level, items)
    return Separation(second, first, -iv.estimate, -iv.hi, -iv.lo, level, items)


def _item_counts(name: str, k: ArrayLike, n: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """One candidate's counts as float arrays (items without usable draws kept as 0/0)."""
    k_arr, n_arr = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if k_arr.ndim != 1 or k_arr.shape != n_arr.shape:
        raise StatsError(f"paired comparisons: {name}: k and n must be 1-D of one length")
    if not (np.all(np.isfinite(n_arr)) and np.all((k_arr >= 0) & (k_arr <= n_arr))):
        raise StatsError(f"paired comparisons: {name}: need 0 <= k <= n for every item")
    return k_arr, n_arr
