"""recusal: every conflict was recused, and a qualified reserve of another family sat.

For each bundle, every default jury member in conflict with the candidate (itself or its
family) has a recorded recusal; the reserve seated is one of the volume's declared
reserves, of another family than the candidate, qualified, and actually seated; every
seated member belongs to the volume's jury; the seated panel has three distinct families,
none the candidate's.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext, GateResult
from generator.jury import conflict, qualification_outcomes

NAME = "recusal"


def check(ctx: GateContext) -> GateResult:
    """Run the recusal gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    members = {j.api: j for j in volume.jury.members()}
    reserves = {j.api: j for j in volume.jury.reserves}
    for bundle in ctx.bundles():
        path = ctx.shown(bundle, "bundle.json")
        candidate = bundle.manifest.candidate
        seated = bundle.manifest.jury
        recused = {r.judge: r for r in seated.recusals}
        quals = qualification_outcomes(
            (q.record for q in bundle.qualification), volume.thresholds.max_qualification_refusals
        )
        seated_all = [("grader", seated.grader), *(("panel", j) for j in seated.panel)]
        seated_apis = {j.api for _, j in seated_all}
        defaults = [("grader", volume.jury.grader), *(("panel", j) for j in volume.jury.panel)]
        for _seat, judge in defaults:
            why = conflict(judge, candidate)
            if why is None:
                continue
            if judge.api not in recused:
                out.add(
                    "missing-recusal",
                    path,
                    None,
                    f"{judge.api} ({judge.family}) is in conflict with {candidate.api} "
                    f"({why.replace('_', ' ')}) but no recusal is recorded",
                    "record the recusal and seat a reserve of another family",
                )
            if judge.api in seated_apis:
                out.add("conflicted-seated", path, None, f"{judge.api} is conflicted yet seated")
        for r in seated.recusals:
            reserve = reserves.get(r.reserve)
            if reserve is None:
                out.add(
                    "reserve-unknown", path, None, f"reserve {r.reserve} is not a declared reserve"
                )
                continue
            if conflict(reserve, candidate) is not None:
                out.add(
                    "reserve-conflict",
                    path,
                    None,
                    f"reserve {reserve.api} shares the family {reserve.family} of {candidate.api}",
                    "seat a reserve of another family",
                )
            if reserve.api not in seated_apis:
                out.add(
                    "reserve-not-seated",
                    path,
                    None,
                    f"reserve {reserve.api} was named but not seated",
                )
            outcome = quals.get(reserve.api)
            if outcome is None or not outcome.qualified:
                out.add(
                    "reserve-unqualified", path, None, f"reserve {reserve.api} is not qualified"
                )
            if r.judge not in members:
                out.add("recusal-unknown", path, None, f"recused {r.judge} is not on the jury")
        for seat, judge in seated_all:
            declared = members.get(judge.api)
            if declared is None or declared.family != judge.family:
                out.add(
                    "seated-unknown",
                    path,
                    None,
                    f"seated {seat} {judge.api} ({judge.family}) is not on the volume's jury",
                )
        families = [j.family for j in seated.panel]
        if len(set(families)) != len(families):
            out.add(
                "panel-families",
                path,
                None,
                f"the seated panel repeats a family: {', '.join(families)}",
            )
        if candidate.family in families:
            out.add(
                "panel-families",
                path,
                None,
                f"the seated panel includes the candidate's family {candidate.family}",
            )
    return out.result()
