"""Real benchmarks' shapes through the gates: humans as raters with an adjudicator,
qualification declared not run, a bank with no held-out items, conditions declared per
candidate, and unknown latency and run dates. Each shape is built by a factory
(``tests/factories.py``) and passes; each broken rule gives its exact finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import CliRun
from tests.factories import (
    ADJUDICATOR,
    NOT_RUN,
    add_adjudication,
    all_public,
    bundle_dir,
    declare_conditions,
    edit_json,
    edit_lines,
    forget_latency,
    forget_run_dates,
    git_commit_all,
    human_panel,
)
from tests.gates.test_gates import AURORA, BRIGHT, VOL, _check, _failed, _messages, _reregister

AURORA_NAME = "Aurora 7B Chat"


def _passes(cli: CliRun, root: Path) -> dict[str, Any]:
    _reregister(root, VOL)
    git_commit_all(root)
    report = _check(cli)
    assert report["exit_code"] == 0, {g: _messages(report, g) for g in _failed(report)}
    return report


def _notes(report: dict[str, Any], gate: str) -> list[str]:
    notes: list[str] = next(g for g in report["gates"] if g["gate"] == gate)["notes"]
    return notes


def _ac1(report: dict[str, Any]) -> str:
    return next(n for n in _notes(report, "agreement") if n.startswith("AC1 = "))


def test_three_human_annotators_and_an_adjudicator_pass_without_qualification(
    cli: CliRun, root: Path
) -> None:
    human_panel(root)
    # Not committed yet: the adjudication below is part of the pre-registered jury.
    _reregister(root, VOL)
    alone = cli("gate", "agreement", VOL, "--json")
    assert alone.exit_code == 0, alone.stdout
    notes = json.loads(alone.stdout)["gates"][0]["notes"]
    before = next(n for n in notes if n.startswith("AC1 = "))
    add_adjudication(root)
    after = _passes(cli, root)
    # The adjudicated label is not independent of the annotators: AC1 ignores it.
    assert _ac1(after) == before
    assert before.endswith("independent seats only; floor 0.60")
    shown = cli("show", VOL)
    assert shown.exit_code == 0, shown.output
    assert "annotator-1 (human), annotator-2 (human), annotator-3 (human); adjudication " in (
        " ".join(shown.output.split())
    )


def test_human_panel_rules(cli: CliRun, root: Path) -> None:
    human_panel(root)
    add_adjudication(root)
    d = bundle_dir(root, AURORA)
    rows = [json.loads(x) for x in (d / "panel.jsonl").read_text("utf-8").splitlines()]
    settled = next(n for n, r in enumerate(rows) if r["judge"] == ADJUDICATOR["id"])
    first = rows[0]
    # An annotator the volume does not seat; the adjudicator voting twice on one draw.
    stranger = {**first, "judge": "annotator-9"}
    twice = {**rows[settled]}
    edit_lines(d, "panel.jsonl", lambda rs: [*rs, stranger, twice])
    # A qualification record, although the volume declares qualification not run.
    record = {
        "expected": "pass",
        "got": "pass",
        "judge": "annotator-1",
        "probe": "qual-clear-pass",
        "schema_version": 1,
    }
    edit_lines(bundle_dir(root, BRIGHT), "qualification.jsonl", lambda rs: [record])
    _reregister(root, VOL)
    git_commit_all(root)
    report = _check(cli)
    assert report["exit_code"] == 1
    assert _failed(report) == {"judge-conflict", "agreement"}
    key = f"{first['item']} {first['half']}{first['draw']}"
    lines = len(rows)
    assert _messages(report, "judge-conflict") == [
        f"bundles/{VOL}/{AURORA}/panel.jsonl:{lines + 1}: vote by annotator-9 (human), which "
        "is not a seated panel judge as a human rater",
        f"bundles/{VOL}/{BRIGHT}/qualification.jsonl:1: 1 qualification record, but the "
        "volume declares qualification not run",
    ]
    draw = f"{twice['item']} {twice['half']}{twice['draw']}"
    agreement = _messages(report, "agreement")
    assert (
        f"bundles/{VOL}/{AURORA}/panel.jsonl:1: {key} has 4 votes from 4 independent "
        "seats; every seated judge votes once" in agreement
    )
    assert any(
        m.endswith(
            f"{draw} has 2 votes from the adjudicator adjudicator; it adjudicates a draw once"
        )
        for m in agreement
    ), agreement


def test_a_human_on_the_panel_needs_no_endpoint_and_may_not_have_one(
    cli: CliRun, root: Path
) -> None:
    human_panel(root)
    d = bundle_dir(root, AURORA)
    endpoint = {"gateway": "g", "serving_provider": "p", "no_training": True}
    edit_json(d / "bundle.json", lambda m: m["jury"]["endpoints"].update({"annotator-1": endpoint}))
    manifest = (d / "bundle.json").read_text("utf-8")
    line = manifest.splitlines().index('  "jury": {') + 1
    result = cli("gate", "preflight", VOL)
    assert result.exit_code == 1
    assert (
        f"error: bundles/{VOL}/{AURORA}/bundle.json:{line}: jury: endpoints names human "
        "rater annotator-1; only models have endpoints [preflight/schema]"
    ) in result.output, result.output


def test_qualification_not_run_with_records_left_in_place(cli: CliRun, root: Path) -> None:
    from tests.factories import edit_volume

    reason = {"status": "not_run", "reason": NOT_RUN}
    edit_volume(root, lambda doc: doc["jury"].update(qualification=reason))
    _reregister(root, VOL)
    git_commit_all(root)
    report = _check(cli)
    assert _failed(report) == {"judge-conflict"}
    assert (
        f"bundles/{VOL}/{AURORA}/qualification.jsonl:1: 24 qualification records, but the "
        "volume declares qualification not run"
    ) in _messages(report, "judge-conflict")


def test_an_all_public_bank_passes_the_holdout_gate_and_says_so(cli: CliRun, root: Path) -> None:
    all_public(root)
    git_commit_all(root)
    result = cli("gate", "holdout", VOL, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert report["gates"][0]["notes"] == [
        "this bank has no held-out items: every item is public, nothing can leak"
    ]
    # Not even a private store is needed when nothing is held out.
    import shutil

    shutil.rmtree(root / ".private")
    result = cli("gate", "holdout", VOL, "--json")
    assert result.exit_code == 0, result.output


def test_conditions_declared_per_candidate(cli: CliRun, root: Path) -> None:
    declare_conditions(root, AURORA, {"temperature": "0.3", "system_prompt_sha256": "0" * 64})
    _reregister(root, VOL)
    git_commit_all(root)
    report = _check(cli)
    assert _failed(report) == {"config"}
    path = f"bundles/{VOL}/{AURORA}/bundle.json"
    messages = _messages(report, "config")
    assert (
        f"{path}: conditions.temperature is '0.7' but {AURORA_NAME}'s declared conditions say '0.3'"
        in messages
    )
    assert len(messages) == 2
    # The bundle that ran under its own declaration passes; the others keep the protocol.
    own = {"temperature": "0.3", "system_prompt_sha256": "0" * 64}
    edit_json(bundle_dir(root, AURORA) / "bundle.json", lambda m: m["conditions"].update(own))
    _passes(cli, root)


def test_unknown_latency_and_run_dates_are_unknown_not_invented(cli: CliRun, root: Path) -> None:
    forget_latency(root, AURORA)
    forget_run_dates(root, AURORA)
    report = _passes(cli, root)
    assert _notes(report, "config") == [
        f"bundles/{VOL}/{AURORA}/bundle.json: run dates unknown (started and finished); "
        "whether the run was inside the window 2026-09-01..2026-09-20 and after the "
        "pre-registration cannot be checked"
    ]
    # A date that is known is still checked.
    edit_json(
        bundle_dir(root, AURORA) / "bundle.json", lambda m: m.update(run={"started": "2020-01-02"})
    )
    _reregister(root, VOL)
    git_commit_all(root)
    report = _check(cli)
    assert _failed(report) == {"config"}
    assert _messages(report, "config") == [
        f"bundles/{VOL}/{AURORA}/bundle.json: run 2020-01-02..unknown is outside the volume's "
        "window 2026-09-01..2026-09-20",
        f"bundles/{VOL}/{AURORA}/bundle.json: run started 2020-01-02, not after the "
        "pre-registration (2026-08-25)",
    ]


def _twin(root: Path, variant: str | None) -> Path:
    """A second candidate of Aurora's API string, as a copy of its bundle run under a
    declared safety system prompt."""
    import shutil

    from tests.factories import edit_volume

    prompt = {"system_prompt_sha256": "1" * 64}
    twin = {
        "api": "demo-aurora/aurora-7b-chat",
        "display_name": "Aurora 7B Chat + safety prompt",
        "role": "candidate",
        "run_date": None,
        "conditions": prompt,
    }
    if variant is not None:
        twin["variant"] = variant

    def add(doc: dict[str, Any]) -> None:
        aurora = next(c for c in doc["candidates"] if c["api"] == twin["api"])
        doc["candidates"].append({**twin, "run_date": aurora["run_date"]})

    edit_volume(root, add)
    slug = f"{AURORA}-{variant}" if variant else f"{AURORA}-twin"
    d = bundle_dir(root, slug)
    shutil.copytree(bundle_dir(root, AURORA), d)

    def manifest(m: dict[str, Any]) -> None:
        m["candidate"].update(display_name=twin["display_name"])
        if variant is not None:
            m["candidate"]["variant"] = variant
        m["conditions"].update(prompt)

    edit_json(d / "bundle.json", manifest)
    return d


def test_one_model_with_and_without_a_safety_prompt_is_two_candidates(
    cli: CliRun, root: Path
) -> None:
    _twin(root, "safety-prompt")
    git_commit_all(root)
    for gate in ("config", "naming"):
        result = cli("gate", gate, VOL)
        assert result.exit_code == 0, result.output
    shown = cli("show", VOL)
    assert shown.exit_code == 0, shown.output
    assert "Aurora 7B Chat + safety prompt" in shown.output


def test_two_candidates_of_one_api_string_need_a_variant(cli: CliRun, root: Path) -> None:
    _twin(root, None)
    git_commit_all(root)
    result = cli("gate", "naming", VOL, "--json")
    assert result.exit_code == 1
    messages = [f["message"] for f in json.loads(result.stdout)["gates"][0]["findings"]]
    assert "candidate demo-aurora/aurora-7b-chat is listed twice" in messages, messages
