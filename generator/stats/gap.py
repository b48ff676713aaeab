"""The contamination gap: a candidate's failure rate on held-out items minus its rate on
public items of the same categories, stratified by category.

Public and held-out items are different probes, so no item pairs with another; what pairs
them is the category. Only categories with at least one item on each side count (strata
``c``), each weighted by its share ``w_c`` of those items. The gap is

    D = sum_c w_c * (mean of held-out fail fractions in c - mean of public ones in c)

a linear combination of per-item fail fractions with weights ``+w_c / H_c`` on the ``H_c``
held-out items and ``-w_c / P_c`` on the ``P_c`` public items of stratum ``c``. Positive:
the model fails held-out items more than public items of the same categories, i.e. does
better on the items that could have been in its training data, which is what
contamination would look like (a signal, not proof: held-out items may simply be harder).

Two intervals, as for every rate (DESIGN §5):

* **narrow** (these items fixed, only draws random): the project's score interval for a
  signed mean of binomial proportions (``generator.stats.narrow.score_bounds``), the very
  engine of the split-half and candidate-pair differences, with the stratified weights;
* **wide** (items a sample too: "would probes like these, split the same way, show a
  gap?"): a stratified two-sample t interval on the item fractions, with the within-stratum
  variance pooled over both sides and every stratum (``N - 2C`` degrees of freedom: few
  items per stratum would not estimate a variance of their own), never narrower than the
  narrow interval (items seen at 0 on both sides carry no item variance but still leave
  draw noise). Absent when ``N - 2C < 1``. Its coverage under a random public/held-out
  split is simulated in ``tests/stats/test_gap.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from generator.stats import narrow
from generator.stats._arrays import ArrayLike, Counts, FloatArray, as_counts, check_confidence
from generator.stats.errors import StatsError
from generator.stats.intervals import Interval, _narrow_declared
from generator.stats.wide import t_quantile

GAP_NARROW_METHOD = "stratified-binomial-mean-score"
GAP_WIDE_METHOD = "stratified-pooled-t-item-fractions"


@dataclass(frozen=True)
class Stratum:
    """One category's items on both sides: fail counts and usable draws per item."""

    category: str
    heldout: Counts
    public: Counts


@dataclass(frozen=True)
class Gap:
    """A contamination gap with its intervals.

    Attributes:
        estimate: Held-out rate minus public rate, stratified (see the module).
        narrow: The narrow interval (items fixed).
        wide: The wide interval (items sampled), None when it has no degrees of freedom.
        heldout_rate: The stratified held-out rate ``sum_c w_c * mean(held-out in c)``.
        public_rate: The stratified public rate, with the same weights.
        categories: The strata, in the order given.
        heldout_items: Held-out items counted.
        public_items: Public items counted.
    """

    estimate: float
    narrow: Interval
    wide: Interval | None
    heldout_rate: float
    public_rate: float
    categories: tuple[str, ...]
    heldout_items: int
    public_items: int


def stratum(
    category: str, k_h: ArrayLike, n_h: ArrayLike, k_p: ArrayLike, n_p: ArrayLike
) -> Stratum:
    """A checked stratum (each side needs at least one item with a usable draw).

    Raises:
        StatsError: On invalid counts or an empty side.
    """
    held = as_counts(k_h, n_h, min_items=1, what=f"contamination gap ({category}, held out)")
    public = as_counts(k_p, n_p, min_items=1, what=f"contamination gap ({category}, public)")
    return Stratum(category, held, public)


def contamination_gaps(each: Sequence[Sequence[Stratum]], confidence: float = 0.95) -> list[Gap]:
    """The stratified held-out-minus-public gap of each candidate, with both intervals.

    Per candidate: the gap, its narrow interval and (when estimable) its wide interval,
    over the categories with items on both sides (at least one). Candidates with the
    same weights (the same strata and item counts) share one batched
    narrow search (``narrow.score_bounds_rows``, whose rows are independent).

    Raises:
        StatsError: A candidate without a stratum, or an invalid confidence level.
    """
    level = check_confidence(confidence)
    cells = [_cells(strata) for strata in each]
    groups: dict[bytes, list[int]] = {}
    for i, (_, _, weights) in enumerate(cells):
        groups.setdefault(weights.tobytes(), []).append(i)
    limits: list[tuple[float, float]] = [(0.0, 0.0)] * len(cells)
    for members in groups.values():
        k = np.stack([cells[i][0] for i in members])
        n = np.stack([cells[i][1] for i in members])
        bounds = narrow.score_bounds_rows(k, n, cells[members[0]][2], level)
        for row, i in enumerate(members):
            limits[i] = (float(bounds.lo[row]), float(bounds.hi[row]))
    return [
        _gap(strata, found[1], limit, level)
        for strata, found, limit in zip(each, cells, limits, strict=True)
    ]


def _cells(strata: Sequence[Stratum]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Fail counts, draws and weights of a gap's cells: each stratum's held-out items,
    then its public ones."""
    if not strata:
        raise StatsError("contamination gap: needs a category with public and held-out items")
    shares = shares_of(strata)
    k = np.concatenate([np.concatenate([s.heldout.k, s.public.k]) for s in strata])
    n = np.concatenate([np.concatenate([s.heldout.n, s.public.n]) for s in strata])
    weights = np.concatenate(
        [
            np.concatenate(
                [
                    np.full(s.heldout.k.size, w / s.heldout.k.size),
                    np.full(s.public.k.size, -w / s.public.k.size),
                ]
            )
            for s, w in zip(strata, shares, strict=True)
        ]
    )
    return k, n, weights


def _gap(
    strata: Sequence[Stratum], n: FloatArray, limits: tuple[float, float], level: float
) -> Gap:
    """The gap of ``strata`` from its narrow limits (``n``: the draws of its cells)."""
    shares = shares_of(strata)
    held_rate = sum(
        w * float(np.mean(s.heldout.k / s.heldout.n)) for s, w in zip(strata, shares, strict=True)
    )
    public_rate = sum(
        w * float(np.mean(s.public.k / s.public.n)) for s, w in zip(strata, shares, strict=True)
    )
    estimate = held_rate - public_rate
    # The gap names its own method; the params say whether single-draw items were pooled.
    _, params = _narrow_declared(n, strata=len(strata))
    narrow_iv = Interval(estimate, *limits, GAP_NARROW_METHOD, level, params)
    return Gap(
        estimate=estimate,
        narrow=narrow_iv,
        wide=_wide(strata, estimate, narrow_iv, level),
        heldout_rate=held_rate,
        public_rate=public_rate,
        categories=tuple(s.category for s in strata),
        heldout_items=sum(s.heldout.k.size for s in strata),
        public_items=sum(s.public.k.size for s in strata),
    )


def shares_of(strata: Sequence[Stratum]) -> list[float]:
    """Each stratum's weight ``w_c``: its share of the items counted."""
    total = sum(s.heldout.k.size + s.public.k.size for s in strata)
    return [(s.heldout.k.size + s.public.k.size) / total for s in strata]


@dataclass(frozen=True)
class PooledT:
    """The stratified pooled-variance t limits (before widening to the narrow interval)."""

    lo: float
    hi: float
    degrees_of_freedom: int
    variance: float
    """The pooled within-stratum variance of the item fail fractions."""


def pooled_t(strata: Sequence[Stratum], level: float) -> PooledT | None:
    """The t interval of the stratified gap over item fractions; None when ``N - 2C < 1``."""
    shares = shares_of(strata)
    df = sum(s.heldout.k.size + s.public.k.size for s in strata) - 2 * len(strata)
    if df < 1:
        return None
    squares = 0.0
    spread = 0.0
    estimate = 0.0
    for s, w in zip(strata, shares, strict=True):
        for sign, side in ((1.0, s.heldout), (-1.0, s.public)):
            x = side.k / side.n
            estimate += sign * w * float(np.mean(x))
            squares += float(np.sum((x - np.mean(x)) ** 2))
            spread += w * w / side.k.size
    variance = squares / df
    half = float(t_quantile(0.5 + level / 2.0, np.asarray(df))) * float(np.sqrt(variance * spread))
    return PooledT(estimate - half, estimate + half, df, variance)


def _wide(
    strata: Sequence[Stratum], estimate: float, narrow_iv: Interval, level: float
) -> Interval | None:
    """The stratified pooled-variance t interval, widened to contain ``narrow_iv``."""
    found = pooled_t(strata, level)
    if found is None:
        return None
    lo = max(-1.0, min(found.lo, narrow_iv.lo))
    hi = min(1.0, max(found.hi, narrow_iv.hi))
    params: dict[str, float | int | str] = {
        "degrees_of_freedom": found.degrees_of_freedom,
        "pooled_item_variance": found.variance,
        "strata": len(strata),
        "widened_to_narrow": int(found.lo > narrow_iv.lo or found.hi < narrow_iv.hi),
    }
    return Interval(estimate, lo, hi, GAP_WIDE_METHOD, level, params)
