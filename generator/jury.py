"""Who may grade: qualification outcomes and conflicts of interest."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from generator.models.bundle import Candidate
from generator.models.raters import ModelRater, QualificationRequired, Rater
from generator.models.records import Qualification
from generator.models.volume import Volume
from generator.store.rowtypes import BundleData
from generator.words import counted


@dataclass(frozen=True)
class QualificationOutcome:
    """A judge's qualification result."""

    judge: str
    family: str | None
    probes: int
    correct: int
    wrong: tuple[str, ...]
    refused: tuple[str, ...]
    qualified: bool


@dataclass(frozen=True)
class QualificationProblem:
    """One way a judge's qualification records miss the declared probe set."""

    judge: str
    rule: str
    line: int | None
    message: str


def qualification_outcomes(
    records: Iterable[Qualification],
    max_refusals: int,
    policy: QualificationRequired | None = None,
) -> dict[str, QualificationOutcome]:
    """Per judge: qualified when no probe was graded wrongly and refusals stay within
    ``max_refusals`` (a refusal is recorded and reported, never counted as correct).

    With a declared ``policy`` (one bundle's records), the judge must also have run every
    declared probe exactly once and nothing else, and "wrongly" is judged against the
    declared correct grade rather than the one the record claims.
    """
    declared = {p.id: p.expected for p in policy.probes} if policy is not None else None
    by_judge: dict[str, list[Qualification]] = defaultdict(list)
    for record in records:
        by_judge[record.judge].append(record)
    out = {}
    for judge, recs in sorted(by_judge.items()):
        complete = declared is None or sorted(r.probe for r in recs) == sorted(declared)
        truth = {r.probe: (declared or {}).get(r.probe, r.expected) for r in recs}
        wrong = tuple(sorted(r.probe for r in recs if r.got not in ("refused", truth[r.probe])))
        refused = tuple(sorted(r.probe for r in recs if r.got == "refused"))
        out[judge] = QualificationOutcome(
            judge=judge,
            family=recs[0].family,
            probes=len(recs),
            correct=sum(r.got == truth[r.probe] for r in recs),
            wrong=wrong,
            refused=refused,
            qualified=complete and not wrong and len(refused) <= max_refusals,
        )
    return out


def qualification_problems(
    rows: Sequence[tuple[int, Qualification]],
    policy: QualificationRequired,
    judges: Iterable[Rater],
) -> list[QualificationProblem]:
    """Every way each of ``judges`` (the seated grader, panel and reserves) departs from
    the declared probe set in one bundle's ``(line, record)`` rows: a declared probe it
    did not run, a probe nobody declared, a probe run twice, a record whose expected
    grade is not the declared one, and a probe graded wrongly."""
    declared = {p.id: p.expected for p in policy.probes}
    out: list[QualificationProblem] = []
    for judge in judges:
        mine = [(line, r) for line, r in rows if r.judge == judge.key]
        if not mine:
            continue  # no record at all: the gates report the judge as unqualified
        first = mine[0][0]
        ran = Counter(r.probe for _, r in mine)
        out.extend(
            QualificationProblem(
                judge.key,
                "qualification-missing",
                first,
                f"{judge.key} has no result for declared qualification probe {probe}",
            )
            for probe in declared
            if probe not in ran
        )
        seen: set[str] = set()
        for line, r in mine:
            out.extend(_record_problems(judge.key, line, r, declared, seen))
            seen.add(r.probe)
    return out


def _record_problems(
    judge: str, line: int, record: Qualification, declared: Mapping[str, str], seen: set[str]
) -> list[QualificationProblem]:
    """What is wrong with one qualification record under the declared probe set."""
    probe = record.probe
    if probe not in declared:
        message = f"{judge} ran qualification probe {probe}, which the volume does not declare"
        return [QualificationProblem(judge, "qualification-unknown", line, message)]
    if probe in seen:
        message = f"{judge} ran qualification probe {probe} more than once"
        return [QualificationProblem(judge, "qualification-duplicate", line, message)]
    if record.expected != declared[probe]:
        message = (
            f"{judge}'s record of {probe} expects {record.expected!r}, "
            f"but the volume declares {declared[probe]!r}"
        )
        return [QualificationProblem(judge, "qualification-expected", line, message)]
    if record.got not in ("refused", declared[probe]):
        message = (
            f"{judge} graded qualification probe {probe} {record.got!r}, not {declared[probe]!r}"
        )
        return [QualificationProblem(judge, "qualification-failed", line, message)]
    return []


def volume_models(volume: Volume, candidates: Iterable[Candidate]) -> dict[str, str]:
    """What every model measured in the volume is ("a candidate", "an anchor"), by API
    string: from its list and every bundle's manifest (a candidate never grades)."""
    roles: dict[str, str] = {c.api: c.role for c in volume.candidates}
    for candidate in candidates:
        roles.setdefault(candidate.api, candidate.role)
    return {api: ("an " if role[0] in "aeiou" else "a ") + role for api, role in roles.items()}


def conflict(judge: Rater, candidate: Candidate) -> str | None:
    """Why ``judge`` may not grade ``candidate``, or None. Family rules apply to models
    only: a human has no family."""
    if judge.key == candidate.api:
        return "is_candidate"
    if isinstance(judge, ModelRater) and judge.family == candidate.family:
        return "same_family"
    return None


def human_keys(raters: Iterable[Rater]) -> frozenset[str]:
    """Keys of the human raters among ``raters``."""
    return frozenset(r.key for r in raters if not isinstance(r, ModelRater))


@dataclass(frozen=True)
class EndpointProblem:
    """A grader or judge that saw held-out text through an endpoint not shown no-training."""

    judge: str
    rule: str
    loc: tuple[str, ...]
    """Where in ``bundle.json`` the fix belongs."""
    message: str


def jury_endpoint_problems(
    bundle: BundleData, is_heldout: Callable[[str], bool]
) -> list[EndpointProblem]:
    """Every grader or panel judge that received held-out draws (prompt and response) in
    ``bundle`` without a declared no-training endpoint."""
    sent: Counter[str] = Counter()
    for v in bundle.verdicts:
        if v.grader is not None and is_heldout(v.key.item):
            sent[v.grader] += 1
    for vote in bundle.panel:
        if is_heldout(vote.key.item):
            sent[vote.judge] += 1
    endpoints = bundle.manifest.jury.endpoints
    humans = human_keys(bundle.manifest.jury.seated())
    out = []
    for api, count in sorted(sent.items()):
        if api in humans:
            continue  # a human annotator is reached through no endpoint that could train
        endpoint = endpoints.get(api)
        if endpoint is None:
            out.append(
                EndpointProblem(
                    api,
                    "jury-endpoint-undeclared",
                    ("jury",),
                    f"{api} graded {counted(count, 'held-out draw')}, but jury.endpoints "
                    "does not say how it was reached",
                )
            )
        elif not endpoint.no_training:
            out.append(
                EndpointProblem(
                    api,
                    "training-jury-endpoint",
                    ("jury", "endpoints", api),
                    f"{api} graded {counted(count, 'held-out draw')} through an endpoint not "
                    f"declared no-training ({endpoint.gateway} / {endpoint.serving_provider})",
                )
            )
    return out
