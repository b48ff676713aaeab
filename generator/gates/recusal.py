"""recusal: every conflict was recused, and a qualified reserve of another family sat.

No candidate or anchor of the volume is on its jury (grader, panel judge or reserve), nor
seated or named as a reserve for any bundle: a candidate never grades, and a rival is no
neutral judge. For each bundle, every default jury member in conflict with the candidate
(itself or its family) has a recorded recusal; the reserve seated is one of the volume's declared
reserves, of another family than the candidate, qualified, and actually seated; every
seated member belongs to the volume's jury; the seated panel has three distinct families,
none the candidate's.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext, GateResult
from generator.gates.locate import line_of
from generator.jury import conflict, qualification_outcomes, volume_models
from generator.models.volume import Judge, Volume
from generator.store.rowtypes import BundleData

NAME = "recusal"


def _candidates_on_jury(ctx: GateContext, out: Findings, models: dict[str, str]) -> None:
    """The volume's jury lists no model the volume measures."""
    jury = ctx.data.volume.jury
    seats = [
        (("jury", "grader"), "grader", jury.grader),
        *((("jury", "panel", n), "panel judge", j) for n, j in enumerate(jury.panel)),
        *((("jury", "reserves", n), "reserve", j) for n, j in enumerate(jury.reserves)),
    ]
    vfile = ctx.layout.volume_file(ctx.data.volume.id)
    for loc, seat, judge in seats:
        if judge.api in models:
            out.add(
                "candidate-on-jury",
                ctx.volume_file,
                line_of(vfile, loc),
                f"{seat} {judge.api} is {models[judge.api]} of this volume; "
                "a candidate never grades",
                "put on the jury only models the volume does not measure",
            )


def _candidates_seated(
    ctx: GateContext, bundle: BundleData, out: Findings, models: dict[str, str]
) -> None:
    """No model the volume measures is seated, or named as a reserve, for this bundle."""
    seated = bundle.manifest.jury
    seats = [
        (("jury", "grader"), "grader", seated.grader.api),
        *((("jury", "panel", n), "panel judge", j.api) for n, j in enumerate(seated.panel)),
        *(
            (("jury", "recusals", n, "reserve"), "reserve", r.reserve)
            for n, r in enumerate(seated.recusals)
        ),
    ]
    for loc, seat, api in seats:
        if api in models:
            out.add(
                "candidate-seated",
                ctx.shown(bundle, "bundle.json"),
                line_of(bundle.directory / "bundle.json", loc),
                f"{seat} {api} is {models[api]} of this volume and may not grade "
                f"{bundle.manifest.candidate.api}",
                "seat only jury members the volume does not measure",
            )


def _conflicts_recused(
    out: Findings, path: str, volume: Volume, bundle: BundleData, seated_apis: set[str]
) -> None:
    """Every default jury member in conflict with the candidate is recused, and not seated."""
    candidate = bundle.manifest.candidate
    recused = {r.judge for r in bundle.manifest.jury.recusals}
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


def _reserves_sound(
    out: Findings,
    path: str,
    volume: Volume,
    bundle: BundleData,
    seated_apis: set[str],
    members: dict[str, Judge],
) -> None:
    """Each recusal's reserve is declared, of another family, seated and qualified."""
    candidate = bundle.manifest.candidate
    reserves = {j.api: j for j in volume.jury.reserves}
    quals = qualification_outcomes(
        (q.record for q in bundle.qualification),
        volume.thresholds.max_qualification_refusals,
        volume.jury.qualification,
    )
    for r in bundle.manifest.jury.recusals:
        reserve = reserves.get(r.reserve)
        if reserve is None:
            out.add("reserve-unknown", path, None, f"reserve {r.reserve} is not a declared reserve")
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
            out.add("reserve-unqualified", path, None, f"reserve {reserve.api} is not qualified")
        if r.judge not in members:
            out.add("recusal-unknown", path, None, f"recused {r.judge} is not on the jury")


def _seated_on_jury(
    out: Findings, path: str, seated_all: list[tuple[str, Judge]], members: dict[str, Judge]
) -> None:
    """Every seated grader and panel judge is on the volume's jury, with its family."""
    for seat, judge in seated_all:
        declared = members.get(judge.api)
        if declared is None or declared.family != judge.family:
            out.add(
                "seated-unknown",
                path,
                None,
                f"seated {seat} {judge.api} ({judge.family}) is not on the volume's jury",
            )


def _panel_families(out: Findings, path: str, bundle: BundleData) -> None:
    """The seated panel has distinct families, none of them the candidate's."""
    candidate = bundle.manifest.candidate
    families = [j.family for j in bundle.manifest.jury.panel]
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


def check(ctx: GateContext) -> GateResult:
    """Run the recusal gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    models = volume_models(volume, (b.manifest.candidate for b in ctx.bundles()))
    _candidates_on_jury(ctx, out, models)
    members = {j.api: j for j in volume.jury.members()}
    for bundle in ctx.bundles():
        path = ctx.shown(bundle, "bundle.json")
        seated = bundle.manifest.jury
        _candidates_seated(ctx, bundle, out, models)
        seated_all = [("grader", seated.grader), *(("panel", j) for j in seated.panel)]
        seated_apis = {j.api for _, j in seated_all}
        _conflicts_recused(out, path, volume, bundle, seated_apis)
        _reserves_sound(out, path, volume, bundle, seated_apis, members)
        _seated_on_jury(out, path, seated_all, members)
        _panel_families(out, path, bundle)
    return out.result()
