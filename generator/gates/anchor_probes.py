"""The config gate's anchor-probe rules: every anchor was chosen by a recorded live probe.

An anchor separates harness drift from model drift only if it was reachable, through the
endpoint the run used, when it was chosen. So for every anchor ``volume.yaml`` lists,
``bundles/<volume>/anchor_probes.jsonl`` must hold a probe of its exact API string,
taken on or before the day its run started (a probe taken afterwards cannot have chosen
it; it is ignored when an earlier one exists), at most
``thresholds.anchor_probe_max_age_days`` days before that day, through the provider that
served the run, and live: at least one call answered (a probe where some calls failed is
a warning). The latest such probe counts. Probes of models the volume does not list are
the anchor candidates that were not chosen: evidence, never refused.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from generator.anchors import (
    Numbered,
    chosen_probe,
    probes_path,
    read_probes,
    run_start,
    shown_time,
    summarise,
)
from generator.gates.base import Findings, GateContext
from generator.models.anchors import AnchorProbe
from generator.models.volume import CandidateRef
from generator.store.jsonl import Bounds, Locator, Problems

RULE_AGE = "thresholds.anchor_probe_max_age_days"


@dataclass(frozen=True)
class _Anchor:
    """A listed anchor, where it is listed and the day its run started."""

    ref: CandidateRef
    line: int | None
    run_start: dt.date
    provider: str | None
    """The serving provider of its run (None: its bundle could not be read)."""


def _probe_command(ctx: GateContext, api: str) -> str:
    return f"run the probe and record it: `probepress probe-anchor {ctx.data.id} {api} --from FILE`"


def _anchors(ctx: GateContext, notes: list[str]) -> list[_Anchor]:
    volume = ctx.data.volume
    lines = Locator(ctx.layout.volume_file(volume.id), Bounds().max_yaml_bytes)
    out = []
    for n, ref in enumerate(volume.candidates):
        if ref.role != "anchor":
            continue
        bundle = ctx.data.bundles.get(ref.slug)
        start = run_start(volume, ref, bundle)
        if start is None:
            start = volume.window.start
            notes.append(
                f"{ctx.volume_file}: the run date of anchor {ref.api} is unknown; its probe is "
                f"dated against the window's start {start}"
            )
        provider = bundle.manifest.endpoint.serving_provider if bundle is not None else None
        out.append(_Anchor(ref, lines.line(("candidates", n, "api")), start, provider))
    return out


def _listed_roles(ctx: GateContext, out: Findings, shown: str, probes: Numbered) -> None:
    """A probe of a listed candidate or baseline, and demonstration probes in a real volume."""
    volume = ctx.data.volume
    roles = {c.api: c.role for c in volume.candidates}
    for line, probe in probes:
        role = roles.get(probe.anchor)
        if role is not None and role != "anchor":
            out.add(
                "anchor-probe-role",
                shown,
                line,
                f"probe of {probe.anchor}, which {volume.id} lists as a {role}, not an anchor",
                "remove the line, or list the model as an anchor",
            )
        if probe.demonstration and not volume.demonstration:
            out.add(
                "anchor-probe-demonstration",
                shown,
                line,
                f"the probe of {probe.anchor} is demonstration data but {volume.id} is not",
                "record the probe the maintainer ran",
            )


def _judge(ctx: GateContext, out: Findings, shown: str, anchor: _Anchor, probes: Numbered) -> None:
    """One listed anchor's probe: present, before the run, recent, same provider, live."""
    api, start = anchor.ref.api, anchor.run_start
    chosen, after = chosen_probe(probes, api, start)
    if chosen is None:
        taken = f" ({after} taken after its run started {start})" if after else ""
        out.add(
            "anchor-probe-missing",
            ctx.volume_file,
            anchor.line,
            f"anchor {api} has no probe in {shown} taken on or before its run started "
            f"{start}{taken}: an anchor is chosen by a recorded live probe (liveness, "
            "provider, latency, reasoning burn)",
            _probe_command(ctx, api),
        )
        return
    line, probe = chosen
    when, limit = shown_time(probe.probed_at), ctx.data.volume.thresholds.anchor_probe_max_age_days
    age = (start - probe.probed_on()).days
    if limit is not None and age > limit:
        out.add(
            "anchor-probe-stale",
            shown,
            line,
            f"the probe of anchor {api} ({when}) is {age} days older than its run "
            f"(started {start}); {RULE_AGE} is {limit}",
            f"probe again at most {limit} days before the run and record it",
        )
    if anchor.provider is not None and probe.provider != anchor.provider:
        out.add(
            "anchor-probe-provider",
            shown,
            line,
            f"the probe of anchor {api} ({when}) reached provider {probe.provider!r} but its "
            f"run was served by {anchor.provider!r}: the probe is evidence about another "
            "endpoint",
            "probe the anchor through the provider its run uses",
        )
    _liveness(out, shown, line, api, when, probe)


def _liveness(
    out: Findings, shown: str, line: int, api: str, when: str, probe: AnchorProbe
) -> None:
    summary = summarise(probe)
    what = f"{summary.answered_text()} ({'; '.join(summary.outcomes)})"
    if summary.liveness == "not live":
        out.add(
            "anchor-probe-not-live",
            shown,
            line,
            f"the probe of anchor {api} ({when}) says it was not live: {what}",
            "choose an anchor that answers, or probe again and record the probe",
        )
    elif summary.liveness == "intermittent":
        out.add(
            "anchor-probe-intermittent",
            shown,
            line,
            f"the probe of anchor {api} ({when}) was intermittent: {what}",
            "probe again; an anchor that drops calls may trip the circuit breaker",
            severity="warning",
        )


def check_anchor_probes(ctx: GateContext, out: Findings) -> list[str]:
    """Add the anchor-probe findings of the volume to ``out``; return the gate's notes."""
    notes: list[str] = []
    anchors = _anchors(ctx, notes)
    path = probes_path(ctx.layout, ctx.data.id)
    shown = ctx.layout.rel(path)
    problems = Problems()
    probes = read_probes(ctx.layout, ctx.data.id, Bounds(), problems)
    out.extend(problems.items)
    _listed_roles(ctx, out, shown, probes)
    for anchor in anchors:
        _judge(ctx, out, shown, anchor, probes)
    if anchors and ctx.data.volume.thresholds.anchor_probe_max_age_days is None:
        out.add(
            "anchor-probe-age-undeclared",
            ctx.volume_file,
            None,
            f"{RULE_AGE} is not declared: the age of the anchor probes was not checked",
            f"declare {RULE_AGE} (probepress init writes 30) before any run of the next volume",
            severity="warning",
        )
    return notes
