"""Gwet's AC1 from first principles in numpy: the cross-check for the irrCAC path.

Follows Gwet (2008, British Journal of Mathematical and Statistical Psychology 61:29-48)
and Gwet (2014, Handbook of Inter-Rater Reliability, 4th ed., ch. 5) for raw ratings with
missing values: percent agreement is averaged over subjects rated by at least two raters,
category propensities over subjects with at least one rating, and the variance is the
linearised (delta-method) one with no finite-population correction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from generator.stats._arrays import FloatArray


@dataclass(frozen=True)
class Ac1Parts:
    """AC1 with its pieces: value, standard error, agreement and chance agreement."""

    value: float
    se: float
    pa: float
    pe: float
    n_subjects: int


def category_counts(
    ratings: Sequence[Sequence[str | None]], categories: Sequence[str]
) -> FloatArray:
    """Subjects x categories matrix: how many raters put each subject in each category."""
    index = {category: column for column, category in enumerate(categories)}
    counts = np.zeros((len(ratings), len(index)), dtype=np.float64)
    for subject, row in enumerate(ratings):
        for value in row:
            if value is not None:
                counts[subject, index[value]] += 1.0
    return counts


def gwet_ac1_numpy(counts: FloatArray) -> Ac1Parts:
    """AC1 from a subjects x categories count matrix (rows with no rating are dropped)."""
    counts = counts[np.sum(counts, axis=1) > 0]
    n, q = counts.shape
    raters = np.sum(counts, axis=1)
    multi = raters >= 2
    pairs = np.where(multi, raters * (raters - 1.0), 1.0)
    agreement_i = np.where(multi, np.sum(counts * (counts - 1.0), axis=1) / pairs, 0.0)
    pa = float(np.sum(agreement_i) / np.sum(multi))
    propensity = np.mean(counts / raters[:, None], axis=0)
    pe = float(np.sum(propensity * (1.0 - propensity)) / (q - 1))
    value = (pa - pe) / (1.0 - pe)
    # Per-subject linearised contributions (Gwet 2014, eq. 5.4.5 family).
    ac1_i = (n / np.sum(multi)) * (agreement_i - pe * multi) / (1.0 - pe)
    pe_i = (counts / raters[:, None]) @ (1.0 - propensity) / (q - 1)
    ac1_star = ac1_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)
    variance = float(np.sum((ac1_star - value) ** 2) / (n * (n - 1.0)))
    return Ac1Parts(value=value, se=float(np.sqrt(variance)), pa=pa, pe=pe, n_subjects=n)
