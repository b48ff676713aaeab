"""One-row forms of the package's batched statistics, for tests that check one case.

The package computes leniencies and contamination gaps only in batches
(``generator.stats.agreement.leniencies``, ``generator.stats.gap.contamination_gaps``);
a single case is the batch of one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from generator.stats.agreement import Leniency, leniencies
from generator.stats.gap import Gap, Stratum, contamination_gaps


def leniency(
    grader_pass: Sequence[bool] | npt.NDArray[np.bool_],
    majority_pass: Sequence[bool] | npt.NDArray[np.bool_],
    confidence: float = 0.95,
) -> Leniency:
    """``leniencies`` of one sample."""
    return leniencies([(grader_pass, majority_pass)], confidence)[0]


def contamination_gap(strata: Sequence[Stratum], confidence: float = 0.95) -> Gap:
    """``contamination_gaps`` of one candidate."""
    return contamination_gaps([strata], confidence)[0]
