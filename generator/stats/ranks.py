"""Rank ranges: the best and worst rank a candidate's interval allows, and tie groups.

Lower failure rate is better. Candidate ``j`` is *clearly better* than ``i`` when ``j``'s
whole interval lies below ``i``'s (``hi_j < lo_i``; touching intervals overlap). Then

* ``best = 1 + #candidates clearly better``,
* ``worst = N - #candidates clearly worse``,
* tie groups are the connected components of the overlap relation, numbered 1, 2, ...
  from the lowest estimates up.

Two candidates whose intervals overlap always get rank ranges that overlap too, so a
leaderboard built from these never prints a strict order the intervals do not support.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from generator.stats.errors import StatsError


@dataclass(frozen=True)
class RankRange:
    """One candidate's place on the leaderboard.

    Attributes:
        name: The candidate's name, as given.
        best: Best rank its interval allows (1 = lowest failure rate).
        worst: Worst rank its interval allows.
        tie_group: Number of its overlap component, 1 for the group with the lowest rates.
    """

    name: str
    best: int
    worst: int
    tie_group: int


def rank_ranges(
    estimates: Sequence[float],
    lo: Sequence[float],
    hi: Sequence[float],
    names: Sequence[str],
) -> list[RankRange]:
    """Rank ranges and tie groups from each candidate's estimate and interval.

    Args:
        estimates: Point estimates (failure rates), one per candidate.
        lo: Lower interval limits.
        hi: Upper interval limits.
        names: Unique candidate names.

    Returns:
        One ``RankRange`` per candidate, in input order. The result for a name does not
        depend on the order of the inputs.

    Raises:
        StatsError: Lengths differ, names repeat, a value is not finite, or an estimate
            lies outside its interval.
    """
    _check(estimates, lo, hi, names)
    count = len(names)
    better = [sum(1 for j in range(count) if hi[j] < lo[i]) for i in range(count)]
    worse = [sum(1 for j in range(count) if hi[i] < lo[j]) for i in range(count)]
    groups = _tie_groups(lo, hi, estimates, names)
    return [
        RankRange(name=names[i], best=1 + better[i], worst=count - worse[i], tie_group=groups[i])
        for i in range(count)
    ]


def _tie_groups(
    lo: Sequence[float], hi: Sequence[float], estimates: Sequence[float], names: Sequence[str]
) -> list[int]:
    """Component number of each candidate; components are runs of a sweep sorted by ``lo``."""
    # Intervals on a line: sorting by lower limit, a new component starts whenever the next
    # interval begins above everything seen so far. Ties in the key are broken by name so
    # the sweep is the same for every input order.
    order = sorted(range(len(names)), key=lambda i: (lo[i], hi[i], estimates[i], names[i]))
    groups = [0] * len(names)
    group = 0
    reach = -math.inf
    for i in order:
        if group == 0 or lo[i] > reach:
            group += 1
            reach = hi[i]
        else:
            reach = max(reach, hi[i])
        groups[i] = group
    return groups


def _check(
    estimates: Sequence[float], lo: Sequence[float], hi: Sequence[float], names: Sequence[str]
) -> None:
    """Refuse inputs a rank range cannot be built from."""
    if not len(estimates) == len(lo) == len(hi) == len(names):
        raise StatsError(
            f"rank_ranges: got {len(estimates)} estimates, {len(lo)} lower limits, "
            f"{len(hi)} upper limits and {len(names)} names; they must match"
        )
    if len(set(names)) != len(names):
        raise StatsError("rank_ranges: candidate names must be unique")
    for name, e, low, high in zip(names, estimates, lo, hi, strict=True):
        if not all(math.isfinite(v) for v in (e, low, high)):
            raise StatsError(f"rank_ranges: {name}: estimate and limits must be finite")
        if not low <= e <= high:
            raise StatsError(
                f"rank_ranges: {name}: estimate {e!r} lies outside its interval [{low!r}, {high!r}]"
            )
