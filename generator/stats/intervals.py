"""Failure rates and their intervals: Wilson, narrow and wide (differences of two rates
are in ``generator.stats.differences``).

A candidate's failure rate is the mean over items of the per-item fail fraction
``k_i / n_i`` (draws per item are usually 10 but may vary). Items with no usable draw
(``n_i == 0``) must be dropped by the caller; they have no fraction to average.

Every rate gets two intervals (DESIGN section 5):

* **narrow** -- the bank is fixed and only the draws are random ("this model's rate on
  this bank"): a score interval for a mean of binomial proportions, see
  ``generator.stats.narrow``;
* **wide** -- the items are a sample too ("on probes like these"): a design-effect Wilson
  interval over the item fractions, see ``generator.stats.wide``.

Both methods are deterministic (closed form plus root finding): no seed is involved, and
the figure records the method name, the confidence level and ``params``. Their coverage is
simulated in ``tests/stats/test_coverage.py`` and ``benchmarks/coverage.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import special  # scipy.stats costs twice the import for its quantiles

from generator.stats import narrow, wide
from generator.stats._arrays import ArrayLike, Counts, FloatArray, as_counts, check_confidence
from generator.stats.errors import StatsError

NARROW_METHOD = "binomial-mean-score"
NARROW_POOLED_METHOD = "binomial-mean-score-pooled-single-draws"
WIDE_METHOD = "item-deff-wilson"
WIDE_DIFFERENCE_METHOD = "mover-item-deff-wilson"


@dataclass(frozen=True)
class Interval:
    """A point estimate with its two-sided confidence interval.

    Attributes:
        estimate: The point estimate (a proportion, or a difference of proportions).
        lo: Lower confidence limit.
        hi: Upper confidence limit.
        method: Identifier of the interval method, to be declared next to the figure.
        confidence: Two-sided confidence level, e.g. 0.95.
        params: Method details worth publishing (effective sizes, degrees of freedom ...).
    """

    estimate: float
    lo: float
    hi: float
    method: str
    confidence: float
    params: Mapping[str, float | int | str] = field(default_factory=dict, hash=False)


def wilson(k: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for ``k`` successes out of ``n`` trials.

    Closed form; matches R's ``binom.confint(method="wilson")`` including the exact
    limits 0 at ``k == 0`` and 1 at ``k == n``.

    Args:
        k: Number of successes, ``0 <= k <= n``.
        n: Number of trials, at least 1.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The proportion ``k / n`` with its Wilson interval.

    Raises:
        StatsError: If the counts or the confidence level are out of range.
    """
    return wilson_intervals([(k, n)], confidence)[0]


def wilson_intervals(counts: Sequence[tuple[int, int]], confidence: float = 0.95) -> list[Interval]:
    """``wilson`` of many proportions at once (same results, bit for bit: every step of
    the closed form works element by element).

    Raises:
        StatsError: If any counts or the confidence level are out of range.
    """
    level = check_confidence(confidence)
    for k, n in counts:
        if not (_whole(k) and _whole(n) and 0 <= k <= n and n >= 1):
            raise StatsError(
                f"wilson: need whole numbers 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}"
            )
    if not counts:
        return []
    checked = as_counts(*zip(*counts, strict=True), min_items=1, what="wilson")
    estimate = checked.k / checked.n
    z = np.full(estimate.size, special.ndtri(0.5 + level / 2.0))  # scipy.stats.norm.ppf
    bounds = wide.wilson_bounds(estimate, checked.n, z)
    return [
        Interval(float(e), float(lo), float(hi), "wilson", level)
        for e, lo, hi in zip(estimate, bounds.lo, bounds.hi, strict=True)
    ]


def _narrow_declared(
    *draws: FloatArray, **params: float | int | str
) -> tuple[str, dict[str, float | int | str]]:
    """Method name and params of a narrow interval over items with ``draws`` draws each.

    Items seen once are pooled into one binomial cell per side (``generator.stats.narrow``):
    the interval is then conservative for them, and the figure says so.
    """
    declared: dict[str, float | int | str] = {
        "variance": "constrained-ml",
        "divisor": "n_i-1",
        **params,
    }
    singles = sum(int(np.sum(n == 1.0)) for n in draws)
    if not singles:
        return NARROW_METHOD, declared
    declared["single_draw_items"] = singles
    declared["single_draw_variance"] = "pooled-bernoulli-bound"
    return NARROW_POOLED_METHOD, declared


def _whole(value: object) -> bool:
    """True for Python or numpy integers (not bools)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def rate(k: ArrayLike, n: ArrayLike) -> float:
    """Failure rate: the mean over items of the per-item fail fraction ``k_i / n_i``.

    Args:
        k: Fail count per item.
        n: Usable draws per item (each at least 1; drop items without usable draws).

    Returns:
        The rate, in [0, 1].

    Raises:
        StatsError: If the counts are out of range or there are no items.
    """
    counts = as_counts(k, n, min_items=1)
    return float(np.mean(counts.k / counts.n))


def narrow_interval(k: ArrayLike, n: ArrayLike, confidence: float = 0.95) -> Interval:
    """Interval for the rate with the bank fixed and only the draws random.

    The truth it covers is the mean of this candidate's true per-item fail
    probabilities on exactly these items. Method: score interval for a mean of
    binomial proportions with the variance evaluated at the constrained
    maximum-likelihood item rates and an ``n_i - 1`` divisor (``generator.stats.narrow``
    explains why: it keeps near-nominal coverage when most items sit at 0/n or n/n,
    where plug-in and parametric-bootstrap intervals collapse to zero width). Items
    with a single draw carry no estimate of their own variance; they are pooled into
    one binomial cell, which bounds the mean of their variances (conservative), and the
    method is then declared as ``binomial-mean-score-pooled-single-draws``.

    Args:
        k: Fail count per item.
        n: Usable draws per item (each at least 1).
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The rate with its narrow interval; ``params`` counts the single-draw items.

    Raises:
        StatsError: If the counts or the confidence level are out of range.
    """
    level = check_confidence(confidence)
    counts = as_counts(k, n, min_items=1, what="narrow interval")
    weights = np.full(counts.k.size, 1.0 / counts.k.size)
    bounds = narrow.score_bounds(counts.k, counts.n, weights, level)
    method, params = _narrow_declared(counts.n, items=counts.k.size)
    return Interval(
        rate(counts.k, counts.n), float(bounds.lo), float(bounds.hi), method, level, params
    )


def narrow_intervals(
    counts: Sequence[tuple[ArrayLike, ArrayLike]], confidence: float = 0.95
) -> list[Interval]:
    """``narrow_interval`` of many rates at once (same results, bit for bit).

    Rates over the same number of items share one batched root search
    (``narrow.score_bounds_rows``), so a volume's thousands of rates cost a few searches.

    Args:
        counts: ``(k, n)`` per rate, as for ``narrow_interval``.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        One interval per entry of ``counts``, in order.

    Raises:
        StatsError: If any counts or the confidence level are out of range.
    """
    level = check_confidence(confidence)
    checked = [as_counts(k, n, min_items=1, what="narrow interval") for k, n in counts]
    out: list[Interval | None] = [None] * len(checked)
    for size, members in _by_size(checked).items():
        weights = np.full(size, 1.0 / size)
        k = np.stack([checked[i].k for i in members])
        n = np.stack([checked[i].n for i in members])
        bounds = narrow.score_bounds_rows(k, n, weights, level)
        for row, i in enumerate(members):
            method, params = _narrow_declared(checked[i].n, items=size)
            out[i] = Interval(
                _mean_fraction(checked[i]),
                float(bounds.lo[row]),
                float(bounds.hi[row]),
                method,
                level,
                params,
            )
    return [iv for iv in out if iv is not None]


def _mean_fraction(counts: Counts) -> float:
    """``rate`` of counts already checked."""
    return float(np.mean(counts.k / counts.n))


def _by_size(counts: Sequence[Counts]) -> dict[int, list[int]]:
    """Positions of ``counts`` grouped by number of items, in first-seen order."""
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(counts):
        groups.setdefault(c.k.size, []).append(i)
    return groups


def wide_interval(k: ArrayLike, n: ArrayLike, confidence: float = 0.95) -> Interval:
    """Interval for the rate with the items treated as a sample of probes like these.

    The truth it covers is the mean fail probability over the population the items
    were drawn from. Method: Wilson score interval on the item fractions with a Kish
    effective size clipped to ``[I, I**2 / sum(1/n_i)]`` and a Student quantile with
    kurtosis-matched degrees of freedom (``generator.stats.wide`` explains why: a t or
    cluster-bootstrap interval under-covers on easy banks, where a few items carry every
    failure).

    Args:
        k: Fail count per item (at least 2 items).
        n: Usable draws per item (each at least 1).
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The rate with its wide interval; ``params`` holds ``n_eff`` and ``df``.

    Raises:
        StatsError: If the counts or the confidence level are out of range, or there are
            fewer than 2 items.
    """
    level = check_confidence(confidence)
    counts = as_counts(k, n, min_items=2, what="wide interval")
    x = wide.item_fractions(counts.k, counts.n)
    bounds = wide.deff_wilson_bounds(counts.k, counts.n, level)
    params: dict[str, float | int | str] = {
        "n_eff": float(wide.effective_size(x, counts.n)),
        "df": float(wide.degrees_of_freedom(x)),
        "items": counts.k.size,
    }
    return Interval(
        rate(counts.k, counts.n), float(bounds.lo), float(bounds.hi), WIDE_METHOD, level, params
    )


def wide_intervals(
    counts: Sequence[tuple[ArrayLike, ArrayLike]], confidence: float = 0.95
) -> list[Interval]:
    """``wide_interval`` of many rates at once (same results, bit for bit).

    Rates over the same number of items are computed as one array (every step of the
    design-effect Wilson interval works row by row).

    Args:
        counts: ``(k, n)`` per rate (each with at least 2 items).
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        One interval per entry of ``counts``, in order.

    Raises:
        StatsError: If any counts or the confidence level are out of range.
    """
    level = check_confidence(confidence)
    checked = [as_counts(k, n, min_items=2, what="wide interval") for k, n in counts]
    out: list[Interval | None] = [None] * len(checked)
    for size, members in _by_size(checked).items():
        k = np.stack([checked[i].k for i in members])
        n = np.stack([checked[i].n for i in members])
        x = wide.item_fractions(k, n)
        bounds = wide.deff_wilson_bounds(k, n, level)
        n_eff = wide.effective_size(x, n)
        df = wide.degrees_of_freedom(x)
        for row, i in enumerate(members):
            params: dict[str, float | int | str] = {
                "n_eff": float(n_eff[row]),
                "df": float(df[row]),
                "items": size,
            }
            out[i] = Interval(
                _mean_fraction(checked[i]),
                float(bounds.lo[row]),
                float(bounds.hi[row]),
                WIDE_METHOD,
                level,
                params,
            )
    return [iv for iv in out if iv is not None]
