"""Weak baselines (issue 16): the ``baseline`` role, its place in the figures and pages,
and the audit section that checks each baseline scores as it declares."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator import figures
from generator.figures import GENERATOR
from generator.models.volume import Volume
from generator.render.pages import render_pages
from generator.render.provenance import provenance
from generator.store import Layout, load_volume
from tests.conftest import CliRun
from tests.factories import bundle_dir, edit_lines, edit_volume, volume_file

VOL1 = "vol-001"
REFUSE = "baseline-always-refuse"
RANDOM = "baseline-random-choice"
VOLUME_YAML = f"bundles/{VOL1}/volume.yaml"
Rows = list[dict[str, Any]]


def _registry(root: Path) -> dict[str, Any]:
    figures_: dict[str, Any] = json.loads((root / "figures/figures.json").read_text("utf-8"))
    return figures_["figures"]


def _listed(doc: dict[str, Any], slug: str) -> dict[str, Any]:
    return next(c for c in doc["candidates"] if c["api"].replace("/", "-") == slug)


def _failures(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("FAIL: baselines: ")]


def test_the_example_baselines_score_as_declared(cli: CliRun) -> None:
    result = cli("audit", VOL1, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    section = next(s for s in report["sections"] if s["section"] == "baselines")
    by_name = {c["name"]: c for c in section["cases"]}
    assert {n: c["status"] for n, c in by_name.items()} == {
        "placement": "pass",
        f"{REFUSE}/fails-answer-items": "pass",
        f"{RANDOM}/core-rate": "pass",
    }
    assert re.fullmatch(
        r"fails every decided draw of the \d+ items whose criterion requires an answer",
        by_name[f"{REFUSE}/fails-answer-items"]["message"],
    )


def test_a_baseline_placed_among_candidates_fails_the_audit(cli: CliRun, root: Path) -> None:
    edit_volume(root, lambda doc: _listed(doc, REFUSE).update(role="candidate"))
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert _failures(result.stderr) == [
        f"FAIL: baselines: {VOLUME_YAML}: Always refuse (baseline/always-refuse) declares "
        "baseline kind always-refuse but has role candidate: a baseline placed among the "
        "ranked models; give it role: baseline and its declaration [audit/baseline-ranked]"
    ]
    assert "vol-001: audit failed: baselines" in result.stderr


def test_a_candidate_named_like_a_baseline_fails_the_audit(cli: CliRun, root: Path) -> None:
    def undeclared(doc: dict[str, Any]) -> None:
        listed = _listed(doc, RANDOM)
        listed.update(role="candidate")
        del listed["baseline"]

    edit_volume(root, undeclared)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert _failures(result.stderr) == [
        f"FAIL: baselines: {VOLUME_YAML}: Random choice (baseline/random-choice) is named like "
        "a baseline (random-choice) but has role candidate: a baseline placed among the "
        "ranked models; give it role: baseline and its declaration [audit/baseline-ranked]"
    ]


def test_a_baseline_in_the_ranking_fails_the_audit(
    cli: CliRun, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A regression that ranks everyone listed: the registry gains ranks for the baselines
    # (rank_best and rank_worst: vol-001 ranks by paired comparisons, which define no tie
    # groups, so no tie_group is registered for anyone).
    layout = Layout.at(root, root / ".private")
    with monkeypatch.context() as patched:
        patched.setattr(Volume, "ranked", lambda self: list(self.candidates))
        figures.write(layout, VOL1)
    registry = _registry(root)
    assert f"{VOL1}/{REFUSE}/rank_best" in registry
    assert not any(f.endswith("/tie_group") for f in registry)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    where = "figures/figures.json"
    assert _failures(result.stderr) == [
        f"FAIL: baselines: {where}: baseline Always refuse is in the ranking (rank_best, "
        "rank_worst registered): a baseline is never ranked or compared; "
        "recompute with `probepress figures` [audit/baseline-ranked]",
        f"FAIL: baselines: {where}: baseline Random choice is in the ranking (rank_best, "
        "rank_worst registered): a baseline is never ranked or compared; "
        "recompute with `probepress figures` [audit/baseline-ranked]",
        f"FAIL: baselines: {where}: vol-001/baseline-always-refuse/rank_best ranks among 8 "
        "models but vol-001 ranks 6: baselines were counted in the ranking; recompute with "
        "`probepress figures` [audit/baseline-ranked]",
    ]


def _check_passes_a_refusal(rows: Rows) -> Rows:
    """A number check that passed one always-refuse draw of arith-001."""
    row = next(r for r in rows if r["item"] == "arith-001" and r["verdict"] == "fail")
    row["verdict"] = "pass"
    return rows


def test_a_refusal_that_passes_an_answer_item_fails_the_audit(cli: CliRun, root: Path) -> None:
    edit_lines(bundle_dir(root, REFUSE), "verdicts.jsonl", _check_passes_a_refusal)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert _failures(result.stderr) == [
        f"FAIL: baselines: bundles/{VOL1}/{REFUSE}/verdicts.jsonl: baseline Always refuse "
        "(always-refuse) passes 1 draw of 1 item whose criterion requires an answer "
        "(arith-001): the check or the grader accepts a non-answer; fix it, or the "
        "declaration [audit/baseline-passes]"
    ]


def test_a_baseline_off_its_declared_rate_fails_the_audit(cli: CliRun, root: Path) -> None:
    edit_volume(root, lambda doc: _listed(doc, RANDOM)["baseline"].update(core_rate="0.2"))
    scored = _registry(root)[f"{VOL1}/{RANDOM}/core_rate"]["display"]
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert _failures(result.stderr) == [
        f"FAIL: baselines: {VOLUME_YAML}: baseline Random choice (random-choice) scores core "
        f"rate {scored}, declared 20.0% ± 5.0%: it does not score as declared (a bank a "
        "shortcut beats, or a wrong declaration) [audit/baseline-rate]"
    ]


def _as_reference(share: str | None) -> Any:
    def change(doc: dict[str, Any]) -> None:
        _listed(doc, RANDOM)["baseline"] = {"kind": "reference"}
        if share is not None:
            doc["thresholds"]["reference_pass_share"] = share

    return change


def _reference_items(root: Path) -> tuple[int, list[str]]:
    """Items the random pick answered in some decided draw, and those it failed in one."""
    draws: dict[str, list[str]] = {}
    lines = (bundle_dir(root, RANDOM) / "verdicts.jsonl").read_text("utf-8").splitlines()
    for row in map(json.loads, lines):
        if row["verdict"] in ("pass", "fail") and "rubric" not in row:
            draws.setdefault(row["item"], []).append(row["verdict"])
    return len(draws), sorted(i for i, v in draws.items() if "fail" in v)


def test_a_reference_bundle_below_its_share_names_the_items_that_failed(
    cli: CliRun, root: Path
) -> None:
    # The random pick re-declared as the reference answers: far below a 90% share.
    edit_volume(root, _as_reference("0.9"))
    items, failed = _reference_items(root)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    passed = items - len(failed)
    (line,) = _failures(result.stderr)
    shown = ", ".join(failed[:8]) + f" and {len(failed) - 8} more"
    assert line == (
        f"FAIL: baselines: bundles/{VOL1}/{RANDOM}/verdicts.jsonl: reference bundle Random "
        f"choice passes {passed} of {items} items in every draw ({passed / items:.1%}; "
        f"pre-registered share 90.0%), below the share; failed: {shown}: the grader rejects "
        "right answers, or the reference answers are stale [audit/reference-share]"
    )


def _right_but_one(rows: Rows) -> Rows:
    """Every draw passes but those of arith-001: the reference answers as graded."""
    for row in rows:
        if row["verdict"] in ("fail", "grader_refused") and row["item"] != "arith-001":
            row["verdict"] = "pass"
    return rows


def test_a_reference_bundle_at_its_share_passes(cli: CliRun, root: Path) -> None:
    edit_volume(root, _as_reference("0.95"))
    edit_lines(bundle_dir(root, RANDOM), "verdicts.jsonl", _right_but_one)
    items, _ = _reference_items(root)
    result = cli("audit", VOL1, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    cases = next(s for s in report["sections"] if s["section"] == "baselines")["cases"]
    (case,) = [c for c in cases if c["name"] == f"{RANDOM}/reference-share"]
    assert case["status"] == "pass"
    assert case["message"] == (
        f"reference bundle Random choice passes {items - 1} of {items} items in every draw "
        f"({(items - 1) / items:.1%}; pre-registered share 95.0%); failed: arith-001"
    )


def test_a_reference_bundle_without_a_share_is_not_tested(cli: CliRun, root: Path) -> None:
    edit_volume(root, _as_reference(None))
    result = cli("audit", VOL1, "--strict")
    assert result.exit_code == 1
    assert (
        f"not tested: baselines: {VOLUME_YAML}: could not test the reference bundle: the "
        "volume declares no thresholds.reference_pass_share [audit/untested]"
    ) in result.stderr


def test_a_share_without_a_reference_bundle_is_not_tested(cli: CliRun, root: Path) -> None:
    edit_volume(root, lambda doc: doc["thresholds"].update(reference_pass_share="0.9"))
    result = cli("audit", VOL1)
    assert result.exit_code == 0
    assert (
        f"not tested: baselines: {VOLUME_YAML}: thresholds.reference_pass_share is declared "
        "but no baseline of kind reference (the grader run on the reference answers) is "
        "listed [audit/untested]"
    ) in result.stderr


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda doc: _listed(doc, RANDOM).pop("baseline"),
            "a baseline declares baseline: {kind: …} and what it should score",
        ),
        (
            lambda doc: _listed(doc, RANDOM)["baseline"].pop("core_rate"),
            "a baseline declares what it should score: fails_answer_items, core_rate, or both",
        ),
        (
            lambda doc: _listed(doc, RANDOM)["baseline"].pop("tolerance"),
            "core_rate and tolerance are declared together",
        ),
        (
            lambda doc: doc.update(schema_version=3),
            "a baseline needs schema_version 4 (write schema_version: 4)",
        ),
    ],
)
def test_a_baseline_declaration_is_checked_where_it_is_read(
    cli: CliRun, root: Path, change: Any, message: str
) -> None:
    path = volume_file(root, VOL1)
    import yaml

    doc = yaml.safe_load(path.read_text("utf-8"))
    change(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), "utf-8")
    result = cli("audit", VOL1)
    assert result.exit_code == 2
    assert message in result.stderr and VOLUME_YAML in result.stderr
    assert "Traceback" not in result.output


def test_baselines_are_never_ranked_but_get_every_other_figure(root: Path) -> None:
    registry = _registry(root)
    ranked = 6
    for slug in (REFUSE, RANDOM):
        assert f"{VOL1}/{slug}/core_rate" in registry
        assert f"{VOL1}/{slug}/lost_draws" in registry
        assert not [f for f in registry if f.startswith(f"{VOL1}/{slug}/") and "rank" in f]
        assert not [f for f in registry if f"/{slug}/" in f and "/movement/" in f]
    of = {f["detail"]["of"] for k, f in registry.items() if k.endswith("/rank_best")}
    assert of == {ranked, 8}  # vol-001 ranks 6 models, vol-002 ranks 8
    # The always-refuse baseline fails nearly everything: counted, no item would be solved.
    assert registry[f"{VOL1}/bank/retirement_candidates"]["value"] != "0"


def test_the_leaderboard_shows_baselines_in_their_own_table(root: Path) -> None:
    data = load_volume(Layout.at(root, root / ".private"), VOL1, private=False)
    mine = {k: v for k, v in figures.load_registry(data.layout).figures.items() if VOL1 in k}
    pages = render_pages(data, mine, provenance(data, GENERATOR))
    page = next(p for p in pages if p.kind == "leaderboard").html.decode("utf-8")
    results, rest = page.split('<section id="baselines">')
    baselines, after = rest.split("</section>", 1)
    assert "Always refuse" not in results and "Random choice" not in results
    assert "Always refuse" in baselines and "Random choice" in baselines
    assert "<td>random-choice</td>" in baselines and "Rank range" not in baselines
    assert "Always refuse" not in after.split('<section id="conditions">')[0]
    cards = {p.path.rsplit("/", 1)[-1] for p in pages if p.kind == "jury-card"}
    assert {f"{REFUSE}.html", f"{RANDOM}.html"} <= cards


def test_the_results_page_lists_baselines_apart_and_unranked(root: Path) -> None:
    from generator.site.published import PublishedVolume
    from generator.site.results import baseline_table, candidates_in_order, results_page

    volume = load_volume(Layout.at(root, root / ".private"), VOL1, private=False).volume
    mine = {k: v for k, v in figures.load_registry(Layout.at(root)).figures.items() if VOL1 in k}
    pv = PublishedVolume(volume, mine, {})
    assert [r.role for r in candidates_in_order(pv)].count("baseline") == 0
    table = baseline_table(pv)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0] == "| Baseline | Kind | Core rate | Full-bank rate | Core narrow interval |"
    core = mine[f"{VOL1}/{RANDOM}/core_rate"]
    assert f"| Random choice | random-choice | {core.display} |" in table
    page = results_page(pv)
    board, rest = page.split("## Baselines (not ranked)")
    assert "Always refuse" not in board and "Always refuse" in rest
    assert "5 candidates and 1 anchor (and 2 baselines)" in page
