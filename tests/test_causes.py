"""Root causes first (issue 17, defect 6): one edited file is one finding with its real
cause and a fix that fits it, never an avalanche of follow-on figure mismatches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.causes import Because, figures_by_source
from generator.errors import CheckFailed, Problem
from tests.conftest import CliRun

VERDICTS = "bundles/vol-001/demo-ember-ember-mini/verdicts.jsonl"


def _flip_first_verdict(root: Path) -> None:
    """Edit one verdict of a sealed bundle by hand (bundle.json left as sealed)."""
    path = root / VERDICTS
    lines = path.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(lines[0])
    record["verdict"] = "pass" if record["verdict"] == "fail" else "fail"
    lines[0] = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), "utf-8")


def _gate(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(g for g in report["gates"] if g["gate"] == name)


def test_one_edited_verdict_is_one_publishing_finding_naming_the_sealed_file(
    root: Path, cli: CliRun
) -> None:
    _flip_first_verdict(root)
    result = cli("check", "vol-001", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    rules = [f["rule"] for f in _gate(report, "preflight")["findings"]]
    assert "manifest-hash" in rules  # the root cause, where preflight finds it
    mismatches = [
        f for f in _gate(report, "publishing")["findings"] if f["rule"] != "not-a-repository"
    ]
    assert len(mismatches) == 1, mismatches
    (grouped,) = mismatches
    assert grouped["path"] == VERDICTS and grouped["cause"] == VERDICTS
    assert (
        "figures do not recompute because this file changed after sealing" in (grouped["message"])
    )
    assert len(grouped["affected"]) > 40
    assert "vol-001/demo-ember-ember-mini/core_rate" in grouped["affected"]
    # Recomputing over a tampered bundle would make the edit look legitimate.
    assert "probepress figures" not in grouped["fix"] and "restore" in grouped["fix"]


def test_a_source_changed_for_another_reason_keeps_the_recompute_fix() -> None:
    found = [
        Problem(f"vol-001/f{i}", None, "figure-mismatch", "source x changed", cause="x")
        for i in range(5)
    ]
    found.append(Problem("vol-001/g", None, "figure-mismatch", "recomputes to 2 but 1"))
    found.append(Problem("vol-001/f0", None, "figure-mismatch", "recomputes to 3 but 1"))
    grouped = figures_by_source(found, lambda source: Because("changed", "recompute"))
    assert [p.path for p in grouped] == ["vol-001/g", "x"]
    assert grouped[1].message == (
        "5 figures do not recompute because this file changed "
        "(vol-001/f0, vol-001/f1, vol-001/f2 and 2 more)"
    )
    assert grouped[1].affected == tuple(f"vol-001/f{i}" for i in range(5))
    one = figures_by_source(found[:1], lambda source: Because("changed", None))
    assert one[0].message.startswith("1 figure does not recompute because")


def test_a_cutoff_never_hides_a_root_cause() -> None:
    follow = [Problem(f"fig{i}", None, "recomputed", "m", cause="a.jsonl") for i in range(60)]
    root_cause = Problem("a.jsonl", None, "integrity", "changed")
    text = CheckFailed("not verified:", [*follow, root_cause]).render(50)
    lines = text.splitlines()
    assert lines[1] == "a.jsonl: changed [integrity]"
    assert lines[-1] == "... and 11 more problems"
    many_roots = [Problem(f"r{i}", None, "integrity", "m") for i in range(3)]
    text = CheckFailed("x", [*follow, *many_roots]).render(2)
    assert text.splitlines()[1:] == [
        "r0: m [integrity]",
        "r1: m [integrity]",
        "... and 61 more problems, 1 root cause among them",
    ]


def test_a_record_limit_is_not_reported_as_tampering(root: Path, cli: CliRun) -> None:
    result = cli("--limit", "max_records=100", "check", "vol-001", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    findings = _gate(report, "preflight")["findings"]
    assert not [f for f in findings if f["rule"] == "manifest-hash"]
    limited = [f for f in findings if f["rule"] == "too-many-records"]
    assert limited and all("--limit max_records=N" in f["fix"] for f in limited)
