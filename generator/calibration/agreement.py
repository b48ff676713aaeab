"""Judge–human and human–human agreement on a calibration set, per criterion type.

Units are grouped by their criterion type (``pass-fail``, ``must-include``, ``must-not``,
``should``: any string the records carry, so a new type needs no change here). Within a
type: Cohen's κ with its interval for every pair of humans and every judge–human pair on
the units both graded; each judge against the human consensus (the majority of the
humans who graded the unit; a tie leaves the unit without consensus, counted and left
out) with κ, Gwet's AC1, observed agreement and false-accept and false-reject rates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from generator.models.calibration import ACCEPT, CRITERION_LABELS, CalibrationRecord
from generator.stats.errors import StatsError
from generator.stats.kappa import ErrorRates, Kappa, cohen_kappa, error_rates

Grades = Mapping[str, str]
"""One unit's labels by rater key."""


@dataclass(frozen=True)
class Pair:
    """Cohen's κ of two raters over the units both graded (None: no such unit)."""

    a: str
    b: str
    kappa: Kappa | None


@dataclass(frozen=True)
class AC1:
    """Gwet's AC1 of a judge and the consensus, with its interval."""

    value: float
    ci_lo: float
    ci_hi: float


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge on one criterion type.

    Attributes:
        judge: The judge's rater key.
        consensus: κ (with observed agreement) against the human consensus.
        ac1: Gwet's AC1 against the consensus (None when it cannot be computed).
        errors: False-accept and false-reject rates against the consensus.
        humans: κ against each human, in declared order.
    """

    judge: str
    consensus: Kappa | None
    ac1: AC1 | None
    errors: ErrorRates
    humans: tuple[Pair, ...]


@dataclass(frozen=True)
class CriterionAgreement:
    """Agreement on the units of one criterion type.

    Attributes:
        criterion: The criterion type.
        units: Units of this type.
        no_consensus: Units whose humans tied (left out of every consensus statistic).
        humans: κ of every pair of humans.
        judges: Each judge's agreement, in declared order.
    """

    criterion: str
    units: int
    no_consensus: int
    humans: tuple[Pair, ...]
    judges: tuple[JudgeAgreement, ...]


def consensus(grades: Grades, humans: Sequence[str]) -> str | None:
    """The majority label of the humans who graded the unit; None on a tie."""
    counts = Counter(grades[h] for h in humans if h in grades)
    ranked = counts.most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def _pair(units: Sequence[Grades], a: str, b: str, labels: Sequence[str], level: float) -> Pair:
    both = [u for u in units if a in u and b in u]
    if not both:
        return Pair(a, b, None)
    return Pair(a, b, cohen_kappa([u[a] for u in both], [u[b] for u in both], labels, level))


def _ac1(judge: list[str], reference: list[str], labels: Sequence[str], level: float) -> AC1 | None:
    from generator.stats.agreement import gwet_ac1  # imports scipy.special: used here only

    try:
        result = gwet_ac1(list(zip(judge, reference, strict=True)), labels, level)
    except StatsError:
        return None
    return AC1(result.value, result.ci_lo, result.ci_hi)


def _judge(
    units: Sequence[Grades],
    agreed: Sequence[str | None],
    judge: str,
    criterion: str,
    humans: Sequence[str],
    level: float,
) -> JudgeAgreement:
    labels = CRITERION_LABELS[criterion]
    accept = ACCEPT[criterion]
    paired = [(u[judge], c) for u, c in zip(units, agreed, strict=True) if judge in u and c]
    mine, theirs = [p[0] for p in paired], [p[1] for p in paired]
    return JudgeAgreement(
        judge=judge,
        consensus=cohen_kappa(mine, theirs, labels, level) if paired else None,
        ac1=_ac1(mine, theirs, labels, level) if len(paired) >= 2 else None,
        errors=error_rates([m == accept for m in mine], [t == accept for t in theirs], level),
        humans=tuple(_pair(units, judge, h, labels, level) for h in humans),
    )


def criterion_agreement(
    criterion: str,
    units: Sequence[Grades],
    humans: Sequence[str],
    judges: Sequence[str],
    confidence: float = 0.95,
) -> CriterionAgreement:
    """Agreement on the ``units`` of one criterion type (labels by rater key)."""
    labels = CRITERION_LABELS[criterion]
    agreed = [consensus(u, humans) for u in units]
    return CriterionAgreement(
        criterion=criterion,
        units=len(units),
        no_consensus=sum(c is None for c in agreed),
        humans=tuple(_pair(units, a, b, labels, confidence) for a, b in combinations(humans, 2)),
        judges=tuple(_judge(units, agreed, j, criterion, humans, confidence) for j in judges),
    )


def by_criterion(
    records: Sequence[CalibrationRecord],
    humans: Sequence[str],
    judges: Sequence[str],
    confidence: float = 0.95,
) -> list[CriterionAgreement]:
    """Agreement per criterion type, types in the order ``CRITERION_LABELS`` lists them."""
    groups: dict[str, list[Grades]] = {}
    for record in records:
        groups.setdefault(record.criterion, []).append({g.rater: g.label for g in record.grades})
    order = list(CRITERION_LABELS)
    return [
        criterion_agreement(c, groups[c], humans, judges, confidence)
        for c in sorted(groups, key=order.index)
    ]
