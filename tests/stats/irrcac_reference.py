"""Gwet's AC1 as irrCAC computes it: the reference ``generator.stats.gwet_ac1`` must equal.

This is how ``gwet_ac1`` computed AC1 before it did so itself: irrCAC's ``CAC.gwet`` on
an object DataFrame (NaN for a missing rating, subjects nobody rated dropped), 17 digits,
and the interval from its value and standard error with ``scipy.stats.t.ppf`` on
``n - 1`` degrees of freedom, clipped to [-1, 1]. Test-only: irrCAC, pandas and
``scipy.stats`` are dev dependencies of the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from irrCAC.raw import CAC
from scipy import stats

from generator.stats import AgreementResult


def irrcac_ac1(
    ratings: Sequence[Sequence[str | None]], categories: Sequence[str], confidence: float = 0.95
) -> AgreementResult:
    """AC1 with its interval, every number from irrCAC and ``scipy.stats``."""
    data = [
        [np.nan if v is None else v for v in row]
        for row in ratings
        if any(v is not None for v in row)
    ]
    frame = pd.DataFrame(data, dtype=object)
    raw = CAC(frame, weights="identity", categories=list(categories), digits=17).gwet()["est"]
    value = float(raw["coefficient_value"])
    se = float(raw["se"])
    if se <= 1e-15:  # irrCAC's stand-in for zero
        se = 0.0
    n = int(frame.shape[0])
    half_width = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * se
    return AgreementResult(
        value=value,
        se=se,
        ci_lo=max(-1.0, value - half_width),
        ci_hi=min(1.0, value + half_width),
        n_subjects=n,
        n_raters=frame.shape[1],
        percent_agreement=float(raw["pa"]),
        chance_agreement=float(raw["pe"]),
        confidence=confidence,
    )
