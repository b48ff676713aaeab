"""``probepress probe-anchor``: a runner's probe log recorded in the volume, validated, all
or nothing; and what a probe's summary says (liveness, latency, reasoning burn)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from generator import __version__
from generator.anchors import summarise
from generator.models.anchors import AnchorProbe, AnchorProbeLog
from tests.conftest import CliRun, tree_state

VOL = "vol-002"
FJORD = "demo-fjord/fjord-ref-1"
PROBES = f"bundles/{VOL}/anchor_probes.jsonl"


def _log(**changes: Any) -> dict[str, Any]:
    log: dict[str, Any] = {
        "provider": "demo-provider-east",
        "gateway": "demo-gateway",
        "probed_at": "2026-11-12T10:30:00+01:00",
        "ran_by": "A. Maintainer",
        "runner": {"name": "my-runner", "version": "2.0"},
        "demonstration": True,
        "calls": [
            {"outcome": "answered", "http_status": 200, "latency_ms": 900, "reasoning_tokens": 0},
            {"outcome": "answered", "http_status": 200, "latency_ms": 1500},
            {"outcome": "http_error", "http_status": 429, "latency_ms": 40},
        ],
    }
    log.update(changes)
    return log


def _file(tmp_path: Path, log: dict[str, Any], name: str = "probe.yaml") -> Path:
    path = tmp_path / name
    text = json.dumps(log) if name.endswith(".json") else yaml.safe_dump(log, sort_keys=False)
    path.write_text(text, "utf-8")
    return path


def test_a_probe_is_recorded_and_becomes_the_anchors_probe(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    before = (root / PROBES).read_text("utf-8").splitlines()
    result = cli(
        "probe-anchor", VOL, "demo-fjord-fjord-ref-1", "--from", str(_file(tmp_path, _log()))
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"{VOL}: recorded the probe of {FJORD} (2026-11-12 09:30 UTC, intermittent: 2 of 3 "
        "calls answered; latency median 1.20 s, max 1.50 s; reasoning median 0, max 0 tokens "
        f"per call (reported on 1 of 2 answered calls)) in {PROBES} (4 probes)",
        "the config gate will warn about this anchor unless a later live probe is recorded "
        "before its run",
    ]
    lines = (root / PROBES).read_text("utf-8").splitlines()
    assert len(lines) == 4 and set(before) < set(lines)
    recorded = [AnchorProbe.model_validate_json(x) for x in lines]
    assert [p.probed_at for p in recorded] == sorted(p.probed_at for p in recorded)
    mine = next(p for p in recorded if p.ran_by == "A. Maintainer")
    assert (mine.anchor, mine.probepress_version) == (FJORD, __version__)
    # It is the latest probe before Fjord's run (2026-11-13), so the gate judges it.
    gate = cli("gate", "config", VOL)
    assert gate.exit_code == 0
    assert f"warning: {PROBES}:4: the probe of anchor {FJORD} (2026-11-12 09:30 UTC) was " in (
        gate.stderr
    )


def _refused(cli: CliRun, root: Path, *args: str) -> str:
    """Run a command that must be refused with exit 2 and write nothing; its stderr."""
    state = tree_state(root)
    result = cli("probe-anchor", *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert tree_state(root) == state
    return result.stderr.strip()


def test_a_model_the_volume_does_not_list_needs_unlisted(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    log = str(_file(tmp_path, _log()))
    assert _refused(cli, root, VOL, "demo-wren/wren-1", "--from", log) == (
        "'demo-wren/wren-1' is not listed in bundles/vol-002/volume.yaml (its anchors: "
        f"{FJORD}, demo-harrow/harrow-ref-2); pass --unlisted to record a probe of an anchor "
        "candidate the volume does not list"
    )
    result = cli("probe-anchor", VOL, "demo-wren/wren-1", "--from", log, "--unlisted")
    assert result.exit_code == 0, result.output
    assert '"anchor":"demo-wren/wren-1"' in (root / PROBES).read_text("utf-8")
    assert cli("gate", "config", VOL).exit_code == 0  # a ruled-out candidate is evidence


def test_a_candidate_is_not_probed_as_an_anchor(cli: CliRun, root: Path, tmp_path: Path) -> None:
    log = str(_file(tmp_path, _log()))
    assert _refused(cli, root, VOL, "demo-ember/ember-mini", "--from", log) == (
        "'demo-ember/ember-mini' is a candidate of vol-002 (bundles/vol-002/volume.yaml), not "
        "an anchor: only anchors and anchor candidates are probed"
    )


def test_a_bad_log_is_refused_at_its_line(cli: CliRun, root: Path, tmp_path: Path) -> None:
    calls = [{"outcome": "timeout", "http_status": 504}]
    log = _file(tmp_path, _log(calls=calls, probed_at="2026-11-12T10:30:00"))
    text = log.read_text("utf-8").splitlines()
    at = next(n for n, x in enumerate(text, 1) if x.startswith("probed_at"))
    call = next(n for n, x in enumerate(text, 1) if "outcome: timeout" in x)
    assert _refused(cli, root, VOL, FJORD, "--from", str(log)).splitlines() == [
        f"cannot read the probe log {log}:",
        f"{log}:{at}: probed_at: Input should have timezone info [schema]",
        f"{log}:{call}: calls[0]: a timeout got no response: omit http_status [schema]",
    ]


def test_a_duplicate_and_demonstration_data_in_a_real_volume_are_refused(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    existing = json.loads((root / PROBES).read_text("utf-8").splitlines()[2])
    assert existing["anchor"] == FJORD
    same = _file(tmp_path, _log(probed_at=existing["probed_at"]))
    assert _refused(cli, root, VOL, FJORD, "--from", str(same)).splitlines() == [
        "the probe cannot be recorded:",
        f"{PROBES}:3: the probe of {FJORD} at "
        f"{existing['probed_at'][:10]} {existing['probed_at'][11:16]} UTC is recorded already "
        "[duplicate-probe]",
    ]
    vfile = root / "bundles" / VOL / "volume.yaml"
    vfile.write_text(
        vfile.read_text("utf-8").replace("demonstration: true", "demonstration: false")
    )
    demo = str(_file(tmp_path, _log(), "demo.json"))
    assert _refused(cli, root, VOL, FJORD, "--from", demo).splitlines() == [
        "the probe cannot be recorded:",
        f"{demo}: the probe is demonstration data but vol-002 is not [demonstration]; fix: "
        "record the probe the maintainer ran (demonstration: false)",
    ]


def test_an_unknown_volume_is_a_usage_error(cli: CliRun, root: Path, tmp_path: Path) -> None:
    log = str(_file(tmp_path, _log()))
    assert _refused(cli, root, "vol-009", FJORD, "--from", log) == (
        "no volume 'vol-009' under bundles/ (known: vol-001, vol-002, vol-003)"
    )


def _call(outcome: str, latency: int | None, reasoning: int | None) -> dict[str, Any]:
    status = {"answered": 200, "empty": 200, "http_error": 500}.get(outcome)
    return {
        "outcome": outcome,
        "http_status": status,
        "latency_ms": latency if outcome != "timeout" else None,
        "reasoning_tokens": reasoning,
    }


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["answered", "empty", "http_error", "timeout"]),
            st.integers(0, 60_000),
            st.none() | st.integers(0, 5000),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_the_summary_is_derived_from_the_calls(calls: list[tuple[str, int, int | None]]) -> None:
    log = AnchorProbeLog.model_validate(_log(calls=[_call(*c) for c in calls]))
    s = summarise(log)
    answered = [c for c in calls if c[0] == "answered"]
    assert (s.calls, s.answered) == (len(calls), len(answered))
    assert s.liveness == (
        "live" if len(answered) == len(calls) else "intermittent" if answered else "not live"
    )
    assert sum(int(o.split()[0]) for o in s.outcomes) == len(calls)
    if answered:
        latencies = sorted(c[1] for c in answered)
        assert s.latency_max_ms == latencies[-1]
        assert latencies[0] <= s.latency_median_ms <= latencies[-1]  # type: ignore[operator]
    else:
        assert s.latency_text() == "not measured: no call answered"
    reported = [c[2] for c in answered if c[2] is not None]
    if answered and not reported:
        assert s.reasoning_text() == "not reported by provider"
    assert s.reasoning_reported == len(reported)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"outcome": "answered", "http_status": 503, "latency_ms": 1}, "2xx"),
        ({"outcome": "http_error", "http_status": 200}, "is a success"),
        ({"outcome": "empty"}, "give its http_status"),
        ({"outcome": "connection_error", "http_status": 502}, "omit http_status"),
    ],
)
def test_a_call_says_what_happened_consistently(call: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AnchorProbeLog.model_validate(_log(calls=[call]))


def test_a_probe_round_trips_through_json() -> None:
    probe = AnchorProbe.model_validate(
        {**_log(), "anchor": FJORD, "probepress_version": __version__}
    )
    again = AnchorProbe.model_validate_json(probe.model_dump_json())
    assert again == probe
    assert again.probed_on() == dt.date(2026, 11, 12)


def test_an_unlisted_name_that_is_no_api_string_is_a_usage_error(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    log = str(_file(tmp_path, _log()))
    assert _refused(cli, root, VOL, "x" * 201, "--from", log, "--unlisted") == (
        f"{'x' * 80!r} is not an API string: String should have at most 200 characters"
    )
