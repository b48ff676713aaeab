"""``probepress probe-anchor``: record the live probe that chose an anchor."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.base import EPILOG, State, pass_state, writer_lock
from generator.console import err


@click.command("probe-anchor", epilog=EPILOG)
@click.argument("volume")
@click.argument("candidate")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The runner's log of the probe (JSON or YAML; schema import-anchor-probe-log).",
)
@click.option(
    "--unlisted",
    is_flag=True,
    help="CANDIDATE is an anchor candidate VOLUME does not list (e.g. one the probe ruled out).",
)
@pass_state
def probe_anchor(
    state: State, /, volume: str, candidate: str, source: Path, unlisted: bool
) -> None:
    """Record a live probe of anchor CANDIDATE in bundles/VOLUME/anchor_probes.jsonl.

    An anchor is chosen by a live probe through the endpoint its run will use. probepress
    makes no network calls: run the probe with your runner, then record its log here. The
    log gives the provider and gateway reached, when the probe started (with its UTC
    offset), who ran it and with which runner, and every call: its outcome (answered,
    empty, content_filter, http_error, timeout, connection_error), HTTP status, latency in
    ms, and the reasoning tokens the provider reported (omitted: not reported). CANDIDATE
    is the anchor's exact API string or bundle slug. Every problem is refused with its
    file, line and rule, and nothing is written. The config gate then requires, for every
    anchor, a live probe taken before its run through its run's provider, at most
    thresholds.anchor_probe_max_age_days days earlier; the jury card shows it.
    """
    from generator.anchors import record_probe, shown_time

    with writer_lock(state.layout.root):
        done = record_probe(
            state.layout,
            volume,
            candidate,
            source,
            str(source),
            unlisted=unlisted,
            bounds=state.bounds,
        )
    s = done.summary
    err.print(
        f"{volume}: recorded the probe of {done.probe.anchor} "
        f"({shown_time(done.probe.probed_at)}, {s.liveness}: {s.answered_text()}; latency "
        f"{s.latency_text()}; reasoning {s.reasoning_text()}) in {done.path} "
        f"({done.probes} {'probe' if done.probes == 1 else 'probes'})",
        markup=False,
    )
    if done.listed and s.liveness != "live":
        err.print(
            f"the config gate will {'refuse' if s.liveness == 'not live' else 'warn about'} "
            f"this anchor unless a later live probe is recorded before its run",
            markup=False,
        )


COMMANDS = (probe_anchor,)
