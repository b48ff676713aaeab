"""Anchor-probe figures: the live probe that chose each anchor, for the jury card and the
site's jury page.

One figure per probed model, ``<vol>/anchor-probe/<slug>``: the number of the probe's
calls that answered, with what pages print beside it in ``detail`` (when, provider,
liveness, latency, reasoning burn, who ran it with what). For a listed anchor it is the
probe the config gate judges (the latest taken on or before its run started); for an
anchor candidate the volume does not list, its latest probe.
"""

from __future__ import annotations

from generator.anchors import (
    FIGURE_PREFIX,
    ProbeSummary,
    anchor_probe_id,
    chosen_probe,
    probes_path,
    read_probes,
    run_start,
    shown_time,
    summarise,
)
from generator.errors import InputError
from generator.figures.context import FigureContext
from generator.models.anchors import AnchorProbe
from generator.models.figures import Param, Source
from generator.store.jsonl import Bounds, Problems


def _detail(
    probe: AnchorProbe, summary: ProbeSummary, listed: bool
) -> dict[str, Param | list[str]]:
    runner = f"{probe.runner.name} {probe.runner.version}"
    detail: dict[str, Param | list[str]] = {
        "anchor": probe.anchor,
        "listed": listed,
        "probed_at": shown_time(probe.probed_at),
        "provider": probe.provider,
        "gateway": probe.gateway,
        "liveness": summary.liveness,
        "calls": summary.calls,
        "outcomes": list(summary.outcomes),
        "latency": summary.latency_text(),
        "reasoning": summary.reasoning_text(),
        "ran_by": probe.ran_by,
        "runner": runner,
        "probepress_version": probe.probepress_version,
        "demonstration": probe.demonstration,
    }
    if summary.latency_median_ms is not None and summary.latency_max_ms is not None:
        detail["latency_median_ms"] = str(summary.latency_median_ms)
        detail["latency_max_ms"] = summary.latency_max_ms
    if summary.reasoning_median is not None and summary.reasoning_max is not None:
        detail["reasoning_median_tokens"] = str(summary.reasoning_median)
        detail["reasoning_max_tokens"] = summary.reasoning_max
    return detail


def anchor_probe_figures(ctx: FigureContext) -> None:
    """Register the figure of every probed model of the volume, and declare absent the
    figure of every listed anchor without a probe taken before its run."""
    data = ctx.data
    problems = Problems()
    probes = read_probes(data.layout, data.id, Bounds(), problems)
    if problems:
        raise InputError(f"cannot read the anchor probes of {data.id}:", problems.items)
    volume = data.volume
    path = probes_path(data.layout, data.id)
    volume_file = data.layout.volume_file(data.id)
    sources = ctx.cache.sources([path, volume_file] if probes else [volume_file])
    anchors = {c.api: c for c in volume.candidates if c.role == "anchor"}
    missing = []
    for api in sorted({p.anchor for _, p in probes} | set(anchors)):
        ref = anchors.get(api)
        start = None
        if ref is not None:
            start = run_start(volume, ref, data.bundles.get(ref.slug)) or volume.window.start
        chosen, _ = chosen_probe(probes, api, start)
        if chosen is None:
            missing.append(api)
            continue
        probe = chosen[1]
        summary = summarise(probe)
        ctx.reg.add(
            anchor_probe_id(data.id, api),
            f"Calls of the live probe of {api} that answered",
            "count",
            summary.answered,
            precision=0,
            display=summary.answered_text(),
            method="anchor-probe",
            sources=sources,
            detail=_detail(probe, summary, ref is not None),
        )
    if missing:
        _absence(ctx, missing, sources)


def _absence(ctx: FigureContext, missing: list[str], sources: list[Source]) -> None:
    """Declare the probe figures of ``missing`` anchors absent, saying why."""
    ctx.reg.count(
        f"{ctx.vid}/{FIGURE_PREFIX}/absent",
        "Anchors without a probe taken before their run",
        len(missing),
        sources,
        detail={
            "statement": (
                f"No probe taken before its run is recorded for anchor {missing[0]}: nothing "
                "shows it was live when it was chosen."
                if len(missing) == 1
                else f"No probe taken before their runs is recorded for anchors "
                f"{', '.join(missing)}: nothing shows they were live when they were chosen."
            ),
            "absent": [anchor_probe_id(ctx.vid, api) for api in missing],
        },
    )
