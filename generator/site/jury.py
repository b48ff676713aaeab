"""The generated jury page of one volume: its seats, agreement and every jury card.

Like the results page (``generator.site.results``), every number comes from the figures
registry and every frozen card is linked with its SHA-256.
"""

from __future__ import annotations

from generator.anchors import FIGURE_PREFIX as ANCHOR_PROBE
from generator.models.base import slugify
from generator.models.figures import Figure
from generator.models.raters import Rater
from generator.render import contamination
from generator.site.markup import code, page, table, text
from generator.site.published import PublishedVolume
from generator.site.results import MISSING, candidates_in_order, frozen_links, shown, volume_heading


def _rater_cells(rater: Rater) -> list[str]:
    """A rater as the seats table shows it: a model's API string and family, or a human's
    id (and affiliation) with no family."""
    if rater.kind == "human":
        shown_id = text(rater.id)
        if rater.affiliation:
            shown_id += f" ({text(rater.affiliation)})"
        return [shown_id + " (human)", "none (human)"]
    return [code(rater.api), text(rater.family)]


def _seat_rows(pv: PublishedVolume) -> list[list[str]]:
    jury = pv.volume.jury
    seats: list[tuple[str, Rater]] = [("grader", jury.grader)]
    seats += [("panel", judge) for judge in jury.panel]
    if jury.adjudication is not None:
        seats.append(("adjudication (not independent)", jury.adjudication.rater))
    seats += [("reserve", judge) for judge in jury.reserves]
    rows = []
    for seat, judge in seats:
        qual = pv.figure(f"jury/{slugify(judge.key)}/qualification")
        if jury.not_run is not None:
            cell = "not run"
        elif qual is not None:
            probes = qual.detail.get("probes")
            ok = "qualified" if qual.detail.get("qualified") else "not qualified"
            cell = text(f"{qual.display} of {probes} correct, {ok}")
        else:
            cell = MISSING
        rows.append([text(seat), *_rater_cells(judge), cell])
    return rows


def _probe_row(model: str, chosen: str, fig: Figure | None) -> list[str]:
    if fig is None:
        return [code(model), chosen, "no probe recorded", *[MISSING] * 4]
    d = fig.detail
    return [
        code(model),
        chosen,
        text(d.get("probed_at", MISSING)),
        text(d.get("provider", MISSING)),
        text(f"{d.get('liveness', MISSING)}: {fig.display}"),
        text(d.get("latency", MISSING)),
        text(d.get("reasoning", MISSING)),
    ]


def anchor_probe_section(pv: PublishedVolume) -> str:
    """The live probe that chose each anchor, and the anchor candidates not chosen."""
    anchors = [c for c in pv.volume.candidates if c.role == "anchor"]
    prefix = f"{pv.id}/{ANCHOR_PROBE}/"
    probes = {f.detail.get("anchor"): f for fid, f in pv.figures.items() if fid.startswith(prefix)}
    rows = [_probe_row(a.api, "anchor", probes.get(a.api)) for a in anchors]
    listed = {a.api for a in anchors}
    rows += [
        _probe_row(str(api), "not chosen", fig)
        for api, fig in sorted(probes.items(), key=lambda e: str(e[0]))
        if api not in listed
    ]
    if not rows:
        return ""
    limit = pv.volume.thresholds.anchor_probe_max_age_days
    age = f"at most {limit} days" if limit is not None else "(no maximum age is pre-registered)"
    demo = any(f.detail.get("demonstration") for f in probes.values())
    return (
        "## Anchor probes\n\nAn anchor is chosen by a live probe through the endpoint its run "
        f"uses, taken before the run and {age} before it; a probe that was not live is "
        "refused. Latency is over the answered calls; reasoning burn is the reasoning "
        "tokens per answered call the provider reported."
        + (" These probes are demonstration data." if demo else "")
        + "\n\n"
        + table(
            ["Model", "Role", "Probed", "Provider", "Liveness", "Latency", "Reasoning burn"],
            rows,
        )
    )


def _contamination(pv: PublishedVolume) -> str:
    """The contamination section: every ranked model's gap, its intervals and reading."""
    rows = []
    for ref in candidates_in_order(pv):
        gap = pv.figure(f"{ref.slug}/contamination/gap")
        reading = text(contamination.reading(gap)) if gap is not None else "not computed"
        rows.append(
            [text(ref.display_name), shown(gap), shown(gap, "narrow"), shown(gap, "wide"), reading]
        )
    notes = [
        text(str(fig.detail["statement"]))
        for suffix in ("absent", "baselines")
        if (fig := pv.figure(f"contamination/{suffix}")) is not None
    ]
    return (
        "## Contamination signal\n\n"
        + text(contamination.EXPLAINED)
        + "\n\n"
        + table(["Model", "Gap", "Narrow interval", "Wide interval", "Reading"], rows, "lrlll")
        + "".join(f"\n\n{note}" for note in notes)
    )


def jury_page(pv: PublishedVolume) -> str:
    """``volumes/<vol>/jury.md``: seats, agreement, leniency and every jury card."""
    v = pv.volume
    ac1, leniency = pv.figure("jury/ac1"), pv.figure("jury/leniency")
    agreement = (
        f"Panel agreement (Gwet's AC1): {shown(ac1)}, interval {shown(ac1, 'ci')}, "
        f"pre-registered floor {text(v.thresholds.ac1_floor)}. Grader leniency against the "
        f"panel majority: {shown(leniency)}, interval {shown(leniency, 'ci')}."
    )
    sample = [
        f"- {text(fig.label)}: {shown(fig)}"
        for why in ("stratified", "borderline", "grader_refused")
        if (fig := pv.figure(f"jury/sample/{why}")) is not None
    ]
    cards = []
    for ref in [*candidates_in_order(pv), *pv.volume.baselines()]:
        stem = f"jury/{ref.slug}"
        cards.append(
            f"- **{text(ref.display_name)}** ({code(ref.api)}): "
            + frozen_links(pv, stem, "jury card")
        )
    return page(
        f"{v.title}: jury",
        *volume_heading(pv),
        "## Seats\n\n" + table(["Seat", "Rater", "Family", "Qualification"], _seat_rows(pv)),
        anchor_probe_section(pv),
        "## Agreement\n\n" + agreement + ("\n\n" + "\n".join(sample) if sample else ""),
        _contamination(pv),
        "## Jury cards\n\nOne frozen card per candidate: recusals and reserves, sample design, "
        "agreement, contamination signal and disagreements (held-out items by id only).\n\n"
        + "\n".join(cards),
        f"Back to [the results of {text(v.id)}](index.md).",
    )
