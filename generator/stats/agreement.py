"""Panel agreement (Gwet's AC1) and grader leniency.

AC1 is Gwet's (2008; 2014, ch. 5) for raw ratings with missing values, computed here in
numpy with the arithmetic of the irrCAC package (``irrCAC.raw.CAC.gwet``, the Python port
of Gwet's own R package) operation for operation, so that every number is irrCAC's to the
last bit: ``tests/stats/test_ac1_irrcac.py`` compares the two on random panels, the
published worked examples and the JailbreakBench labels, and ``tests/stats/gwet_numpy.py``
re-derives AC1 independently. Importing irrCAC (with pandas and ``scipy.stats``) cost more
than a second of every command that computes one coefficient. What follows irrCAC, and why:

* the order of every sum (element by element where irrCAC uses Python's ``sum``, numpy's
  reductions where it uses numpy's) and its rounding of every output to 17 decimals
  (numpy's ``round``): the published figures were computed that way;
* ``AC1_METHOD`` still names irrCAC: the numbers are its numbers, and a new name would make
  every published AC1 figure fail to recompute.

What irrCAC does that this module does not: it treats empty strings as missing ratings
(we refuse empty category names), silently ignores ratings outside the declared categories
(we refuse them), truncates the CI's upper limit at 1 and only accepts levels in
[0.90, 0.99] (we compute the interval from the value and standard error, with the same
Student-t on ``n - 1`` degrees of freedom via ``scipy.special.stdtrit``, which is what
``scipy.stats.t.ppf`` evaluates, clipped to AC1's range [-1, 1]), and replaces a zero
standard error by 1e-15 (we report 0).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from generator.stats._arrays import FloatArray, check_confidence
from generator.stats.errors import StatsError

AC1_METHOD = "gwet-ac1 (irrCAC, delta-method se, t on n-1 df)"
LENIENCY_METHOD = "tango-score"
_ZERO_SE = 1e-15  # irrCAC's stand-in for a standard error of exactly zero, reported as 0
_DIGITS = 17  # irrCAC rounds every output to this many decimals (``digits=17``)


@dataclass(frozen=True)
class AgreementResult:
    """Gwet's AC1 among raters, with its interval.

    Attributes:
        value: AC1, in [-1, 1].
        se: Delta-method standard error (Gwet 2008), no finite-population correction.
        ci_lo: Lower confidence limit (clipped at -1).
        ci_hi: Upper confidence limit (clipped at 1).
        n_subjects: Subjects with at least one rating (the ``n`` of the variance).
        n_raters: Rater columns in the input.
        percent_agreement: Observed agreement ``pa`` over subjects with two or more ratings.
        chance_agreement: Gwet's chance agreement ``pe``.
        confidence: Two-sided confidence level.
        method: Identifier to declare next to the figure.
    """

    value: float
    se: float
    ci_lo: float
    ci_hi: float
    n_subjects: int
    n_raters: int
    percent_agreement: float
    chance_agreement: float
    confidence: float
    method: str = AC1_METHOD


@dataclass(frozen=True)
class Leniency:
    """Grader pass share minus panel-majority pass share on the same draws, in points.

    Attributes:
        points: ``100 * (grader_pass_share - majority_pass_share)``.
        lo: Lower confidence limit, in points.
        hi: Upper confidence limit, in points.
        grader_pass_share: Share of the draws the grader passed.
        majority_pass_share: Share of the draws the panel majority passed.
        n_draws: Number of paired draws.
        confidence: Two-sided confidence level.
        method: Identifier to declare next to the figure.
    """

    points: float
    lo: float
    hi: float
    grader_pass_share: float
    majority_pass_share: float
    n_draws: int
    confidence: float
    method: str = LENIENCY_METHOD


def gwet_ac1(
    ratings: Sequence[Sequence[str | None]],
    categories: Sequence[str],
    confidence: float = 0.95,
) -> AgreementResult:
    """Gwet's AC1 for raw ratings, subjects x raters, ``None`` for a missing rating.

    Missing ratings follow Gwet (2014): agreement is averaged over subjects rated by at
    least two raters, category propensities over subjects with at least one rating;
    subjects with no rating at all are dropped.

    Degenerate cases, decided here: perfect agreement (every subject's ratings
    identical, whether or not all on one category) gives AC1 = 1 with standard error 0
    and the interval [1, 1] -- Gwet's variance is exactly zero there, and since the
    declared categories number at least two, chance agreement stays below 1 so AC1 is
    always defined. Show ``n_subjects`` next to such a figure.

    Args:
        ratings: One row per subject, one column per rater; values are category names
            or ``None``. Every row must have the same length.
        categories: The declared categories (at least 2, unique, non-empty). Categories
            nobody used still count toward chance agreement.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        AC1 with its standard error, interval and the agreement components.

    Raises:
        StatsError: Fewer than 2 raters, fewer than 2 subjects rated by at least 2 raters,
            ragged rows, unknown or empty categories, or a bad confidence level.
    """
    from scipy import special  # scipy.stats costs twice the import for this one quantile

    level = check_confidence(confidence)
    counts = _category_counts(ratings, categories)
    parts = _gwet(counts)
    se = parts.se if parts.se > _ZERO_SE else 0.0
    n_subjects = int(counts.shape[0])
    # What scipy.stats.t.ppf(q, df) returns: stdtrit(df, q) times scale 1 plus loc 0.
    half_width = float(special.stdtrit(n_subjects - 1, 0.5 + level / 2.0)) * se
    return AgreementResult(
        value=parts.value,
        se=se,
        ci_lo=max(-1.0, parts.value - half_width),
        ci_hi=min(1.0, parts.value + half_width),
        n_subjects=n_subjects,
        n_raters=len(ratings[0]),
        percent_agreement=parts.pa,
        chance_agreement=parts.pe,
        confidence=level,
    )


@dataclass(frozen=True)
class _Parts:
    """AC1, its standard error (irrCAC's 1e-15 for zero), ``pa`` and ``pe``, rounded."""

    value: float
    se: float
    pa: float
    pe: float


def _in_order(values: FloatArray) -> float:
    """The sum of ``values`` added one after another, as Python's ``sum`` adds numpy
    scalars (``np.sum`` adds pairwise, which can differ in the last bit)."""
    return float(np.add.accumulate(values)[-1]) if values.size else 0.0


def _rounded(value: float | np.float64) -> float:
    """``value`` rounded to irrCAC's 17 decimals, by numpy's rounding as irrCAC does."""
    return float(np.round(np.float64(value), _DIGITS))


def _gwet(counts: FloatArray) -> _Parts:
    """Gwet's AC1 and its delta-method variance from a subjects x categories count matrix
    (every row rated at least once), identity weights, no finite-population correction."""
    n, q = counts.shape
    raters = counts.sum(axis=1)
    agreeing = (counts * (counts - 1)).sum(axis=1)  # ordered pairs of raters that agree
    paired = raters >= 2
    n_paired = int(paired.sum())
    pa = _in_order(agreeing[paired] / (raters * (raters - 1))[paired]) / n_paired
    propensity = ((1 / n) * (counts / raters[:, np.newaxis])).T.sum(axis=1)
    scale = float(q) / (q * (q - 1))  # the identity weights sum to q
    pe = float(q) * _in_order(propensity * (1 - propensity)) / (q * (q - 1))
    ac1 = (pa - pe) / (1 - pe)
    pair_count = raters * (raters - 1)
    pa_i = agreeing / (pair_count - (pair_count == 0))
    ac1_i = (n / n_paired) * (pa_i - pe * paired) / (1 - pe)
    pe_i = scale * np.matmul(counts, 1 - propensity) / raters
    linear = ac1_i - 2 * (1 - ac1) * (pe_i - pe) / (1 - pe)
    variance = 1.0 / (n * (n - 1)) * _in_order((linear - ac1) ** 2)
    se = float(np.sqrt(variance)) or _ZERO_SE
    return _Parts(_rounded(ac1), _rounded(se), _rounded(pa), _rounded(pe))


def _category_counts(
    ratings: Sequence[Sequence[str | None]], categories: Sequence[str]
) -> FloatArray:
    """Validate raw ratings; how many raters put each rated subject in each category."""
    declared = list(categories)
    if len(declared) < 2:
        raise StatsError(f"AC1 needs at least 2 declared categories, got {len(declared)}")
    if len(set(declared)) != len(declared):
        raise StatsError("AC1 categories must be unique")
    if any(not isinstance(c, str) or c == "" for c in declared):
        raise StatsError("AC1 categories must be non-empty strings")
    width = len(ratings[0]) if len(ratings) else 0
    if width < 2:
        raise StatsError(f"AC1 needs at least 2 raters (columns), got {width}")
    column = {c: k for k, c in enumerate(declared)}
    # The rated subjects' tallies, one after another in one buffer of floats: a list and
    # float objects per subject, and a copy of every row, were held until the end.
    counts = array("d")
    paired_subjects = 0
    for s, row in enumerate(ratings):
        if len(row) != width:
            raise StatsError(f"ratings row {s} has {len(row)} raters, expected {width}")
        tally = [0.0] * len(declared)
        for r, value in enumerate(row):
            if value is None:
                continue
            if value not in column:
                raise StatsError(
                    f"ratings[{s}][{r}] = {value!r} is not a declared category {declared}"
                )
            tally[column[value]] += 1.0
        if any(tally):  # subjects nobody rated are dropped
            counts.extend(tally)
            paired_subjects += sum(tally) >= 2
    if paired_subjects < 2:
        raise StatsError(
            "AC1 needs at least 2 subjects rated by at least 2 raters, "
            f"got {paired_subjects}; publish no agreement figure for this group"
        )
    return np.frombuffer(counts, dtype=np.float64).reshape(-1, len(declared))


Verdicts = Sequence[bool] | npt.NDArray[np.bool_]


def leniencies(
    samples: Sequence[tuple[Verdicts, Verdicts]], confidence: float = 0.95
) -> list[Leniency]:
    """How much more often the grader passes a draw than the panel majority does, for
    each ``(grader_pass, majority_pass)`` sample, in one batch (Tango's bisection works
    element by element, so a sample's result does not depend on the others).

    Both verdicts of a sample are on the same sampled draws, so the difference of pass
    shares is a paired difference of proportions; its interval is Tango's score interval
    (see ``generator.stats.paired``), chosen over a paired bootstrap because it is
    deterministic and keeps near-nominal coverage when discordant draws are few. It
    treats draws as independent pairs; draws of one item share that item, so with many
    draws per item the interval can be somewhat optimistic. Drop draws with no panel
    majority before calling.

    Args:
        samples: Per sample, whether the Tier 1 grader passed each draw and whether the
            panel majority did.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        Per sample, the leniency in points with its interval and both pass shares.

    Raises:
        StatsError: For the first sample whose inputs are of different lengths, empty,
            or not booleans.
    """
    level = check_confidence(confidence)
    checked = [_paired_verdicts(grader, majority) for grader, majority in samples]
    if not checked:
        return []
    total = np.array([float(grader.size) for grader, _ in checked])
    n12 = np.array([float(np.sum(grader & ~majority)) for grader, majority in checked])
    n21 = np.array([float(np.sum(~grader & majority)) for grader, majority in checked])
    from generator.stats import paired

    bounds = paired.tango_bounds(n12, n21, total, level)
    return [
        Leniency(
            points=100.0 * float((n12[i] - n21[i]) / total[i]),
            lo=100.0 * float(bounds.lo[i]),
            hi=100.0 * float(bounds.hi[i]),
            grader_pass_share=float(np.mean(grader)),
            majority_pass_share=float(np.mean(majority)),
            n_draws=int(grader.size),
            confidence=level,
        )
        for i, (grader, majority) in enumerate(checked)
    ]


def _paired_verdicts(
    grader_pass: Verdicts, majority_pass: Verdicts
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Both verdict lists as bool arrays of one non-zero length."""
    grader = _bools(grader_pass, "grader_pass")
    majority = _bools(majority_pass, "majority_pass")
    if grader.size != majority.size:
        raise StatsError(
            f"leniency: {grader.size} grader verdicts but {majority.size} majority verdicts"
        )
    if grader.size == 0:
        raise StatsError("leniency needs at least one draw")
    return grader, majority


def _bools(values: Sequence[bool] | npt.NDArray[np.bool_], name: str) -> npt.NDArray[np.bool_]:
    """Return ``values`` as a 1-D bool array, refusing anything that is not a bool."""
    array = np.asarray(values)
    if array.ndim != 1 or (array.size > 0 and array.dtype != np.bool_):
        raise StatsError(f"leniency: {name} must be a 1-D sequence of booleans")
    return array.astype(np.bool_)
