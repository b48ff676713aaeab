"""Who may grade, through the CLI: candidates on the jury, the jury's endpoints on held-out
draws, and the declared qualification probe set. Each test breaks one rule in a copy of
the example and asserts the exact finding, its file:line, and exit code 1."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.models.volume import Volume
from generator.prereg import volume_preregistration_sha256
from generator.words import counted
from tests.conftest import CliRun
from tests.factories import bundle_dir, edit_json, edit_lines, git_commit_all
from tests.gates.test_gates import AURORA, BRIGHT, KESTREL, VOL, _check, _expect, _messages
from tests.gates.test_labels import _expected

Rows = list[dict[str, Any]]
GRADER = "demo-kestrel/kestrel-grader-2"
LUMEN = "demo-lumen/lumen-judge-1"
NIMBUS = "demo-nimbus/nimbus-judge-3"
OSPREY = "demo-osprey/osprey-grader-1"
FJORD = {"api": "demo-fjord/fjord-ref-1", "family": "fjord"}  # the volume's anchor
EMBER = {"api": "demo-ember/ember-mini", "family": "ember"}  # one of its candidates


def _edit_volume(root: Path, fn: Callable[[dict[str, Any]], None]) -> str:
    """Change volume.yaml through ``fn``, re-register it (as a careless maintainer would
    before any run) and return its new text."""
    vfile = root / "bundles" / VOL / "volume.yaml"
    doc = yaml.safe_load(vfile.read_text("utf-8"))
    fn(doc)
    vol = Volume.model_validate(doc)
    doc["preregistration"]["sha256"] = volume_preregistration_sha256(vol)
    text = yaml.safe_dump(doc, sort_keys=False)
    vfile.write_text(text, "utf-8")
    return text


def _line(text: str, needle: str, after: int = 0) -> int:
    """1-based number of the first line after line ``after`` that contains ``needle``."""
    lines = text.splitlines()
    return next(n for n in range(after, len(lines)) if needle in lines[n]) + 1


def _rows(path: Path) -> Rows:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def _heldout_ids(root: Path) -> set[str]:
    return {r["id"] for r in _rows(root / "bank" / "heldout_index.jsonl")}


def _replace_judge(d: Path, old: str, new: dict[str, str]) -> None:
    """Seat ``new`` wherever ``old`` sat in one bundle, with its records and endpoint."""

    def manifest(m: dict[str, Any]) -> None:
        jury = m["jury"]
        if jury["grader"]["api"] == old:
            jury["grader"] = new
        jury["panel"] = [new if j["api"] == old else j for j in jury["panel"]]
        for r in jury["recusals"]:
            r["reserve"] = new["api"] if r["reserve"] == old else r["reserve"]
        jury["endpoints"][new["api"]] = jury["endpoints"].pop(old)

    def swap(key: str) -> Callable[[Rows], Rows]:
        return lambda rs: [
            {**r, key: new["api"], **({"family": new["family"]} if "family" in r else {})}
            if r.get(key) == old
            else r
            for r in rs
        ]

    edit_json(d / "bundle.json", manifest)
    edit_lines(d, "verdicts.jsonl", swap("grader"))
    edit_lines(d, "panel.jsonl", swap("judge"))
    edit_lines(d, "qualification.jsonl", swap("judge"))


def test_an_anchor_on_the_jury_seated_for_another_candidate(cli: CliRun, root: Path) -> None:
    # The hole: the anchor is a declared reserve of another family than Brightwave, so
    # every family rule passes; but a model measured in the volume grades a rival.
    text = _edit_volume(root, lambda doc: doc["jury"]["reserves"].append(FJORD))
    _replace_judge(bundle_dir(root, BRIGHT), NIMBUS, FJORD)
    d = bundle_dir(root, BRIGHT)
    first_vote = next(
        n for n, r in enumerate(_rows(d / "panel.jsonl")) if r["judge"] == FJORD["api"]
    )
    manifest = (d / "bundle.json").read_text("utf-8")
    panel_line = _line(manifest, f'"api": "{FJORD["api"]}"', _line(manifest, '"panel"'))
    reserve_line = _line(manifest, f'"reserve": "{FJORD["api"]}"')
    shown = f"bundles/{VOL}/{BRIGHT}"
    report = _expected(
        cli,
        root,
        {"recusal", "judge-conflict"},
        f"bundles/{VOL}/volume.yaml:{_line(text, 'api: demo-fjord/fjord-ref-1')}: reserve "
        "demo-fjord/fjord-ref-1 is an anchor of this volume; a candidate never grades",
    )
    recusal = _messages(report, "recusal")
    # The seated panel judge's line is its panel entry ("{" opens it one line above "api").
    assert (
        f"{shown}/bundle.json:{panel_line - 1}: panel judge demo-fjord/fjord-ref-1 is an anchor "
        "of this volume and may not grade demo-brightwave/bw-large" in recusal
    )
    assert (
        f"{shown}/bundle.json:{reserve_line}: reserve demo-fjord/fjord-ref-1 is an anchor of "
        "this volume and may not grade demo-brightwave/bw-large" in recusal
    )
    assert _messages(report, "judge-conflict") == [
        f"{shown}/panel.jsonl:{first_vote + 1}: panel vote by demo-fjord/fjord-ref-1 (fjord) on "
        "demo-brightwave/bw-large but is an anchor of this volume: a candidate never grades"
    ]


def test_a_candidate_seated_as_another_candidates_grader(cli: CliRun, root: Path) -> None:
    _edit_volume(root, lambda doc: doc["jury"]["reserves"].append(EMBER))
    _replace_judge(bundle_dir(root, AURORA), GRADER, EMBER)
    d = bundle_dir(root, AURORA)
    first = next(n for n, r in enumerate(_rows(d / "verdicts.jsonl")) if r.get("grader"))
    report = _expected(
        cli,
        root,
        {"recusal", "judge-conflict"},
        f"bundles/{VOL}/{AURORA}/verdicts.jsonl:{first + 1}: demo-ember/ember-mini graded "
        "demo-aurora/aurora-7b-chat but is a candidate of this volume: a candidate never grades",
    )
    assert any(
        "grader demo-ember/ember-mini is a candidate of this volume and may not grade "
        "demo-aurora/aurora-7b-chat" in m
        for m in _messages(report, "recusal")
    )


def _heldout_votes(root: Path, slug: str, judge: str) -> int:
    held = _heldout_ids(root)
    rows = _rows(bundle_dir(root, slug) / "panel.jsonl")
    return sum(r["judge"] == judge and r["item"] in held for r in rows)


def test_a_panel_judge_reached_through_a_training_endpoint(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    edit_json(d / "bundle.json", lambda m: m["jury"]["endpoints"][LUMEN].update(no_training=False))
    manifest = (d / "bundle.json").read_text("utf-8")
    entry = f'"{LUMEN}": {{'
    n = _heldout_votes(root, AURORA, LUMEN)
    assert n > 0
    _expect(
        cli,
        root,
        {"holdout"},
        f"bundles/{VOL}/{AURORA}/bundle.json:{_line(manifest, entry)}: {LUMEN} "
        f"graded {counted(n, 'held-out draw')} through an endpoint not declared no-training "
        "(demo-gateway / demo-provider-east)",
    )


def test_a_grader_without_a_declared_endpoint(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    edit_json(d / "bundle.json", lambda m: m["jury"]["endpoints"].pop(GRADER))
    manifest = (d / "bundle.json").read_text("utf-8")
    held = _heldout_ids(root)
    n = sum(r.get("grader") == GRADER and r["item"] in held for r in _rows(d / "verdicts.jsonl"))
    jury_line = _line(manifest, '"jury"')
    assert n > 0
    _expect(
        cli,
        root,
        {"holdout"},
        f"bundles/{VOL}/{AURORA}/bundle.json:{jury_line}: {GRADER} graded "
        f"{counted(n, 'held-out draw')}, but jury.endpoints does not say how it was reached",
    )


def _qualification(root: Path, slug: str, fn: Callable[[Rows], Rows]) -> Path:
    d = bundle_dir(root, slug)
    edit_lines(d, "qualification.jsonl", fn)
    return d / "qualification.jsonl"


def test_the_grader_qualified_on_one_probe_of_six(cli: CliRun, root: Path) -> None:
    def cut(rows: Rows) -> Rows:
        mine = [r for r in rows if r["judge"] == GRADER]
        return [r for r in rows if r["judge"] != GRADER] + mine[:1]

    path = _qualification(root, AURORA, cut)
    line = next(n for n, r in enumerate(_rows(path)) if r["judge"] == GRADER) + 1
    report = _expected(
        cli,
        root,
        {"judge-conflict"},
        f"bundles/{VOL}/{AURORA}/qualification.jsonl:{line}: {GRADER} has no result for "
        "declared qualification probe qual-unicode-answer",
    )
    messages = _messages(report, "judge-conflict")
    assert sum("has no result for declared qualification probe" in m for m in messages) == 5
    assert any(f"verdicts by {GRADER}, which failed qualification" in m for m in messages)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: {**r, "probe": "qual-made-up"},
            "{judge} ran qualification probe qual-made-up, which the volume does not declare",
        ),
        (
            lambda r: {**r, "got": "fail"},
            "{judge} graded qualification probe qual-clear-pass 'fail', not 'pass'",
        ),
        (
            lambda r: {**r, "expected": "fail", "got": "fail"},
            "{judge}'s record of qual-clear-pass expects 'fail', but the volume declares 'pass'",
        ),
    ],
    ids=["unknown", "failed", "expected-rewritten"],
)
def test_a_panel_judges_qualification_record_is_wrong(
    cli: CliRun, root: Path, change: Callable[[dict[str, Any]], dict[str, Any]], message: str
) -> None:
    path = bundle_dir(root, AURORA) / "qualification.jsonl"
    index = next(
        n
        for n, r in enumerate(_rows(path))
        if r["judge"] == LUMEN and r["probe"] == "qual-clear-pass"
    )
    _qualification(
        root, AURORA, lambda rs: [change(r) if n == index else r for n, r in enumerate(rs)]
    )
    _expect(
        cli,
        root,
        {"judge-conflict"},
        f"bundles/{VOL}/{AURORA}/qualification.jsonl:{index + 1}: " + message.format(judge=LUMEN),
    )


def test_a_probe_run_twice(cli: CliRun, root: Path) -> None:
    path = _qualification(
        root, AURORA, lambda rs: [*rs, next(r for r in rs if r["judge"] == LUMEN)]
    )
    line = len(_rows(path))
    _expect(
        cli,
        root,
        {"judge-conflict"},
        f"bundles/{VOL}/{AURORA}/qualification.jsonl:{line}: {LUMEN} ran qualification probe "
        "qual-clear-pass more than once",
    )


def test_a_seated_reserve_missing_a_probe(cli: CliRun, root: Path) -> None:
    # Kestrel's own-family grader is recused; the reserve grader Osprey takes the seat.
    path = _qualification(
        root,
        KESTREL,
        lambda rs: [
            r for r in rs if not (r["judge"] == OSPREY and r["probe"] == "qual-clear-fail")
        ],
    )
    line = next(n for n, r in enumerate(_rows(path)) if r["judge"] == OSPREY) + 1
    report = _expected(
        cli,
        root,
        {"judge-conflict", "recusal"},
        f"bundles/{VOL}/{KESTREL}/qualification.jsonl:{line}: {OSPREY} has no result for "
        "declared qualification probe qual-clear-fail",
    )
    assert f"bundles/{VOL}/{KESTREL}/bundle.json: reserve {OSPREY} is not qualified" in _messages(
        report, "recusal"
    )


def test_a_volume_that_declares_no_qualification(cli: CliRun, root: Path) -> None:
    text = _edit_volume(root, lambda doc: doc["jury"].pop("qualification"))
    _expect(
        cli,
        root,
        {"judge-conflict"},
        f"bundles/{VOL}/volume.yaml:{_line(text, 'jury:')}: the jury declares no qualification "
        "probe set, so no grader can be shown to have qualified",
    )


def test_a_probe_declared_twice_cannot_be_read(cli: CliRun, root: Path) -> None:
    vfile = root / "bundles" / VOL / "volume.yaml"
    doc = yaml.safe_load(vfile.read_text("utf-8"))
    probes = doc["jury"]["qualification"]["probes"]
    probes.append(dict(probes[0]))  # a copy: the same object would be dumped as an alias
    text = yaml.safe_dump(doc, sort_keys=False)
    vfile.write_text(text, "utf-8")
    git_commit_all(root)
    result = cli("check", VOL)
    assert result.exit_code == 2
    assert (
        f"bundles/{VOL}/volume.yaml:{_line(text, 'status: required')}: "
        "jury.qualification: qualification probes declared twice: qual-clear-pass "
        "[schema]" in result.stderr
    )


def test_a_probe_set_declared_after_the_results_is_a_warning(cli: CliRun, root: Path) -> None:
    # A version 1 volume is committed with its bundles, and the probe set added later.
    vfile = root / "bundles" / VOL / "volume.yaml"
    declared = vfile.read_text("utf-8")
    _edit_volume(root, lambda doc: doc["jury"].pop("qualification"))
    git_commit_all(root, "results under a volume without a probe set")
    vfile.write_text(declared, "utf-8")
    git_commit_all(root, "declare the probe set afterwards")
    report = _check(cli)
    assert report["exit_code"] == 0
    warning = next(f for g in report["gates"] for f in g["findings"] if g["gate"] == "config")
    assert (warning["rule"], warning["severity"]) == ("prereg-added", "warning")
    assert warning["message"].startswith(
        "jury.qualification was declared after the results were committed (absent at commit "
    )
    strict = cli("gate", "config", VOL, "--strict")
    assert strict.exit_code == 1


def _without_audit_declarations(doc: dict[str, Any]) -> None:
    doc["jury"].pop("grading", None)
    doc["thresholds"].pop("min_category_items", None)
    doc["thresholds"].pop("min_volume_items", None)


def _with_audit_declarations(doc: dict[str, Any]) -> None:
    settings = {"prompt_sha256": "ab" * 32, "temperature": "0", "max_output_tokens": 512}
    doc["jury"]["grading"] = settings
    doc["thresholds"]["min_category_items"] = 2
    doc["thresholds"]["min_volume_items"] = 2


def test_grading_and_a_minimum_declared_after_the_results_warn(cli: CliRun, root: Path) -> None:
    # Results committed before the audit's declarations existed; both declared later.
    _edit_volume(root, _without_audit_declarations)
    git_commit_all(root, "results under a volume without grading or a minimum")
    _edit_volume(root, _with_audit_declarations)
    assert cli("figures", VOL).exit_code == 0  # the receipts record the new grading
    git_commit_all(root, "declare them afterwards")
    report = _check(cli)
    assert report["exit_code"] == 0
    added = sorted(
        f["message"].split(" ")[0]
        for g in report["gates"]
        for f in g["findings"]
        if g["gate"] == "config" and f["rule"] == "prereg-added"
    )
    assert added == [
        "jury.grading",
        "thresholds.min_category_items",
        "thresholds.min_volume_items",
    ]


def test_grading_changed_after_the_results_is_refused(cli: CliRun, root: Path) -> None:
    _edit_volume(root, _with_audit_declarations)
    git_commit_all(root, "results with grading declared")
    _edit_volume(root, lambda doc: doc["jury"]["grading"].update(max_output_tokens=4096))
    git_commit_all(root, "a larger grading budget afterwards")
    report = _check(cli)
    assert report["exit_code"] == 1
    rules = {f["rule"] for g in report["gates"] for f in g["findings"] if g["gate"] == "config"}
    assert "prereg-changed" in rules


def test_a_probe_set_cut_after_the_results_is_refused(cli: CliRun, root: Path) -> None:
    git_commit_all(root, "results")
    _edit_volume(
        root,
        lambda doc: doc["jury"]["qualification"].update(
            probes=doc["jury"]["qualification"]["probes"][:1]
        ),
    )
    git_commit_all(root, "keep only the probe the grader passed")
    report = _check(cli)
    assert report["exit_code"] == 1
    assert any(
        "protocol, thresholds, jury or conditions changed after the results were committed" in m
        for m in _messages(report, "config")
    )
