"""The plain Holm procedure on the paired narrow intervals, as ``holm_separations`` ran
it before issue 19: every pair not yet separated is evaluated in full at every step.
The published function must decide exactly as this one does (``test_holm_screening``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from generator.stats._arrays import ArrayLike
from generator.stats.differences import narrow_differences

Decision = tuple[str, str, float, float, float, int]
"""better, worse, difference, upper limit, level, items."""


def plain_holm(
    counts: Mapping[str, tuple[ArrayLike, ArrayLike]], familywise_confidence: float
) -> list[Decision]:
    """Separated pairs, sorted by (better, worse), from full intervals at every step."""
    alpha = 1.0 - familywise_confidence
    names = sorted(counts)
    arrays = {
        name: (np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
        for name, (k, n) in counts.items()
    }
    pairs = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            (k_a, n_a), (k_b, n_b) = arrays[first], arrays[second]
            both = (n_a > 0) & (n_b > 0)
            if both.any():
                pairs.append(((first, second), (k_a[both], n_a[both], k_b[both], n_b[both])))
    found: list[Decision] = []
    while pairs:
        level = 1.0 - alpha / len(pairs)
        intervals = narrow_differences([sides for _, sides in pairs], paired=True, confidence=level)
        kept = []
        for ((first, second), sides), iv in zip(pairs, intervals, strict=True):
            items = len(sides[0])
            if iv.hi < 0.0:
                found.append((first, second, iv.estimate, iv.hi, level, items))
            elif iv.lo > 0.0:
                found.append((second, first, -iv.estimate, -iv.lo, level, items))
            else:
                kept.append(((first, second), sides))
        if len(kept) == len(pairs):
            break
        pairs = kept
    return sorted(found, key=lambda s: (s[0], s[1]))
