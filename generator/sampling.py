"""The panel sample: which judged draws the three-judge panel re-grades.

One function, used both by the example generator (to decide what the panel grades) and
by the agreement gate (to reproduce the sample from the recorded seed). Selection is by
rank of a keyed hash, so it depends only on the seed and the draws' identities — never
on file order, dictionary order or the platform.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple


class Eligible(NamedTuple):
    """A judged draw the panel may sample."""

    item: str
    half: str
    draw: int
    stratum: str
    borderline: bool
    grader_refused: bool


@dataclass(frozen=True)
class PanelSample:
    """The reproduced sample: why each draw is in it, and the stratum sizes."""

    why: dict[tuple[str, str, int], str]
    strata: dict[str, tuple[int, int]]
    """stratum -> (eligible draws, stratified draws required)."""


def _rank(seed: int, volume: str, candidate: str, item: str, half: str, draw: int) -> str:
    key = f"{seed}|{volume}|{candidate}|{item}|{half}|{draw}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def stratum_quota(size: int, fraction: Decimal) -> int:
    """Draws required from a stratum of ``size``: ceil(fraction × size)."""
    return math.ceil(Decimal(size) * fraction)


def panel_sample(
    draws: Iterable[Eligible], *, seed: int, volume: str, candidate: str, fraction: Decimal
) -> PanelSample:
    """Select the panel sample of one candidate's judged draws.

    Every stratum (the item's category) contributes ``ceil(fraction × size)`` draws, the
    ones with the smallest keyed hash; every borderline draw and every draw the grader
    refused is added whatever its rank.
    """
    by_stratum: dict[str, list[Eligible]] = defaultdict(list)
    why: dict[tuple[str, str, int], str] = {}
    for d in draws:
        by_stratum[d.stratum].append(d)
        if d.grader_refused:
            why[(d.item, d.half, d.draw)] = "grader_refused"
        elif d.borderline:
            why[(d.item, d.half, d.draw)] = "borderline"
    strata: dict[str, tuple[int, int]] = {}
    for stratum in sorted(by_stratum):
        members = by_stratum[stratum]
        quota = stratum_quota(len(members), fraction)
        strata[stratum] = (len(members), quota)
        ranked = sorted(
            members, key=lambda d: _rank(seed, volume, candidate, d.item, d.half, d.draw)
        )
        for d in ranked[:quota]:
            why.setdefault((d.item, d.half, d.draw), "stratified")
    return PanelSample(why=why, strata=strata)
