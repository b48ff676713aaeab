"""judge-conflict: nobody graded themselves, their family, or without qualifying.

No verdict or panel vote comes from the candidate itself or from a judge of its family;
every verdict comes from the grader seated for the bundle and every vote from a seated
panel judge with its declared family; no verdict or vote comes from a judge that failed
qualification; a grader's refusal is never counted as a verdict — each refused draw is
decided by the panel instead.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext, GateResult
from generator.jury import conflict, qualification_outcomes
from generator.models.bundle import Candidate
from generator.models.volume import Judge

NAME = "judge-conflict"


class _Conflicts:
    """``conflict`` of a judge (api, family) with one candidate, decided once per pair:
    a volume has tens of thousands of verdicts but a handful of judges."""

    def __init__(self, candidate: Candidate) -> None:
        self.candidate = candidate
        self.known: dict[tuple[str, str | None], str | None] = {}

    def __call__(self, api: str, family: str | None) -> str | None:
        if (api, family) not in self.known:
            judge = Judge(api=api, family=family) if family else None
            self.known[(api, family)] = conflict(judge, self.candidate) if judge else None
        return self.known[(api, family)]


def check(ctx: GateContext) -> GateResult:
    """Run the judge-conflict gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    families = {j.api: j.family for j in volume.jury.members()}
    for bundle in ctx.bundles():
        candidate = bundle.manifest.candidate
        seated = bundle.manifest.jury
        quals = qualification_outcomes(
            (q.record for q in bundle.qualification), volume.thresholds.max_qualification_refusals
        )
        vpath = ctx.shown(bundle, "verdicts.jsonl")
        reported: set[tuple[str, str]] = set()
        conflict_of = _Conflicts(candidate)
        for v in bundle.verdicts:
            if v.grader is None:
                continue
            why = conflict_of(v.grader, families.get(v.grader))
            if why is not None and ("verdict", v.grader) not in reported:
                reported.add(("verdict", v.grader))
                out.add(
                    "self-grading",
                    vpath,
                    v.line,
                    f"{v.grader} graded {candidate.api} "
                    + (
                        "(itself)" if why == "is_candidate" else f"(same family {candidate.family})"
                    ),
                    "recuse the grader and seat a reserve of another family",
                )
            if v.grader != seated.grader.api and ("seat", v.grader) not in reported:
                reported.add(("seat", v.grader))
                out.add(
                    "unseated-grader",
                    vpath,
                    v.line,
                    f"verdict by {v.grader}, but the seated grader is {seated.grader.api}",
                )
            outcome = quals.get(v.grader)
            if (outcome is None or not outcome.qualified) and ("qual", v.grader) not in reported:
                reported.add(("qual", v.grader))
                why_not = (
                    "has no qualification record" if outcome is None else "failed qualification"
                )
                out.add(
                    "unqualified-grader",
                    vpath,
                    v.line,
                    f"verdicts by {v.grader}, which {why_not}",
                    "qualify the grader on the qualification probes before it grades",
                )
        ppath = ctx.shown(bundle, "panel.jsonl")
        panel_apis = {j.api: j.family for j in seated.panel}
        voted: set[tuple[str, str, int]] = set()
        for vote in bundle.panel:
            voted.add(vote.key)
            why = conflict_of(vote.judge, vote.family)
            if why is not None and ("vote", vote.judge) not in reported:
                reported.add(("vote", vote.judge))
                out.add(
                    "self-grading",
                    ppath,
                    vote.line,
                    f"panel vote by {vote.judge} ({vote.family}) on {candidate.api} "
                    + (
                        "(itself)" if why == "is_candidate" else f"(same family {candidate.family})"
                    ),
                    "recuse the judge and seat a reserve of another family",
                )
            if panel_apis.get(vote.judge) != vote.family and ("pseat", vote.judge) not in reported:
                reported.add(("pseat", vote.judge))
                out.add(
                    "unseated-judge",
                    ppath,
                    vote.line,
                    f"vote by {vote.judge} ({vote.family}), which is not a seated panel judge "
                    "with that family",
                )
            outcome = quals.get(vote.judge)
            if (outcome is None or not outcome.qualified) and ("pqual", vote.judge) not in reported:
                reported.add(("pqual", vote.judge))
                out.add(
                    "unqualified-judge",
                    ppath,
                    vote.line,
                    f"votes by {vote.judge}, which is not qualified",
                )
        for v in bundle.verdicts:
            if v.verdict == "grader_refused" and v.key not in voted:
                out.add(
                    "refusal-undecided",
                    vpath,
                    v.line,
                    f"the grader refused {v.key.item} {v.key.half}{v.key.draw} and no panel vote "
                    "decides it; a refusal is not a verdict",
                    "send every refused draw to the panel",
                )
    return out.result()
