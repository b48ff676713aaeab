"""Cohen's κ between two raters, and a judge's error rates against a reference.

Both are the statistics of judge calibration (DESIGN §12): a judge's labels against each
human's and against the human consensus, and the humans' against each other.

κ's interval uses the large-sample standard error of Fleiss, Cohen and Everitt (1969),
the variance of κ when it is not zero (not Cohen's 1960 null-hypothesis variance, which
is only right for testing κ = 0), with a normal quantile, clipped to κ's range [-1, 1].
The error rates carry Wilson intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from generator.stats._arrays import check_confidence
from generator.stats.errors import StatsError
from generator.stats.intervals import wilson

KAPPA_METHOD = "cohen-kappa (Fleiss-Cohen-Everitt 1969 large-sample se, normal quantile)"
RATE_METHOD = "wilson"


@dataclass(frozen=True)
class Kappa:
    """Cohen's κ of two raters over the units both rated.

    Attributes:
        value: κ, or None when it is undefined (chance agreement is 1: both raters gave
            one and the same label to every unit).
        se: Large-sample standard error (0 when undefined or when agreement is perfect).
        ci_lo: Lower confidence limit (clipped at -1; None when κ is undefined).
        ci_hi: Upper confidence limit (clipped at 1; None when κ is undefined).
        observed: Observed agreement: the share of units given the same label.
        chance: Agreement expected by chance from the two raters' label shares.
        n: Units rated by both raters.
        confidence: Two-sided confidence level.
        method: Identifier to declare next to the figure.
    """

    value: float | None
    se: float
    ci_lo: float | None
    ci_hi: float | None
    observed: float
    chance: float
    n: int
    confidence: float
    method: str = KAPPA_METHOD


@dataclass(frozen=True)
class Share:
    """A share ``k / n`` with its Wilson interval (all None when ``n`` is 0)."""

    k: int
    n: int
    value: float | None
    lo: float | None
    hi: float | None
    method: str = RATE_METHOD


@dataclass(frozen=True)
class ErrorRates:
    """A judge's errors against a reference (the human consensus), ``accept`` being the
    label that lets an answer through (``pass``; ``no`` on a must-not line).

    Attributes:
        false_accept: Of the units the reference rejected, the share the judge accepted.
        false_reject: Of the units the reference accepted, the share the judge rejected.
    """

    false_accept: Share
    false_reject: Share


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + check_confidence(confidence) / 2.0)


def _table(a: Sequence[str], b: Sequence[str], categories: Sequence[str]) -> list[list[float]]:
    """Joint proportions ``p[i][j]`` (rater a gave category i, rater b category j)."""
    if len(a) != len(b):
        raise StatsError(f"the two raters label {len(a)} and {len(b)} units; pair them first")
    if len(set(categories)) != len(categories) or len(categories) < 2:
        raise StatsError("Cohen's kappa needs at least two distinct categories")
    if not a:
        raise StatsError("Cohen's kappa needs at least one unit rated by both raters")
    index = {c: i for i, c in enumerate(categories)}
    counts = [[0] * len(categories) for _ in categories]
    for x, y in zip(a, b, strict=True):
        if x not in index or y not in index:
            raise StatsError(f"label {x if x not in index else y!r} is not a declared category")
        counts[index[x]][index[y]] += 1
    n = len(a)
    return [[c / n for c in row] for row in counts]


def _fce_variance(p: list[list[float]], kappa: float, chance: float, n: int) -> float:
    """Fleiss, Cohen and Everitt's (1969) large-sample variance of κ."""
    k = range(len(p))
    rows = [sum(p[i]) for i in k]
    cols = [sum(p[i][j] for i in k) for j in k]
    q = 1.0 - kappa
    diagonal = sum(p[i][i] * (1.0 - (rows[i] + cols[i]) * q) ** 2 for i in k)
    off = q * q * sum(p[i][j] * (cols[i] + rows[j]) ** 2 for i in k for j in k if i != j)
    total = diagonal + off - (kappa - chance * q) ** 2
    return max(total, 0.0) / (n * (1.0 - chance) ** 2)


def cohen_kappa(
    a: Sequence[str], b: Sequence[str], categories: Sequence[str], confidence: float = 0.95
) -> Kappa:
    """Cohen's κ of two raters' labels on the same units, with its interval.

    Args:
        a: Rater a's label of each unit.
        b: Rater b's label of the same units, in the same order.
        categories: The declared labels (at least two); unused ones count for nothing.
        confidence: Two-sided confidence level in (0, 1).

    Raises:
        StatsError: Unpaired or empty input, an undeclared label, or a bad level.
    """
    z = _z(confidence)
    p = _table(a, b, categories)
    k = range(len(p))
    observed = sum(p[i][i] for i in k)
    chance = sum(sum(p[i]) * sum(p[j][i] for j in k) for i in k)
    n = len(a)
    if chance >= 1.0 - 1e-12:
        return Kappa(None, 0.0, None, None, observed, chance, n, confidence)
    value = (observed - chance) / (1.0 - chance)
    se = math.sqrt(_fce_variance(p, value, chance, n))
    lo, hi = max(-1.0, value - z * se), min(1.0, value + z * se)
    return Kappa(value, se, lo, hi, observed, chance, n, confidence)


def share(k: int, n: int, confidence: float = 0.95) -> Share:
    """``k / n`` with its Wilson score interval."""
    if n == 0:
        return Share(0, 0, None, None, None)
    iv = wilson(k, n, confidence)
    return Share(k, n, iv.estimate, iv.lo, iv.hi)


def error_rates(
    judge: Sequence[bool], reference: Sequence[bool], confidence: float = 0.95
) -> ErrorRates:
    """False-accept and false-reject rates of ``judge`` against ``reference``.

    Args:
        judge: Whether the judge accepted each unit.
        reference: Whether the reference (human consensus) accepted the same unit.
        confidence: Two-sided level of the Wilson intervals.
    """
    if len(judge) != len(reference):
        raise StatsError("the judge and the reference label different numbers of units")
    rejected = [j for j, r in zip(judge, reference, strict=True) if not r]
    accepted = [j for j, r in zip(judge, reference, strict=True) if r]
    return ErrorRates(
        false_accept=share(sum(rejected), len(rejected), confidence),
        false_reject=share(len(accepted) - sum(accepted), len(accepted), confidence),
    )
