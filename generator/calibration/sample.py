"""Draw a volume's calibration sample: which graded draws the humans grade.

The declaration (``calibration:`` in ``volume.yaml``) says how many draws, of how many
candidates, and what share must be judged failures of the over-sampled categories; the
agreement gate checks a sample against it (``generator.calibration.design``). This module
draws one that meets it, from the calibrated judge's grades, with a seeded generator so
the same bundles and seed give the same sample:

1. the over-sample first: ``ceil(min_share × draws)`` draws the judge rejected in the
   over-sampled categories (all of them when there are fewer);
2. the rest spread evenly over the bank versions that added the items (each version's
   units are judged on their own), and within a version evenly over its categories (a
   stratum with too few draws gives its share to the others);
3. within each stratum, candidates take turns, so every candidate is in the sample as
   soon as there are as many draws as candidates.

Each sampled draw becomes one unit per criterion it was graded on: the pass/fail verdict,
or each rubric line. ``probepress sample VOLUME --calibration`` lists the units for the
humans to grade.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from generator.models.calibration import ACCEPT, CalibrationSet, CriterionType
from generator.models.records import Verdict
from generator.models.volume import Volume

CRITERION: dict[str, CriterionType] = {
    "must_include": "must-include",
    "must_not_include": "must-not",
    "should_include": "should",
}
"""The criterion type of each rubric line kind."""


@dataclass(frozen=True)
class Unit:
    """One criterion of a graded draw, with the judge's label."""

    criterion: CriterionType
    line: str | None
    label: str


@dataclass(frozen=True)
class Graded:
    """A draw the calibrated judge graded, as the sampler sees it."""

    candidate: str
    item: str
    half: str
    draw: int
    category: str
    units: tuple[Unit, ...]
    version: str = ""
    """The bank version that added the item (the calibration rule judges each version's
    units on their own: ``generator.calibration.versions``)."""

    @property
    def rejected(self) -> bool:
        """Whether the judge rejected the draw on any unit."""
        return any(u.label != ACCEPT[u.criterion] for u in self.units)


def graded(candidate: str, verdict: Verdict, category: str, version: str) -> Graded:
    """The draw of one pass/fail or rubric verdict row of the calibrated judge, of an
    item of ``category`` that bank ``version`` added."""
    units: tuple[Unit, ...]
    if verdict.rubric is not None:
        units = tuple(
            Unit(CRITERION[g.kind], g.line, "yes" if g.met else "no") for g in verdict.rubric.lines
        )
    else:
        units = (Unit("pass-fail", None, verdict.verdict),)
    return Graded(candidate, verdict.item, verdict.half, verdict.draw, category, units, version)


def calibration_seed(volume: Volume) -> str:
    """The sample's seed: the volume's pre-registered sample seed, for calibration."""
    return f"{volume.thresholds.sample_seed}:{volume.id}:calibration"


def eligible(verdict: Verdict, judge: str) -> bool:
    """Whether a verdict row is a judged grade of ``judge`` the sample may use."""
    return verdict.tier == 1 and verdict.grader == judge and verdict.verdict in ("pass", "fail")


def _taking_turns(draws: Sequence[Graded], k: int, rng: random.Random) -> list[Graded]:
    """``k`` of ``draws`` (all when fewer), candidates in a shuffled order taking turns,
    each candidate's draws in a shuffled order."""
    by_candidate: dict[str, list[Graded]] = defaultdict(list)
    for d in draws:
        by_candidate[d.candidate].append(d)
    queues = [by_candidate[c] for c in sorted(by_candidate)]
    rng.shuffle(queues)
    for queue in queues:
        rng.shuffle(queue)
    out: list[Graded] = []
    while len(out) < k and any(queues):
        for queue in queues:
            if queue and len(out) < k:
                out.append(queue.pop())
    return out


def _shares(total: int, sizes: Mapping[str, int]) -> dict[str, int]:
    """``total`` spread evenly over the strata, none given more than it has, the rest
    passed on to those with more."""
    shares = dict.fromkeys(sizes, 0)
    left = total
    open_ = sorted(sizes)
    while left > 0 and open_:
        each, extra = divmod(left, len(open_))
        for n, name in enumerate(open_):
            give = min(each + (1 if n < extra else 0), sizes[name] - shares[name])
            shares[name] += give
            left -= give
        open_ = [name for name in open_ if shares[name] < sizes[name]]
    return shares


def draw_sample(decl: CalibrationSet, pool: Iterable[Graded], seed: str) -> list[Graded]:
    """The calibration sample of ``decl`` from the judge's graded draws, in a fixed order
    (candidate, item, half, draw)."""
    rng = random.Random(seed)
    draws = sorted(pool, key=lambda d: (d.candidate, d.item, d.half, d.draw))
    wanted = set(decl.oversample.categories)
    failures = [d for d in draws if d.category in wanted and d.rejected]
    quota = math.ceil(float(decl.oversample.min_share) * decl.draws)
    chosen = _taking_turns(failures, quota, rng)
    taken = set(map(id, chosen))
    strata: dict[str, dict[str, list[Graded]]] = defaultdict(lambda: defaultdict(list))
    for d in draws:
        if id(d) not in taken:
            strata[d.version][d.category].append(d)
    per_version = _shares(
        decl.draws - len(chosen),
        {v: sum(map(len, cats.values())) for v, cats in strata.items()},
    )
    for version in sorted(strata):
        cats = strata[version]
        shares = _shares(per_version[version], {c: len(ds) for c, ds in cats.items()})
        for category in sorted(cats):
            chosen += _taking_turns(cats[category], shares[category], rng)
    return sorted(chosen, key=lambda d: (d.candidate, d.item, d.half, d.draw))
