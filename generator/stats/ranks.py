"""Rank ranges: the best and worst rank the comparisons allow (and, by overlap, tie groups).

Lower failure rate is better. Two rules, the volume declares which
(``thresholds.ranking``):

**Paired comparisons** (``paired_rank_ranges``, ``paired-holm``): the pairs that
``generator.stats.paired.holm_separations`` separates, all true at once with the declared
family-wise confidence. Then

* ``best = 1 + #candidates significantly better``,
* ``worst = N - #candidates significantly worse``,

and there are no tie groups: "not separated" is not transitive (A and B may each be
inseparable from C and yet separable from each other), so no partition of the candidates
can say "no order within a group" and be true. If every claimed order holds, every
candidate's true rank lies in its range. Two candidates that are not separated always get
ranges that overlap unless the claimed orders through a third candidate imply their order.

**Overlapping intervals** (``rank_ranges``, volumes that declare no rule, which keep their
published figures): candidate ``j`` is *clearly better* than ``i`` when ``j``'s
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
from typing import TYPE_CHECKING

from generator.stats.errors import StatsError

if TYPE_CHECKING:
    from generator.stats.paired import Separation


@dataclass(frozen=True)
class RankRange:
    """One candidate's place on the leaderboard.

    Attributes:
        name: The candidate's name, as given.
        best: Best rank its interval allows (1 = lowest failure rate).
        worst: Worst rank its interval allows.
        tie_group: Number of its overlap component, 1 for the group with the lowest rates
            (None under paired comparisons, which define no tie groups).
    """

    name: str
    best: int
    worst: int
    tie_group: int | None


def paired_rank_ranges(names: Sequence[str], separations: Sequence[Separation]) -> list[RankRange]:
    """Rank ranges from the pairs the paired comparisons separate.

    Args:
        names: Unique candidate names.
        separations: The separated pairs (``holm_separations``), each naming two of
            ``names``; a pair may appear once.

    Returns:
        One ``RankRange`` per name, in input order, without a tie group.

    Raises:
        StatsError: Names repeat, a separation names an unknown candidate or itself, or
            a pair appears twice.
    """
    if len(set(names)) != len(names):
        raise StatsError("paired_rank_ranges: candidate names must be unique")
    known = set(names)
    better = dict.fromkeys(names, 0)
    worse = dict.fromkeys(names, 0)
    seen: set[frozenset[str]] = set()
    for s in separations:
        pair = frozenset((s.better, s.worse))
        if not {s.better, s.worse} <= known or len(pair) != 2 or pair in seen:
            raise StatsError(
                f"paired_rank_ranges: separation {s.better} < {s.worse} names an unknown "
                "candidate, the same candidate twice, or a pair already separated"
            )
        seen.add(pair)
        better[s.worse] += 1
        worse[s.better] += 1
    count = len(names)
    return [RankRange(n, 1 + better[n], count - worse[n], None) for n in names]


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
