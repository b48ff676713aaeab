"""Differences of two rates (split-half, drift, two candidates), narrow and wide.

Paired differences (the same items on both sides) keep the item pairing; the narrow
difference holds the bank fixed, the wide one (MOVER over the item-design-effect Wilson
limits) treats the items as a sample too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from generator.stats import narrow, wide
from generator.stats._arrays import ArrayLike, Counts, as_counts, check_confidence
from generator.stats.errors import StatsError
from generator.stats.intervals import (
    WIDE_DIFFERENCE_METHOD,
    Interval,
    _mean_fraction,
    _narrow_declared,
    rate,
)


def difference_interval(
    k_a: ArrayLike,
    n_a: ArrayLike,
    k_b: ArrayLike,
    n_b: ArrayLike,
    *,
    paired: bool,
    kind: Literal["narrow", "wide"],
    confidence: float = 0.95,
) -> Interval:
    """Interval for ``rate(A) - rate(B)``.

    Uses: split-half (half A minus half B of one candidate, paired by item), drift
    (one model in two volumes on the same core items, paired by item) and two
    candidates (paired when they answered the same items, in the same order).

    * ``kind="narrow"``: both banks fixed, draws random. The score interval of
      ``generator.stats.narrow`` with weights ``+1/I_A`` and ``-1/I_B``. Draws of the two
      sides are independent given the items, so pairing does not change this interval;
      ``paired=True`` only checks that both sides have the same items. Single-draw
      items are pooled per side (conservative), as for ``narrow_interval``.
    * ``kind="wide"``: items sampled too. MOVER over the two design-effect Wilson
      intervals, with the item-level Pearson correlation of the fractions when paired
      (item difficulty largely cancels) and zero correlation when not.

    Args:
        k_a: Fail counts per item, side A.
        n_a: Usable draws per item, side A.
        k_b: Fail counts per item, side B.
        n_b: Usable draws per item, side B.
        paired: Whether item ``i`` of A and item ``i`` of B are the same probe.
        kind: ``"narrow"`` or ``"wide"``.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The difference of the rates with its interval.

    Raises:
        StatsError: On invalid counts, an unknown ``kind``, or paired sides of different
            lengths.
    """
    level = check_confidence(confidence)
    if kind not in ("narrow", "wide"):
        raise StatsError(f'difference kind must be "narrow" or "wide", got {kind!r}')
    minimum = 1 if kind == "narrow" else 2
    a = as_counts(k_a, n_a, min_items=minimum, what="difference (side A)")
    b = as_counts(k_b, n_b, min_items=minimum, what="difference (side B)")
    if paired and a.k.size != b.k.size:
        raise StatsError(
            f"paired difference: side A has {a.k.size} items and side B {b.k.size}; "
            "paired sides must list the same items in the same order"
        )
    estimate = rate(a.k, a.n) - rate(b.k, b.n)
    if kind == "narrow":
        return _narrow_difference(a, b, estimate, level, paired)
    return _wide_difference(a, b, estimate, level, paired)


def _narrow_difference(
    a: Counts, b: Counts, estimate: float, level: float, paired: bool
) -> Interval:
    """Narrow difference via the signed-weight score interval."""
    k = np.concatenate([a.k, b.k])
    n = np.concatenate([a.n, b.n])
    weights = np.concatenate(
        [np.full(a.k.size, 1.0 / a.k.size), np.full(b.k.size, -1.0 / b.k.size)]
    )
    bounds = narrow.score_bounds(k, n, weights, level)
    method, params = _narrow_declared(a.n, b.n, paired=int(paired))
    return Interval(estimate, float(bounds.lo), float(bounds.hi), method, level, params)


def narrow_differences(
    sides: Sequence[tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike]],
    *,
    paired: bool,
    confidence: float = 0.95,
) -> list[Interval]:
    """``difference_interval(..., kind="narrow")`` of many pairs at once (bit for bit).

    Args:
        sides: ``(k_a, n_a, k_b, n_b)`` per difference.
        paired: As for ``difference_interval`` (applies to every entry).
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        One interval per entry of ``sides``, in order.

    Raises:
        StatsError: On invalid counts, or paired sides of different lengths.
    """
    level = check_confidence(confidence)
    pairs: list[tuple[Counts, Counts]] = []
    for k_a, n_a, k_b, n_b in sides:
        a = as_counts(k_a, n_a, min_items=1, what="difference (side A)")
        b = as_counts(k_b, n_b, min_items=1, what="difference (side B)")
        if paired and a.k.size != b.k.size:
            raise StatsError(
                f"paired difference: side A has {a.k.size} items and side B {b.k.size}; "
                "paired sides must list the same items in the same order"
            )
        pairs.append((a, b))
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (a, b) in enumerate(pairs):
        groups.setdefault((a.k.size, b.k.size), []).append(i)
    out: list[Interval | None] = [None] * len(pairs)
    for (size_a, size_b), members in groups.items():
        weights = np.concatenate([np.full(size_a, 1.0 / size_a), np.full(size_b, -1.0 / size_b)])
        k = np.stack([np.concatenate([pairs[i][0].k, pairs[i][1].k]) for i in members])
        n = np.stack([np.concatenate([pairs[i][0].n, pairs[i][1].n]) for i in members])
        bounds = narrow.score_bounds_rows(k, n, weights, level)
        for row, i in enumerate(members):
            a, b = pairs[i]
            method, params = _narrow_declared(a.n, b.n, paired=int(paired))
            estimate = _mean_fraction(a) - _mean_fraction(b)
            out[i] = Interval(
                estimate,
                float(bounds.lo[row]),
                float(bounds.hi[row]),
                method,
                level,
                params,
            )
    return [iv for iv in out if iv is not None]


def _wide_difference(a: Counts, b: Counts, estimate: float, level: float, paired: bool) -> Interval:
    """Wide difference via MOVER over the two design-effect Wilson intervals."""
    x_a = wide.item_fractions(a.k, a.n)
    x_b = wide.item_fractions(b.k, b.n)
    correlation = float(wide.item_correlation(x_a, x_b)) if paired else 0.0
    bounds = wide.mover_bounds(
        np.asarray(np.mean(x_a)),
        wide.deff_wilson_bounds(a.k, a.n, level),
        np.asarray(np.mean(x_b)),
        wide.deff_wilson_bounds(b.k, b.n, level),
        correlation,
    )
    params: dict[str, float | int | str] = {"correlation": correlation, "paired": int(paired)}
    return Interval(
        estimate, float(bounds.lo), float(bounds.hi), WIDE_DIFFERENCE_METHOD, level, params
    )
