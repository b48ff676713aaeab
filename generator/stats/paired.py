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
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special  # scipy.stats costs twice the import for its quantiles

from generator.stats import narrow
from generator.stats._arrays import (
    ArrayLike,
    Bounds,
    Counts,
    FloatArray,
    as_counts,
    check_confidence,
)
from generator.stats.crossing import Exclusion
from generator.stats.errors import StatsError
from generator.stats.intervals import _mean_fraction

_BISECTIONS = 60
IntArray = npt.NDArray[np.int64]


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


@dataclass(frozen=True, slots=True)  # slots: 179,700 pairs at 600 candidates
class Separation:
    """One pair of candidates the paired comparisons tell apart.

    Attributes:
        better: Name of the candidate with the lower failure rate.
        worse: Name of the other.
        difference: ``rate(better) - rate(worse)`` on the items both answered (negative).
        hi: Upper limit of that difference at ``level`` (below zero: the separation). It
            is the limit that decides; the far one is not computed.
        level: Per-comparison confidence at the Holm step that decided the pair.
        items: Items both candidates answered, over which the difference is taken.
    """

    better: str
    worse: str
    difference: float
    hi: float
    level: float
    items: int


class _Candidates(NamedTuple):
    """Names and counts of the candidates, in name order, and every pair to compare:
    pair ``p`` is candidates ``first[p]`` and ``second[p]`` (positions in ``names``) on
    the ``items[p]`` items both answered (the mask of which is rebuilt when their cells
    are: at 600 candidates, one mask per pair held 50 MB; and the 179,700 pairs as
    tuples of Python ints 19 MB, as these arrays 4 MB; issue 19)."""

    names: list[str]
    k: list[FloatArray]
    n: list[FloatArray]
    first: IntArray
    second: IntArray
    items: IntArray

    def cells(self, pair: int) -> tuple[FloatArray, FloatArray]:
        """Fail and draw counts of a pair's narrow difference: first's items, second's."""
        a, b = int(self.first[pair]), int(self.second[pair])
        k_a, n_a, k_b, n_b = self.k[a], self.n[a], self.k[b], self.n[b]
        if int(self.items[pair]) < k_a.size:
            shared = (n_a > 0) & (n_b > 0)
            k_a, n_a, k_b, n_b = (x[shared] for x in (k_a, n_a, k_b, n_b))
        return np.concatenate([k_a, k_b]), np.concatenate([n_a, n_b])


CHUNK = 512
"""Pairs evaluated per batch: the cells of one batch, not of all pairs, are in memory
(at 600 candidates, 180,000 pairs of 206 cells would be 1.2 GB per array; 4,096 pairs
at once held 86 MB at the peak of a 120-candidate search, 512 hold 15 MB, in as much
CPU time; issue 19)."""


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

    Three shortcuts make it cheaper without changing a single decision or limit (issue
    19; a test compares it with the plain procedure): only the limit on zero's side of
    the estimate is searched (the other cannot exclude zero); a pair whose interval still
    holds zero at ``familywise_confidence`` itself, the lowest level any step can reach,
    is counted in ``r`` but not evaluated again (the limit search is monotone in the
    level: a point outside at a higher level is outside at every lower one, so its limit
    at a later step could only be nearer the estimate); and a limit's search stops
    refining once its bracket shows the limit cannot exclude zero (its value is never
    published), or, at ``familywise_confidence``, that it must (``crossing.Exclusion``).

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
    every = _candidates(counts)
    pairs = every.items.size
    remaining = pairs
    hopeful = np.arange(pairs, dtype=np.int64)
    found: list[Separation] = []
    while hopeful.size:
        level = 1.0 - alpha / remaining
        limits = _decisive_limits(every, hopeful, level)
        separated = ~np.isnan(limits)
        for i, limit in zip(hopeful[separated].tolist(), limits[separated].tolist(), strict=True):
            found.append(_separation(every, i, limit, level))
        kept = hopeful[~separated]
        if kept.size == hopeful.size:
            break
        remaining -= hopeful.size - kept.size
        if hopeful.size == pairs and kept.size and remaining > 1:  # after the first step
            floor = _decisive_limits(every, kept, 1.0 - alpha, exact=False)
            kept = kept[~np.isnan(floor)]
        hopeful = kept
    return sorted(found, key=lambda s: (s.better, s.worse))


def _candidates(counts: Mapping[str, tuple[ArrayLike, ArrayLike]]) -> _Candidates:
    """Every candidate's counts checked, and every pair with a shared item."""
    names = sorted(counts)
    arrays = [_item_counts(name, *counts[name]) for name in names]
    sizes = {a.size for a, _ in arrays}
    if len(sizes) > 1:
        raise StatsError("paired comparisons: every candidate needs the same item list")
    for name, (k, n) in zip(names, arrays, strict=True):
        answered = n > 0
        as_counts(k[answered], n[answered], min_items=0, what=f"paired comparisons: {name}")
    usable = np.array([n > 0 for _, n in arrays])  # candidates x items
    first: list[IntArray] = []
    second: list[IntArray] = []
    shared: list[IntArray] = []
    for i in range(len(names) - 1):
        items = np.count_nonzero(usable[i] & usable[i + 1 :], axis=1)
        others = np.flatnonzero(items)
        first.append(np.full(others.size, i, dtype=np.int64))
        second.append(others + (i + 1))
        shared.append(items[others].astype(np.int64))
    fails, draws = [k for k, _ in arrays], [n for _, n in arrays]
    return _Candidates(
        names,
        fails,
        draws,
        *(np.concatenate([*x, np.zeros(0, np.int64)]) for x in (first, second, shared)),
    )


def _decisive_limits(
    every: _Candidates, pairs: IntArray, level: float, *, exact: bool = True
) -> FloatArray:
    """Per pair (of the positions ``pairs``), the limit of its narrow difference nearest
    zero when it excludes zero at ``level`` (the upper one when the difference is
    negative), else NaN.

    The limits are those of ``narrow_differences`` bit for bit: the same cells, weights
    and batched search (``narrow.score_bounds_rows``, whose rows are independent), only
    the far side left out, ``CHUNK`` pairs at a time, and a limit that cannot exclude
    zero not refined once its bracket shows it (``crossing.Exclusion``). Without
    ``exact``, only whether each excludes zero is wanted (a limit returned then is on
    the right side of zero, but not refined).
    """
    out = np.full(pairs.size, np.nan)
    items = every.items[pairs]
    sizes, first = np.unique(items, return_index=True)
    for size in sizes[np.argsort(first)].tolist():  # in order of first appearance
        members = np.flatnonzero(items == size)
        weights = np.concatenate([np.full(size, 1.0 / size), np.full(size, -1.0 / size)])
        for start in range(0, members.size, CHUNK):
            chunk = members[start : start + CHUNK]
            built = [every.cells(int(pairs[i])) for i in chunk]
            k = np.stack([x for x, _ in built])
            n = np.stack([y for _, y in built])
            out[chunk] = _toward_zero(k, n, weights, level, exact)
    return out


def _toward_zero(
    k: FloatArray, n: FloatArray, weights: FloatArray, level: float, exact: bool
) -> FloatArray:
    """``_decisive_limits`` of the rows of one batch."""
    out = np.full(len(k), np.nan)
    estimate = np.sum(weights * k / n, axis=-1)  # as the search computes it
    excludes = Exclusion(0.0, exact)
    for side, rows in (((False, True), estimate < 0.0), ((True, False), estimate > 0.0)):
        if not rows.any():
            continue
        bounds = narrow.score_bounds_rows(k[rows], n[rows], weights, level, side, excludes)
        limit = bounds.hi if side[1] else bounds.lo
        excluded = limit < 0.0 if side[1] else limit > 0.0
        out[np.flatnonzero(rows)[excluded]] = limit[excluded]
    return out


def _separation(every: _Candidates, pair: int, limit: float, level: float) -> Separation:
    """The separation of a pair from the limit of first minus second nearest zero."""
    k, n = every.cells(pair)
    items = k.size // 2
    a, b = Counts(k[:items], n[:items]), Counts(k[items:], n[items:])
    difference = _mean_fraction(a) - _mean_fraction(b)
    first, second = every.names[int(every.first[pair])], every.names[int(every.second[pair])]
    if limit < 0.0:
        return Separation(first, second, difference, limit, level, items)
    return Separation(second, first, -difference, -limit, level, items)


def _item_counts(name: str, k: ArrayLike, n: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """One candidate's counts as float arrays (items without usable draws kept as 0/0)."""
    k_arr, n_arr = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if k_arr.ndim != 1 or k_arr.shape != n_arr.shape:
        raise StatsError(f"paired comparisons: {name}: k and n must be 1-D of one length")
    if not (np.all(np.isfinite(n_arr)) and np.all((k_arr >= 0) & (k_arr <= n_arr))):
        raise StatsError(f"paired comparisons: {name}: need 0 <= k <= n for every item")
    return k_arr, n_arr
