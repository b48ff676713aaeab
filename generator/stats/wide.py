"""Wilson score limits, the design-effect Wilson interval for item means, and MOVER.

The "wide" interval treats the items as a sample from a population of probes like
these. Each item contributes its fail fraction ``x_i = k_i / n_i`` and the rate is their
mean. Two facts about fractions in [0, 1] fix the variance of that mean between
``mean(1-mean) / N_h`` (all items alike, only draws vary; ``N_h = I**2 / sum(1/n_i)``)
and ``mean(1-mean) / I`` (every item always passes or always fails).

The interval is Wilson's score interval with an effective sample size
``n_eff = mean(1-mean) / (s**2 / I)`` clipped to ``[I, N_h]`` (Kish's design effect), and
a Student quantile whose degrees of freedom ``2I / (kurtosis - 1)`` match the spread of
``s**2`` (Satterthwaite moment matching, at most ``I - 1``). Why: a t interval on the
item fractions under-covers badly on easy banks (few items carry all the failures, so
low means come with low variances); the Wilson form lets the variance grow with the
hypothesised mean, and the kurtosis-based degrees of freedom widen it when a handful of
items carry the whole variance. When every item is at 0 (or 1) there is no variance to
learn from, and ``n_eff = I`` is the honest worst case. With one draw an item the
fractions are independent Bernoulli draws of the population mean, ``N_h = I`` fixes
``n_eff = I``, and the interval is Wilson's for ``I`` trials (with the Student quantile);
its coverage for 1, 2 and 3 draws is in ``benchmarks/RESULTS.md``.

Differences use MOVER (Zou and Donner 2008; Newcombe's method 10 is the binomial case):
each side's interval is recovered into the difference with the item-level correlation.
"""

from __future__ import annotations

import numpy as np
from scipy import special  # scipy.stats costs twice the import for its quantiles

from generator.stats._arrays import Bounds, FloatArray


def wilson_bounds(estimate: FloatArray, size: FloatArray, quantile: FloatArray) -> Bounds:
    """Wilson score limits for proportion ``estimate`` out of ``size``, critical value ``quantile``.

    Exact 0 and 1 are returned at the boundaries (as R's ``binom`` does) instead of
    rounding noise.
    """
    q2 = quantile * quantile
    denominator = 1.0 + q2 / size
    centre = (estimate + q2 / (2.0 * size)) / denominator
    half = quantile * np.sqrt(estimate * (1.0 - estimate) / size + q2 / (4.0 * size * size))
    half = half / denominator
    lo = np.where(estimate <= 0.0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(estimate >= 1.0, 1.0, np.clip(centre + half, 0.0, 1.0))
    return Bounds(lo=lo, hi=hi)


def item_fractions(k: FloatArray, n: FloatArray) -> FloatArray:
    """Per-item fail fractions ``k / n``."""
    return np.asarray(k / n, dtype=np.float64)


def degrees_of_freedom(x: FloatArray) -> FloatArray:
    """Moment-matched degrees of freedom of the item variance, in ``[1, I - 1]``.

    ``s**2`` behaves like a scaled chi-square with ``2I / (kurtosis - 1)`` degrees of
    freedom; for normal data that is about ``I``, for a few failing items among many
    clean ones it is about twice the number of failing items.
    """
    items = x.shape[-1]
    deviations = x - np.mean(x, axis=-1, keepdims=True)
    second = np.sum(deviations**2, axis=-1)
    fourth = np.sum(deviations**4, axis=-1)
    safe_second = np.where(second > 0.0, second, 1.0)
    kurtosis = items * fourth / (safe_second * safe_second)
    with np.errstate(divide="ignore"):
        df = np.where((second > 0.0) & (kurtosis > 1.0), 2.0 * items / (kurtosis - 1.0), np.inf)
    return np.asarray(np.clip(df, 1.0, items - 1.0), dtype=np.float64)


def effective_size(x: FloatArray, n: FloatArray) -> FloatArray:
    """Kish effective sample size of the item mean, clipped to ``[I, I**2 / sum(1/n_i)]``."""
    items = x.shape[-1]
    mean = np.mean(x, axis=-1)
    variance_of_mean = np.var(x, axis=-1, ddof=1) / items
    ceiling = items * items / np.sum(1.0 / n, axis=-1)
    bernoulli = mean * (1.0 - mean)
    safe = np.where(variance_of_mean > 0.0, variance_of_mean, 1.0)
    size = np.where(variance_of_mean > 0.0, bernoulli / safe, ceiling)
    size = np.where(bernoulli > 0.0, size, float(items))
    return np.asarray(np.clip(size, float(items), ceiling), dtype=np.float64)


def t_quantile(p: float, df: FloatArray) -> FloatArray:
    """``scipy.stats.t.ppf(p, df)``, Student's t quantile, as ``t.ppf`` computes it: with
    ``scipy.special.stdtrit`` inside (0, 1), its limits at 0 and 1, NaN for ``df <= 0``."""
    df = np.asarray(df, dtype=np.float64)
    if p <= 0.0 or p >= 1.0:  # stdtrit gives NaN at the limits t.ppf returns
        limit = -np.inf if p == 0.0 else np.inf if p == 1.0 else np.nan
        return np.asarray(np.where(df > 0.0, limit, np.nan), dtype=np.float64)
    return np.asarray(special.stdtrit(df, p), dtype=np.float64)


def deff_wilson_bounds(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """Design-effect Wilson interval for the mean item fraction, vectorised over leading axes.

    Args:
        k: Fail counts, shape ``(..., I)`` with ``I >= 2``.
        n: Draw counts (each at least 1), same shape.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The limits, each of shape ``k.shape[:-1]``.
    """
    x = item_fractions(k, n)
    quantile = t_quantile(0.5 + confidence / 2.0, degrees_of_freedom(x))
    return wilson_bounds(np.mean(x, axis=-1), effective_size(x, n), quantile)


def item_correlation(x_a: FloatArray, x_b: FloatArray) -> FloatArray:
    """Pearson correlation of paired item fractions (0 when either side is constant)."""
    da = x_a - np.mean(x_a, axis=-1, keepdims=True)
    db = x_b - np.mean(x_b, axis=-1, keepdims=True)
    denominator = np.sqrt(np.sum(da * da, axis=-1) * np.sum(db * db, axis=-1))
    safe = np.where(denominator > 0.0, denominator, 1.0)
    r = np.where(denominator > 0.0, np.sum(da * db, axis=-1) / safe, 0.0)
    return np.asarray(np.clip(r, -1.0, 1.0), dtype=np.float64)


def mover_bounds(
    estimate_a: FloatArray,
    a: Bounds,
    estimate_b: FloatArray,
    b: Bounds,
    correlation: FloatArray | float,
) -> Bounds:
    """MOVER limits for ``estimate_a - estimate_b`` from each side's own limits."""
    difference = estimate_a - estimate_b
    down_a, up_a = estimate_a - a.lo, a.hi - estimate_a
    down_b, up_b = estimate_b - b.lo, b.hi - estimate_b
    lower = down_a**2 - 2.0 * correlation * down_a * up_b + up_b**2
    upper = up_a**2 - 2.0 * correlation * up_a * down_b + down_b**2
    lo = difference - np.sqrt(np.maximum(lower, 0.0))
    hi = difference + np.sqrt(np.maximum(upper, 0.0))
    return Bounds(lo=np.clip(lo, -1.0, 1.0), hi=np.clip(hi, -1.0, 1.0))
