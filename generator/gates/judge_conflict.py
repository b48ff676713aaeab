"""judge-conflict: nobody graded themselves, their family, a rival, or without qualifying.

No verdict or panel vote comes from the candidate itself or from a judge of its family,
nor from any other candidate or anchor of the volume (a candidate never grades, in any
volume where it is measured); every verdict comes from the grader seated for the bundle
and every vote from a seated panel judge with its declared family; the volume declares
its qualification policy: with ``required``, every seated grader and panel judge
(reserves and the adjudicator included) ran each declared probe exactly once, nothing
else, and graded none wrongly, and no verdict or vote comes from a judge that failed
qualification; with ``not_run``, no rater is held to a record and no bundle carries
qualification records (the pages say qualification was not run, and why). A grader's
refusal is never counted as a verdict — each refused draw is decided by the panel
instead. Family rules apply to models; a human rater has no family.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext, GateResult
from generator.gates.locate import line_of
from generator.jury import (
    QualificationOutcome,
    conflict,
    qualification_outcomes,
    qualification_problems,
    volume_models,
)
from generator.models.bundle import Candidate
from generator.models.raters import ModelRater
from generator.store.rowtypes import BundleData
from generator.words import counted

NAME = "judge-conflict"


class _Conflicts:
    """Why a judge (api, family) may not grade one candidate, decided once per pair: a
    volume has tens of thousands of verdicts but a handful of judges."""

    def __init__(self, candidate: Candidate, models: dict[str, str]) -> None:
        self.candidate = candidate
        self.models = models
        self.known: dict[tuple[str, str | None], str | None] = {}

    def __call__(self, api: str, family: str | None) -> str | None:
        if (api, family) not in self.known:
            if family:
                why = conflict(ModelRater(api=api, family=family), self.candidate)
            else:  # a human rater: no family rule applies
                why = "is_candidate" if api == self.candidate.api else None
            if why is None and api in self.models:
                why = f"is {self.models[api]} of this volume"
            self.known[(api, family)] = why
        return self.known[(api, family)]

    def text(self, why: str) -> str:
        """The reason as a message says it."""
        if why == "is_candidate":
            return "(itself)"
        if why == "same_family":
            return f"(same family {self.candidate.family})"
        return f"but {why}: a candidate never grades"


def _rule(why: str) -> str:
    """``self-grading`` for the bundle's own candidate or family, ``candidate-grades`` for
    another model measured in the volume."""
    return "candidate-grades" if why.endswith("of this volume") else "self-grading"


class _Once:
    """Report each (rule, judge) once per bundle: one line is enough to find the rest."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()

    def __call__(self, rule: str, judge: str) -> bool:
        first = (rule, judge) not in self.seen
        self.seen.add((rule, judge))
        return first


def _verdicts(
    ctx: GateContext,
    bundle: BundleData,
    out: Findings,
    conflicts: _Conflicts,
    quals: dict[str, QualificationOutcome],
) -> None:
    vpath = ctx.shown(bundle, "verdicts.jsonl")
    families = {j.key: j.family for j in ctx.data.volume.jury.members()}
    seated = bundle.manifest.jury.grader.key
    not_run = ctx.data.volume.jury.not_run is not None
    once = _Once()
    candidate = conflicts.candidate.api
    for v in bundle.verdicts:
        if v.grader is None:
            continue
        why = conflicts(v.grader, families.get(v.grader))
        if why is not None and once(_rule(why), v.grader):
            fix = "recuse the grader and seat a reserve of another family"
            if _rule(why) == "candidate-grades":
                fix = "seat a grader that is no candidate or anchor of the volume"
            message = f"{v.grader} graded {candidate} {conflicts.text(why)}"
            out.add(_rule(why), vpath, v.line, message, fix)
        if v.grader != seated and once("unseated-grader", v.grader):
            message = f"verdict by {v.grader}, but the seated grader is {seated}"
            out.add("unseated-grader", vpath, v.line, message)
        outcome = quals.get(v.grader)
        if not_run:
            continue  # qualification declared not run: nobody is held to a record
        if (outcome is None or not outcome.qualified) and once("unqualified-grader", v.grader):
            why_not = "has no qualification record" if outcome is None else "failed qualification"
            out.add(
                "unqualified-grader",
                vpath,
                v.line,
                f"verdicts by {v.grader}, which {why_not}",
                "qualify the grader on the qualification probes before it grades",
            )


def _votes(
    ctx: GateContext,
    bundle: BundleData,
    out: Findings,
    conflicts: _Conflicts,
    quals: dict[str, QualificationOutcome],
) -> set[tuple[str, str, int]]:
    """Report the panel's votes; return the draws the panel voted on."""
    ppath = ctx.shown(bundle, "panel.jsonl")
    panel = {j.key: j.family for j in bundle.manifest.jury.seated()[1:]}
    not_run = ctx.data.volume.jury.not_run is not None
    once = _Once()
    voted: set[tuple[str, str, int]] = set()
    candidate = conflicts.candidate.api
    for vote in bundle.panel:
        voted.add(vote.key)
        why = conflicts(vote.judge, vote.family)
        who = f"{vote.judge} ({vote.family or 'human'})"
        if why is not None and once(_rule(why), vote.judge):
            out.add(
                _rule(why),
                ppath,
                vote.line,
                f"panel vote by {who} on {candidate} " + conflicts.text(why),
                "recuse the judge and seat a reserve of another family",
            )
        seated = vote.judge in panel and panel[vote.judge] == vote.family
        if not seated and once("unseated-judge", vote.judge):
            kind = "with that family" if vote.family else "as a human rater"
            message = f"vote by {who}, which is not a seated panel judge {kind}"
            out.add("unseated-judge", ppath, vote.line, message)
        if not_run:
            continue
        outcome = quals.get(vote.judge)
        if (outcome is None or not outcome.qualified) and once("unqualified-judge", vote.judge):
            out.add(
                "unqualified-judge",
                ppath,
                vote.line,
                f"votes by {vote.judge}, which is not qualified",
            )
    return voted


def _qualification(ctx: GateContext, bundle: BundleData, out: Findings) -> None:
    """The seated members' records against the declared probe set."""
    policy = ctx.data.volume.jury.required
    if policy is None:
        return
    judges = list({j.key: j for j in bundle.manifest.jury.seated()}.values())
    rows = [(q.line, q.record) for q in bundle.qualification]
    qpath = ctx.shown(bundle, "qualification.jsonl")
    for problem in qualification_problems(rows, policy, judges):
        out.add(
            problem.rule,
            qpath,
            problem.line,
            problem.message,
            "run every declared qualification probe exactly once, and seat only judges "
            "that grade them all correctly",
        )


def _records_not_run(ctx: GateContext, bundle: BundleData, out: Findings) -> None:
    """Qualification declared not run, yet the bundle records qualification results."""
    if ctx.data.volume.jury.not_run is None or not bundle.qualification:
        return
    first = bundle.qualification[0]
    out.add(
        "qualification-not-run",
        ctx.shown(bundle, "qualification.jsonl"),
        first.line,
        f"{counted(len(bundle.qualification), 'qualification record')}, but the volume declares "
        "qualification not run",
        "declare jury.qualification with status required and its probes, or leave "
        "qualification.jsonl empty",
    )


def check(ctx: GateContext) -> GateResult:
    """Run the judge-conflict gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    policy = volume.jury.required
    if volume.jury.qualification is None:
        out.add(
            "qualification-undeclared",
            ctx.volume_file,
            line_of(ctx.layout.volume_file(volume.id), ("jury",)),
            "the jury declares no qualification probe set, so no grader can be shown to "
            "have qualified",
            "declare jury.qualification (rule and probes, or status not_run and the "
            "reason) before any run",
        )
    bundles = ctx.bundles()
    models = volume_models(volume, (b.manifest.candidate for b in bundles))
    for bundle in bundles:
        quals = qualification_outcomes(
            (q.record for q in bundle.qualification),
            volume.thresholds.max_qualification_refusals,
            policy,
        )
        conflicts = _Conflicts(bundle.manifest.candidate, models)
        _verdicts(ctx, bundle, out, conflicts, quals)
        voted = _votes(ctx, bundle, out, conflicts, quals)
        _qualification(ctx, bundle, out)
        _records_not_run(ctx, bundle, out)
        vpath = ctx.shown(bundle, "verdicts.jsonl")
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
