"""Who may grade: qualification outcomes and conflicts of interest."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from generator.models.bundle import Candidate
from generator.models.records import Qualification
from generator.models.volume import Judge


@dataclass(frozen=True)
class QualificationOutcome:
    """A judge's qualification result."""

    judge: str
    family: str
    probes: int
    correct: int
    wrong: tuple[str, ...]
    refused: tuple[str, ...]
    qualified: bool


def qualification_outcomes(
    records: Iterable[Qualification], max_refusals: int
) -> dict[str, QualificationOutcome]:
    """Per judge: qualified when no probe was graded wrongly and refusals stay within
    ``max_refusals`` (a refusal is recorded and reported, never counted as correct)."""
    by_judge: dict[str, list[Qualification]] = defaultdict(list)
    for record in records:
        by_judge[record.judge].append(record)
    out = {}
    for judge, recs in sorted(by_judge.items()):
        wrong = tuple(sorted(r.probe for r in recs if r.got not in ("refused", r.expected)))
        refused = tuple(sorted(r.probe for r in recs if r.got == "refused"))
        out[judge] = QualificationOutcome(
            judge=judge,
            family=recs[0].family,
            probes=len(recs),
            correct=sum(r.got == r.expected for r in recs),
            wrong=wrong,
            refused=refused,
            qualified=not wrong and len(refused) <= max_refusals,
        )
    return out


def conflict(judge: Judge, candidate: Candidate) -> str | None:
    """Why ``judge`` may not grade ``candidate``, or None."""
    if judge.api == candidate.api:
        return "is_candidate"
    if judge.family == candidate.family:
        return "same_family"
    return None
