"""The config gate's anchor-probe rules, through the CLI: each test breaks one rule in a
copy of the example (vol-002: anchors Fjord and Harrow, and a ruled-out candidate) and
asserts the exact finding, its file:line, rule and fix, and the exit code."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from generator.models.volume import Volume
from generator.prereg import volume_preregistration_sha256
from tests.conftest import CliRun
from tests.gates.test_jury_gates import _line

VOL = "vol-002"
FJORD = "demo-fjord/fjord-ref-1"
HARROW = "demo-harrow/harrow-ref-2"
EMBER = "demo-ember/ember-mini"
PROBES = f"bundles/{VOL}/anchor_probes.jsonl"
VOLUME = f"bundles/{VOL}/volume.yaml"
Probe = dict[str, Any]


def _probes(root: Path) -> list[Probe]:
    return [json.loads(x) for x in (root / PROBES).read_text("utf-8").splitlines()]


def _write(root: Path, probes: list[Probe]) -> None:
    (root / PROBES).write_text("".join(json.dumps(p) + "\n" for p in probes), "utf-8")


def _edit(root: Path, api: str, fn: Callable[[Probe], None]) -> int:
    """Change the probe of ``api`` through ``fn``; return its line."""
    probes = _probes(root)
    n = next(i for i, p in enumerate(probes) if p["anchor"] == api)
    fn(probes[n])
    _write(root, probes)
    return n + 1


def _run_start(root: Path, slug: str) -> dt.date:
    manifest = json.loads((root / "bundles" / VOL / slug / "bundle.json").read_text("utf-8"))
    return dt.date.fromisoformat(manifest["run"]["started"])


def _shown(probe: Probe) -> str:
    """A probe's time as messages print it."""
    at = dt.datetime.fromisoformat(probe["probed_at"]).astimezone(dt.UTC)
    return at.strftime("%Y-%m-%d %H:%M UTC")


def _gate(cli: CliRun, *options: str) -> tuple[int, list[str]]:
    result = cli("gate", "config", VOL, *options)
    assert "Traceback" not in result.output
    return result.exit_code, [x for x in result.stderr.splitlines() if "anchor" in x]


def _volume_line(root: Path, api: str) -> int:
    return _line((root / VOLUME).read_text("utf-8"), f"api: {api}")


def test_the_example_anchors_pass_and_the_ruled_out_candidate_is_kept(
    cli: CliRun, root: Path
) -> None:
    assert [p["anchor"] for p in _probes(root)] == ["demo-ibis/ibis-ref-0", HARROW, FJORD]
    assert _gate(cli) == (0, [])


def test_an_anchor_without_a_probe_is_refused(cli: CliRun, root: Path) -> None:
    (root / PROBES).unlink()
    code, found = _gate(cli)
    assert code == 1
    fjord_start = _run_start(root, "demo-fjord-fjord-ref-1")
    harrow_start = _run_start(root, "demo-harrow-harrow-ref-2")
    assert found == [
        f"error: {VOLUME}:{_volume_line(root, api)}: anchor {api} has no probe in {PROBES} "
        f"taken on or before its run started {start}: an anchor is chosen by a recorded live "
        "probe (liveness, provider, latency, reasoning burn) [config/anchor-probe-missing]; "
        f"fix: run the probe and record it: `probepress probe-anchor {VOL} {api} --from FILE`"
        for api, start in ((FJORD, fjord_start), (HARROW, harrow_start))
    ]


def test_a_probe_taken_after_the_run_cannot_have_chosen_the_anchor(cli: CliRun, root: Path) -> None:
    start = _run_start(root, "demo-fjord-fjord-ref-1")
    _edit(root, FJORD, lambda p: p.update(probed_at=f"{start}T23:59:00Z"))
    # The same day counts as before; the day after does not.
    assert _gate(cli) == (0, [])
    after = start + dt.timedelta(days=1)
    _edit(root, FJORD, lambda p: p.update(probed_at=f"{after}T08:00:00Z"))
    code, found = _gate(cli)
    assert code == 1
    assert found == [
        f"error: {VOLUME}:{_volume_line(root, FJORD)}: anchor {FJORD} has no probe in {PROBES} "
        f"taken on or before its run started {start} (1 taken after its run started {start}): "
        "an anchor is chosen by a recorded live probe (liveness, provider, latency, reasoning "
        "burn) [config/anchor-probe-missing]; fix: run the probe and record it: "
        f"`probepress probe-anchor {VOL} {FJORD} --from FILE`"
    ]


def test_a_probe_that_says_the_anchor_was_not_live_is_refused(cli: CliRun, root: Path) -> None:
    dead = [{"outcome": "timeout"}] * 3 + [{"outcome": "http_error", "http_status": 503}] * 2
    line = _edit(root, HARROW, lambda p: p.update(calls=dead))
    when = _shown(_probes(root)[line - 1])
    code, found = _gate(cli)
    assert code == 1
    assert found == [
        f"error: {PROBES}:{line}: the probe of anchor {HARROW} ({when}) says it was not live: "
        "0 of 5 calls answered (3 timeout, no response; 2 http error, HTTP 503) "
        "[config/anchor-probe-not-live]; fix: choose an anchor that answers, or probe again "
        "and record the probe"
    ]


def test_an_intermittent_probe_warns_and_fails_only_under_strict(cli: CliRun, root: Path) -> None:
    line = _edit(root, HARROW, lambda p: p["calls"].__setitem__(0, {"outcome": "timeout"}))
    when = _shown(_probes(root)[line - 1])
    expected = [
        f"warning: {PROBES}:{line}: the probe of anchor {HARROW} ({when}) was intermittent: "
        "4 of 5 calls answered (4 answered, HTTP 200; 1 timeout, no response) "
        "[config/anchor-probe-intermittent]; fix: probe again; an anchor that drops calls "
        "may trip the circuit breaker"
    ]
    assert _gate(cli) == (0, expected)
    assert _gate(cli, "--strict") == (1, expected)


def test_a_stale_probe_and_one_through_another_provider_are_refused(
    cli: CliRun, root: Path
) -> None:
    start = _run_start(root, "demo-fjord-fjord-ref-1")
    fjord = _edit(root, FJORD, lambda p: p.update(probed_at="2026-10-13T09:00:00Z"))
    harrow = _edit(root, HARROW, lambda p: p.update(provider="demo-provider-west"))
    when = _shown(_probes(root)[harrow - 1])
    age = (start - dt.date(2026, 10, 13)).days
    code, found = _gate(cli)
    assert code == 1
    assert found == [
        f"error: {PROBES}:{fjord}: the probe of anchor {FJORD} (2026-10-13 09:00 UTC) is "
        f"{age} days older than its run (started {start}); "
        "thresholds.anchor_probe_max_age_days is 30 [config/anchor-probe-stale]; fix: probe "
        "again at most 30 days before the run and record it",
        f"error: {PROBES}:{harrow}: the probe of anchor {HARROW} ({when}) reached provider "
        "'demo-provider-west' but its run was served by 'demo-provider-east': the probe is "
        "evidence about another endpoint [config/anchor-probe-provider]; fix: probe the "
        "anchor through the provider its run uses",
    ]


def test_the_latest_probe_before_the_run_counts(cli: CliRun, root: Path) -> None:
    # An older dead probe, then the live one: the anchor was chosen by the live one.
    probes = _probes(root)
    live = next(p for p in probes if p["anchor"] == FJORD)
    dead = {**live, "probed_at": "2026-11-01T08:00:00Z", "calls": [{"outcome": "timeout"}]}
    _write(root, [dead, *probes])
    assert _gate(cli) == (0, [])
    # The other way round, the dead probe is the latest and is refused.
    others = [p for p in probes if p["anchor"] != FJORD]
    older_live = {**live, "probed_at": "2026-11-01T08:00:00Z"}
    _write(root, [older_live, *others, {**dead, "probed_at": live["probed_at"]}])
    code, found = _gate(cli)
    assert code == 1 and len(found) == 1 and "[config/anchor-probe-not-live]" in found[0]


def test_a_probe_of_a_candidate_and_a_bad_line_are_refused(cli: CliRun, root: Path) -> None:
    probes = _probes(root)
    bad = {**probes[0], "calls": [{"outcome": "answered", "http_status": 200}]}
    _write(root, [*probes, {**probes[1], "anchor": EMBER}, bad])
    code, found = _gate(cli)
    assert code == 1
    assert found == [
        f"error: {PROBES}:5: calls[0]: an answered call gives its latency_ms [config/schema]",
        f"error: {PROBES}:4: probe of {EMBER}, which {VOL} lists as a candidate, not an "
        "anchor [config/anchor-probe-role]; fix: remove the line, or list the model as an "
        "anchor",
    ]


def test_an_undeclared_maximum_age_warns(cli: CliRun, root: Path) -> None:
    # Re-registered, as a maintainer would before any run: only the anchor rule speaks.
    vfile = root / VOLUME
    doc = yaml.safe_load(vfile.read_text("utf-8"))
    del doc["thresholds"]["anchor_probe_max_age_days"]
    doc["preregistration"]["sha256"] = volume_preregistration_sha256(Volume.model_validate(doc))
    vfile.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    assert _gate(cli) == (
        0,
        [
            f"warning: {VOLUME}: thresholds.anchor_probe_max_age_days is not declared: the "
            "age of the anchor probes was not checked [config/anchor-probe-age-undeclared]; "
            "fix: declare thresholds.anchor_probe_max_age_days (probepress init writes 30) "
            "before any run of the next volume"
        ],
    )
