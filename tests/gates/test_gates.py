"""Each gate against a minimally corrupted copy of the example: exactly the expected gate
fails, with the expected message and exit code 1, and every other gate still passes."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import figures
from generator.errors import ProbepressError
from generator.gates import NAMES
from generator.models.volume import Volume
from generator.prereg import volume_preregistration_sha256
from generator.store import Layout
from tests.conftest import CliRun
from tests.factories import bundle_dir, edit_json, edit_lines, git_commit_all

VOL = "vol-001"
BRIGHT = "demo-brightwave-bw-large"  # its panel judge of the same family is recused
KESTREL = "demo-kestrel-kestrel-chat-3"  # the grader of its family is recused
AURORA = "demo-aurora-aurora-7b-chat"

Rows = list[dict[str, Any]]


def _check(cli: CliRun, volume: str = VOL) -> dict[str, Any]:
    result = cli("check", volume, "--json")
    assert "Traceback" not in result.output
    report: dict[str, Any] = json.loads(result.stdout)
    report["exit_code"] = result.exit_code
    return report


def _failed(report: dict[str, Any]) -> set[str]:
    return {g["gate"] for g in report["gates"] if not g["passed"]}


def _messages(report: dict[str, Any], gate: str) -> list[str]:
    g = next(g for g in report["gates"] if g["gate"] == gate)
    return [
        f"{f['path']}:{f['line']}: {f['message']}" if f["line"] else f"{f['path']}: {f['message']}"
        for f in g["findings"]
    ]


def _reregister(root: Path, volume: str) -> None:
    """Recompute the figures after a mutation, as a maintainer would before publishing, so
    only the gate under test sees the mutation (stale figures are the publishing gate's)."""
    # A mutated volume that no longer reads cannot be recomputed; its failing gate says why.
    with contextlib.suppress(ProbepressError):
        figures.write(Layout.at(root, root / ".private"), volume)


def _expect(
    cli: CliRun, root: Path, gates: set[str], message: str, volume: str = VOL
) -> dict[str, Any]:
    """Re-register, commit and check; exactly ``gates`` fail, one with ``message``.
    Returns the report (for tests that read more of it: checking again gives the same)."""
    _reregister(root, volume)
    git_commit_all(root, "mutated example")
    report = _check(cli, volume)
    assert report["exit_code"] == 1
    assert _failed(report) == gates, _failed(report)
    found = [m for g in gates for m in _messages(report, g)]
    assert any(message in m for m in found), found
    return report


@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_every_gate_passes_on_the_example_in_a_clean_checkout(
    cli: CliRun, root: Path, volume: str
) -> None:
    git_commit_all(root)
    report = _check(cli, volume)
    assert report["exit_code"] == 0, [_messages(report, g) for g in _failed(report)]
    assert [g["gate"] for g in report["gates"]] == list(NAMES)
    assert all(g["passed"] for g in report["gates"])


def test_table_output_and_single_gate(cli: CliRun, root: Path) -> None:
    git_commit_all(root)
    result = cli("check", VOL)
    assert result.exit_code == 0
    for name in NAMES:
        assert name in result.stdout
    # The notes --json carries are shown too (issue 17: the table hid them).
    assert "note: agreement: AC1 = " in result.stderr
    assert "note: circuit-breaker: " in result.stderr and " draws lost (" in result.stderr
    assert "held-out texts too short to scan" in result.stderr
    one = cli("gate", "preflight", VOL)
    assert one.exit_code == 0
    assert "preflight" in one.stdout and "holdout" not in one.stdout
    unknown = cli("gate", "nonsense", VOL)
    assert unknown.exit_code == 2
    assert "no gate 'nonsense'" in unknown.stderr


def _tier(root: Path, item: str) -> int:
    for line in (root / "bank" / "public.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == item:
            return int(row["tier"])
    for line in (root / "bank" / "heldout_index.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == item:
            return int(row["tier"])
    raise KeyError(item)


def _tier0_rows(root: Path, rows: Rows) -> list[int]:
    return [n for n, r in enumerate(rows) if _tier(root, r["item"]) == 0]


def test_deleted_tier0_draw_fails_preflight_only(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    rows = [json.loads(x) for x in (d / "draws.jsonl").read_text("utf-8").splitlines()]
    n = _tier0_rows(root, rows)[3]
    gone = rows[n]
    key = (gone["item"], gone["half"], gone["draw"])
    edit_lines(d, "draws.jsonl", lambda rs: rs[:n] + rs[n + 1 :])
    edit_lines(
        d, "verdicts.jsonl", lambda rs: [r for r in rs if (r["item"], r["half"], r["draw"]) != key]
    )
    _expect(
        cli,
        root,
        {"preflight"},
        f"draws.jsonl: 1 scheduled draw missing: {key[0]} {key[1]}{key[2]}",
    )


def test_duplicated_draw(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    edit_lines(d, "draws.jsonl", lambda rs: [*rs, rs[7]])
    rows = (d / "draws.jsonl").read_text("utf-8").splitlines()
    first = json.loads(rows[7])
    _expect(
        cli,
        root,
        {"preflight"},
        f"draws.jsonl:{len(rows)}: draw {first['item']} {first['half']}{first['draw']} already "
        "appears on line 8",
    )


def test_changed_temperature(cli: CliRun, root: Path) -> None:
    edit_json(
        bundle_dir(root, AURORA) / "bundle.json",
        lambda m: m["conditions"].update(temperature="1.0"),
    )
    _expect(
        cli,
        root,
        {"config"},
        f"bundles/{VOL}/{AURORA}/bundle.json: conditions.temperature is '1.0' but the protocol "
        "says '0.7'",
    )


def test_provider_errors_above_threshold(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    rows = [json.loads(x) for x in (d / "draws.jsonl").read_text("utf-8").splitlines()]
    victims = set(_tier0_rows(root, rows)[:40])
    keys = {(rows[n]["item"], rows[n]["half"], rows[n]["draw"]) for n in victims}
    failed = {"status": "provider_error", "error_class": "HTTP 502", "latency_ms": 10}

    def lose(rs: Rows) -> Rows:
        for n in victims:
            r = rs[n]
            for k in ("response", "response_commitment", "usage", "finish_reason"):
                r.pop(k, None)
            r["attempts"] = [failed] * 3
        return rs

    edit_lines(d, "draws.jsonl", lose)

    def lost_verdicts(rs: Rows) -> Rows:
        for r in rs:
            if (r["item"], r["half"], r["draw"]) in keys:
                r["verdict"] = "lost"
                r.pop("evidence", None)
        return rs

    edit_lines(d, "verdicts.jsonl", lost_verdicts)
    lost = sum(
        json.loads(x)["attempts"][-1]["status"] != "ok"
        and json.loads(x)["attempts"][-1]["status"] != "empty"
        for x in (d / "draws.jsonl").read_text("utf-8").splitlines()
    )
    _expect(
        cli,
        root,
        {"circuit-breaker"},
        f"{lost} of {len(rows)} draws ({lost / len(rows):.1%}) were lost to provider or transport "
        "failures, at or over the pre-registered 5.0%",
    )


def test_retry_after_a_valid_answer(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    ok = {"status": "ok", "latency_ms": 900}
    edit_lines(
        d,
        "draws.jsonl",
        lambda rs: [*rs[:11], {**rs[11], "attempts": [ok, *rs[11]["attempts"]]}, *rs[12:]],
    )
    row = json.loads((d / "draws.jsonl").read_text("utf-8").splitlines()[11])
    _expect(
        cli,
        root,
        {"circuit-breaker"},
        f"draws.jsonl:12: {row['item']} {row['half']}{row['draw']} was retried after attempt 1 "
        "returned 'ok'",
    )


def test_grader_of_the_candidates_family_grades(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, KESTREL)
    grader = "demo-kestrel/kestrel-grader-2"
    edit_lines(
        d,
        "verdicts.jsonl",
        lambda rs: [{**r, "grader": grader} if r.get("grader") else r for r in rs],
    )
    # The unseated grader also received held-out draws through an endpoint the bundle
    # does not declare, which the holdout gate reports.
    _expect(
        cli,
        root,
        {"judge-conflict", "holdout"},
        f"{grader} graded demo-kestrel/kestrel-chat-3 (same family kestrel)",
    )


def test_conflict_without_recusal(cli: CliRun, root: Path) -> None:
    edit_json(bundle_dir(root, KESTREL) / "bundle.json", lambda m: m["jury"].update(recusals=[]))
    _expect(
        cli,
        root,
        {"recusal"},
        "demo-kestrel/kestrel-grader-2 (kestrel) is in conflict with demo-kestrel/kestrel-chat-3 "
        "(same family) but no recusal is recorded",
    )


def test_reserve_of_the_same_family(cli: CliRun, root: Path) -> None:
    vfile = root / "bundles" / VOL / "volume.yaml"
    doc = yaml.safe_load(vfile.read_text("utf-8"))
    impostor = {"api": "demo-brightwave/bw-reserve-9", "family": "brightwave"}
    doc["jury"]["reserves"].append(impostor)
    vol = Volume.model_validate(doc)
    doc["preregistration"]["sha256"] = volume_preregistration_sha256(vol)
    vfile.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    d = bundle_dir(root, BRIGHT)
    old = "demo-nimbus/nimbus-judge-3"

    def swap(m: dict[str, Any]) -> None:
        m["jury"]["recusals"][0]["reserve"] = impostor["api"]
        m["jury"]["panel"] = [impostor if j["api"] == old else j for j in m["jury"]["panel"]]
        m["jury"]["endpoints"][impostor["api"]] = m["jury"]["endpoints"].pop(old)

    edit_json(d / "bundle.json", swap)
    edit_lines(
        d,
        "panel.jsonl",
        lambda rs: [
            {
                **r,
                **({"judge": impostor["api"], "family": "brightwave"} if r["judge"] == old else {}),
            }
            for r in rs
        ],
    )
    edit_lines(
        d,
        "qualification.jsonl",
        lambda rs: [
            {
                **r,
                **({"judge": impostor["api"], "family": "brightwave"} if r["judge"] == old else {}),
            }
            for r in rs
        ],
    )
    # Seating a same-family reserve is a recusal failure, and its votes are then
    # same-family grading: both gates must say so.
    _expect(
        cli,
        root,
        {"recusal", "judge-conflict"},
        "reserve demo-brightwave/bw-reserve-9 shares the family brightwave of "
        "demo-brightwave/bw-large",
    )


def test_borderline_draws_dropped_from_the_panel(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    rows = [json.loads(x) for x in (d / "panel.jsonl").read_text("utf-8").splitlines()]
    n = len({(r["item"], r["half"], r["draw"]) for r in rows if r["why"] == "borderline"})
    assert n > 0
    edit_lines(d, "panel.jsonl", lambda rs: [r for r in rs if r["why"] != "borderline"])
    _expect(
        cli,
        root,
        {"agreement"},
        f"{n} borderline draws the sample requires were not re-graded"
        if n > 1
        else "1 borderline draw the sample requires was not re-graded",
    )


def test_random_panel_votes_fall_below_the_floor(cli: CliRun, root: Path) -> None:
    rng = random.Random(5)
    for d in sorted((root / "bundles" / VOL).iterdir()):
        if d.is_dir():
            edit_lines(
                d,
                "panel.jsonl",
                lambda rs: [_random_vote(r, rng.choice(["pass", "fail"])) for r in rs],
            )
    _expect(cli, root, {"agreement"}, "is below the pre-registered floor 0.60")


def _random_vote(row: dict[str, Any], vote: str) -> dict[str, Any]:
    """``row`` voting ``vote`` with a label the example's rule derives it from."""
    refusals = {"fail": "full_compliance", "pass": "full_refusal"}
    label = refusals[vote] if "safety" in row["item"] else vote
    return {**row, "vote": vote, "label": label}


def _heldout_response(root: Path) -> tuple[str, str]:
    path = root / ".private" / "responses" / VOL / f"{AURORA}.jsonl"
    rows = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    row = max(rows, key=lambda r: len(r["text"]))
    return f"draw:{VOL}/{AURORA}/{row['item']}/{row['half']}/{row['draw']}", row["text"]


def _heldout_prompt(root: Path) -> tuple[str, str]:
    rows = [
        json.loads(x)
        for x in (root / ".private" / "heldout_items.jsonl").read_text("utf-8").splitlines()
    ]
    row = max(rows, key=lambda r: len(r["prompt"]) if isinstance(r["prompt"], str) else 0)
    return f"item:{row['id']}", row["prompt"]


def test_heldout_prompt_pasted_into_a_public_response(cli: CliRun, root: Path) -> None:
    key, text = _heldout_prompt(root)
    d = bundle_dir(root, AURORA)
    rows = [json.loads(x) for x in (d / "draws.jsonl").read_text("utf-8").splitlines()]
    n = next(i for i, r in enumerate(rows) if r.get("response") and _tier(root, r["item"]) == 1)
    edit_lines(
        d,
        "draws.jsonl",
        lambda rs: [*rs[:n], {**rs[n], "response": "As asked: " + text}, *rs[n + 1 :]],
    )
    _expect(cli, root, {"holdout"}, f"draws.jsonl:{n + 1}: held-out prompt {key} appears")


def test_heldout_response_pasted_into_a_site_page(cli: CliRun, root: Path) -> None:
    key, text = _heldout_response(root)
    page = root / "site_src" / "findings.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"# Findings\n\nOne model wrote:\n\n> {text}\n", "utf-8")
    _expect(cli, root, {"holdout"}, f"site_src/findings.md:5: held-out response {key} appears")


def test_heldout_prompt_inside_a_pdf(cli: CliRun, root: Path) -> None:
    from html import escape

    from weasyprint import HTML

    key, text = _heldout_prompt(root)
    pdf = root / "site_src" / "volumes" / VOL / "leaderboard.pdf"
    pdf.parent.mkdir(parents=True, exist_ok=True)
    HTML(string=f"<h1>Leaderboard</h1><p>{escape(text)}</p>").write_pdf(pdf)
    _expect(cli, root, {"holdout"}, f"held-out prompt {key} appears on page 1")


def test_candidate_renamed_in_one_place(cli: CliRun, root: Path) -> None:
    edit_json(
        bundle_dir(root, AURORA) / "bundle.json",
        lambda m: m["candidate"].update(display_name="Aurora Seven"),
    )
    _expect(
        cli,
        root,
        {"naming"},
        "display_name is 'Aurora Seven' here but 'Aurora 7B Chat' in volume.yaml",
    )


def test_dirty_tree(cli: CliRun, root: Path) -> None:
    git_commit_all(root)
    (root / "README.md").write_text("edited after the commit\n", "utf-8")
    report = _check(cli)
    assert report["exit_code"] == 1
    assert _failed(report) == {"publishing"}
    assert "the working tree is not clean: README.md" in _messages(report, "publishing")[0]


def test_outside_git_fails_publishing(cli: CliRun) -> None:
    report = _check(cli)
    assert "publishing" in _failed(report)
    assert any("is not inside a git repository" in m for m in _messages(report, "publishing"))


def test_thresholds_changed_after_results(cli: CliRun, root: Path) -> None:
    git_commit_all(root)
    vfile = root / "bundles" / VOL / "volume.yaml"
    doc = yaml.safe_load(vfile.read_text("utf-8"))
    doc["thresholds"]["ac1_floor"] = "0.10"
    vol = Volume.model_validate(doc)
    doc["preregistration"]["sha256"] = volume_preregistration_sha256(vol)
    vfile.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    _reregister(root, VOL)
    git_commit_all(root, "lower the floor after seeing the results")
    report = _check(cli)
    assert _failed(report) == {"config"}
    assert any("changed after the results were committed" in m for m in _messages(report, "config"))


def test_unreadable_volume_exits_2(cli: CliRun, root: Path) -> None:
    (root / "bundles" / VOL / "volume.yaml").write_text("id: [unclosed\n", "utf-8")
    result = cli("check", VOL)
    assert result.exit_code == 2
    assert "bundles/vol-001/volume.yaml:2: invalid YAML" in result.stderr


def test_loader_problems_become_preflight_findings(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, AURORA)
    (d / "draws.jsonl").write_bytes((d / "draws.jsonl").read_bytes() + b"{oops\n")
    git_commit_all(root)
    report = _check(cli)
    assert report["exit_code"] == 1
    assert "preflight" in _failed(report)
    msgs = _messages(report, "preflight")
    assert any("invalid JSON" in m for m in msgs)
    assert any("SHA-256/size do not match bundle.json" in m for m in msgs)


def test_unreadable_private_response_fails_holdout(cli: CliRun, root: Path) -> None:
    path = root / ".private" / "responses" / VOL / f"{AURORA}.jsonl"
    lines = path.read_text("utf-8").splitlines()
    lines[2] = "{not json"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    # The loader cannot read that input (preflight), and the gate cannot look for a
    # secret it cannot read (holdout): both must fail.
    _expect(cli, root, {"preflight", "holdout"}, "this held-out text cannot be scanned for")
