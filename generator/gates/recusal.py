"""recusal: every conflict was recused, and a qualified reserve of another family sat.

No candidate or anchor of the volume is on its jury (grader, panel judge or reserve), nor
seated or named as a reserve for any bundle: a candidate never grades, and a rival is no
neutral judge. For each bundle, every default jury member in conflict with the candidate
(itself or its family) has a recorded recusal; the reserve seated is one of the volume's declared
reserves, of another family than the candidate, qualified, and actually seated; every
seated member belongs to the volume's jury; the seated panel's models have distinct
families, none the candidate's (a panel of models only: three families); the adjudication
seat is seated as declared and adjudicates seated panel seats. A human rater has no
family, so only the "a candidate never grades" rule applies to one.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext, GateResult
from generator.gates.locate import line_of
from generator.jury import conflict, qualification_outcomes, volume_models
from generator.models.raters import ModelRater, Rater
from generator.models.volume import Volume
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
    if jury.adjudication is not None:
        seats.append((("jury", "adjudication"), "adjudicator", jury.adjudication.rater))
    vfile = ctx.layout.volume_file(ctx.data.volume.id)
    for loc, seat, judge in seats:
        if judge.key in models:
            out.add(
                "candidate-on-jury",
                ctx.volume_file,
                line_of(vfile, loc),
                f"{seat} {judge.key} is {models[judge.key]} of this volume; "
                "a candidate never grades",
                "put on the jury only models the volume does not measure",
            )


def _candidates_seated(
    ctx: GateContext, bundle: BundleData, out: Findings, models: dict[str, str]
) -> None:
    """No model the volume measures is seated, or named as a reserve, for this bundle."""
    seated = bundle.manifest.jury
    seats = [
        (("jury", "grader"), "grader", seated.grader.key),
        *((("jury", "panel", n), "panel judge", j.key) for n, j in enumerate(seated.panel)),
        *(
            (("jury", "recusals", n, "reserve"), "reserve", r.reserve)
            for n, r in enumerate(seated.recusals)
        ),
    ]
    if seated.adjudication is not None:
        seats.append((("jury", "adjudication"), "adjudicator", seated.adjudication.rater.key))
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
    defaults = [volume.jury.grader, *volume.jury.panel]
    if volume.jury.adjudication is not None:
        defaults.append(volume.jury.adjudication.rater)
    for judge in defaults:
        why = conflict(judge, candidate)
        if why is None:
            continue
        if judge.key not in recused:
            out.add(
                "missing-recusal",
                path,
                None,
                f"{judge.label} is in conflict with {candidate.api} "
                f"({why.replace('_', ' ')}) but no recusal is recorded",
                "record the recusal and seat a reserve of another family",
            )
        if judge.key in seated_apis:
            out.add("conflicted-seated", path, None, f"{judge.key} is conflicted yet seated")


def _reserves_sound(
    out: Findings,
    path: str,
    volume: Volume,
    bundle: BundleData,
    seated_apis: set[str],
    members: dict[str, Rater],
) -> None:
    """Each recusal's reserve is declared, of another family, seated and qualified (when
    qualification is required)."""
    candidate = bundle.manifest.candidate
    reserves = {j.key: j for j in volume.jury.reserves}
    quals = qualification_outcomes(
        (q.record for q in bundle.qualification),
        volume.thresholds.max_qualification_refusals,
        volume.jury.required,
    )
    not_run = volume.jury.not_run is not None
    for r in bundle.manifest.jury.recusals:
        reserve = reserves.get(r.reserve)
        if reserve is None:
            out.add("reserve-unknown", path, None, f"reserve {r.reserve} is not a declared reserve")
            continue
        why = conflict(reserve, candidate)
        if why is not None:
            shares = (
                f"shares the family {reserve.family} of"
                if why == "same_family"
                else "is the candidate"
            )
            out.add(
                "reserve-conflict",
                path,
                None,
                f"reserve {reserve.key} {shares} {candidate.api}",
                "seat a reserve of another family",
            )
        if reserve.key not in seated_apis:
            out.add(
                "reserve-not-seated",
                path,
                None,
                f"reserve {reserve.key} was named but not seated",
            )
        outcome = quals.get(reserve.key)
        if not not_run and (outcome is None or not outcome.qualified):
            out.add("reserve-unqualified", path, None, f"reserve {reserve.key} is not qualified")
        if r.judge not in members:
            out.add("recusal-unknown", path, None, f"recused {r.judge} is not on the jury")


def _seated_on_jury(
    out: Findings, path: str, seated_all: list[tuple[str, Rater]], members: dict[str, Rater]
) -> None:
    """Every seated grader, panel judge and adjudicator is on the volume's jury, as the
    volume declares it (kind, family; a human's id and affiliation)."""
    for seat, judge in seated_all:
        if members.get(judge.key) != judge:
            out.add(
                "seated-unknown",
                path,
                None,
                f"seated {seat} {judge.label} is not on the volume's jury",
            )


def _adjudication(out: Findings, path: str, volume: Volume, bundle: BundleData) -> None:
    """The adjudication seat sits when declared, and adjudicates seated panel seats."""
    declared, seated = volume.jury.adjudication, bundle.manifest.jury.adjudication
    if (declared is None) != (seated is None):
        said = "declares" if declared is not None else "declares no"
        out.add(
            "adjudication-seated",
            path,
            None,
            f"the volume {said} adjudication seat, but the bundle seats "
            f"{'none' if seated is None else seated.rater.key}",
            "seat the adjudication exactly as volume.yaml declares it",
        )
    if seated is None:
        return
    panel = {j.key for j in bundle.manifest.jury.panel}
    unknown = [k for k in seated.adjudicates if k not in panel]
    if unknown:
        out.add(
            "adjudication-seated",
            path,
            None,
            f"the adjudication names {', '.join(unknown)}, not seated on the panel",
        )


def _panel_families(out: Findings, path: str, bundle: BundleData) -> None:
    """The seated panel's models have distinct families, none of them the candidate's; a
    panel of models only has three."""
    candidate = bundle.manifest.candidate
    panel = bundle.manifest.jury.panel
    families = [j.family for j in panel if isinstance(j, ModelRater)]
    if len(set(families)) != len(families):
        out.add(
            "panel-families",
            path,
            None,
            f"the seated panel repeats a family: {', '.join(families)}",
        )
    if len(families) == len(panel) != 3:
        out.add(
            "panel-families",
            path,
            None,
            f"the seated panel has {len(panel)} models; a panel of models only has three "
            "judges of three families",
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
    members = {j.key: j for j in volume.jury.members()}
    for bundle in ctx.bundles():
        path = ctx.shown(bundle, "bundle.json")
        seated = bundle.manifest.jury
        _candidates_seated(ctx, bundle, out, models)
        seated_all: list[tuple[str, Rater]] = [("grader", seated.grader)]
        seated_all += [("panel", j) for j in seated.panel]
        if seated.adjudication is not None:
            seated_all.append(("adjudicator", seated.adjudication.rater))
        seated_apis = {j.key for _, j in seated_all}
        _conflicts_recused(out, path, volume, bundle, seated_apis)
        _reserves_sound(out, path, volume, bundle, seated_apis, members)
        _seated_on_jury(out, path, seated_all, members)
        _adjudication(out, path, volume, bundle)
        _panel_families(out, path, bundle)
    return out.result()
