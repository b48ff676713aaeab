"""Panel agreement (Gwet's AC1) and grader leniency.

AC1 is computed with the irrCAC package (``irrCAC.raw.CAC``), the Python port of Gwet's
own R package; ``tests/stats/gwet_numpy.py`` re-derives it independently for the tests.
Things irrCAC does that this module deliberately undoes or guards against:

* it rounds every output to 5 digits unless ``digits`` is raised (we ask for 17);
* it treats empty strings as missing ratings (we refuse empty category names);
* it silently ignores ratings outside the declared categories (we refuse them);
* it truncates the CI's upper limit at 1 and only accepts levels in [0.90, 0.99] (we
  compute the interval ourselves from its value and standard error, with the same
  Student-t on ``n - 1`` degrees of freedom, clipped to AC1's range [-1, 1]);
* it replaces a zero standard error by 1e-15 (we report 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from generator.stats._arrays import check_confidence
from generator.stats.errors import StatsError

if TYPE_CHECKING:
    import pandas as pd

AC1_METHOD = "gwet-ac1 (irrCAC, delta-method se, t on n-1 df)"
LENIENCY_METHOD = "tango-score"
_IRRCAC_ZERO_SE = 1e-15  # irrCAC's stand-in for a standard error of exactly zero


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
    from irrCAC.raw import CAC  # with pandas and SciPy, costly imports only AC1 needs
    from scipy import stats

    level = check_confidence(confidence)
    frame = _ratings_frame(ratings, categories)
    raw = CAC(frame, weights="identity", categories=list(categories), digits=17).gwet()["est"]
    value = float(raw["coefficient_value"])
    se = float(raw["se"])
    if se <= _IRRCAC_ZERO_SE:
        se = 0.0
    n_subjects = int(frame.shape[0])
    half_width = float(stats.t.ppf(0.5 + level / 2.0, n_subjects - 1)) * se
    return AgreementResult(
        value=value,
        se=se,
        ci_lo=max(-1.0, value - half_width),
        ci_hi=min(1.0, value + half_width),
        n_subjects=n_subjects,
        n_raters=frame.shape[1],
        percent_agreement=float(raw["pa"]),
        chance_agreement=float(raw["pe"]),
        confidence=level,
    )


def _ratings_frame(
    ratings: Sequence[Sequence[str | None]], categories: Sequence[str]
) -> pd.DataFrame:
    """Validate raw ratings and return them as an object DataFrame with NaN for missing."""
    declared = list(categories)
    if len(declared) < 2:
        raise StatsError(f"AC1 needs at least 2 declared categories, got {len(declared)}")
    if len(set(declared)) != len(declared):
        raise StatsError("AC1 categories must be unique")
    if any(not isinstance(c, str) or c == "" for c in declared):
        raise StatsError("AC1 categories must be non-empty strings (irrCAC reads '' as missing)")
    rows = [list(row) for row in ratings]
    width = len(rows[0]) if rows else 0
    if width < 2:
        raise StatsError(f"AC1 needs at least 2 raters (columns), got {width}")
    known = set(declared)
    for s, row in enumerate(rows):
        if len(row) != width:
            raise StatsError(f"ratings row {s} has {len(row)} raters, expected {width}")
        for r, value in enumerate(row):
            if value is not None and value not in known:
                raise StatsError(
                    f"ratings[{s}][{r}] = {value!r} is not a declared category {declared}"
                )
    paired_subjects = sum(1 for row in rows if sum(v is not None for v in row) >= 2)
    if paired_subjects < 2:
        raise StatsError(
            "AC1 needs at least 2 subjects rated by at least 2 raters, "
            f"got {paired_subjects}; publish no agreement figure for this group"
        )
    import pandas as pd

    # Subjects nobody rated are dropped here rather than by irrCAC, whose own dropna
    # triggers a pandas SettingWithCopyWarning.
    data = [
        [np.nan if v is None else v for v in row] for row in rows if any(v is not None for v in row)
    ]
    return pd.DataFrame(data, dtype=object)


def leniency(
    grader_pass: Sequence[bool] | npt.NDArray[np.bool_],
    majority_pass: Sequence[bool] | npt.NDArray[np.bool_],
    confidence: float = 0.95,
) -> Leniency:
    """How much more often the grader passes a draw than the panel majority does.

    Both verdicts are on the same sampled draws, so the difference of pass shares is a
    paired difference of proportions; its interval is Tango's score interval (see
    ``generator.stats.paired``), chosen over a paired bootstrap because it is
    deterministic and keeps near-nominal coverage when discordant draws are few. It
    treats draws as independent pairs; draws of one item share that item, so with many
    draws per item the interval can be somewhat optimistic. Drop draws with no panel
    majority before calling.

    Args:
        grader_pass: Per draw, whether the Tier 1 grader passed it.
        majority_pass: Per draw, whether the panel majority passed it.
        confidence: Two-sided confidence level in (0, 1).

    Returns:
        The leniency in points with its interval and both pass shares.

    Raises:
        StatsError: Inputs of different lengths, empty, or not booleans.
    """
    level = check_confidence(confidence)
    grader = _bools(grader_pass, "grader_pass")
    majority = _bools(majority_pass, "majority_pass")
    if grader.size != majority.size:
        raise StatsError(
            f"leniency: {grader.size} grader verdicts but {majority.size} majority verdicts"
        )
    if grader.size == 0:
        raise StatsError("leniency needs at least one draw")
    total = np.asarray(float(grader.size))
    n12 = np.asarray(float(np.sum(grader & ~majority)))
    n21 = np.asarray(float(np.sum(~grader & majority)))
    from generator.stats import paired

    bounds = paired.tango_bounds(n12, n21, total, level)
    return Leniency(
        points=100.0 * float((n12 - n21) / total),
        lo=100.0 * float(bounds.lo),
        hi=100.0 * float(bounds.hi),
        grader_pass_share=float(np.mean(grader)),
        majority_pass_share=float(np.mean(majority)),
        n_draws=int(grader.size),
        confidence=level,
    )


def _bools(values: Sequence[bool] | npt.NDArray[np.bool_], name: str) -> npt.NDArray[np.bool_]:
    """Return ``values`` as a 1-D bool array, refusing anything that is not a bool."""
    array = np.asarray(values)
    if array.ndim != 1 or (array.size > 0 and array.dtype != np.bool_):
        raise StatsError(f"leniency: {name} must be a 1-D sequence of booleans")
    return array.astype(np.bool_)
