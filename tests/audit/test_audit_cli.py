"""``probepress audit`` through the CLI on the example, and the mutations that fail it."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, Skipped

from generator import tier0
from tests.conftest import CliRun

VOL1 = "vol-001"


def _bank_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), "utf-8")


def _declare(root: Path, item: str, reference: dict[str, Any], *, private: bool = False) -> None:
    """Give one bank item (public, or held out in the private store) a reference."""
    path = root / (".private/heldout_items.jsonl" if private else "bank/public.jsonl")
    rows = _bank_lines(path)
    for row in rows:
        if row["id"] == item:
            row["reference"] = reference
            row["schema_version"] = max(row.get("schema_version", 1), 2)  # 3 with a canary
    _write_lines(path, rows)


def _shotgun(text: str) -> tier0.Stated:
    """A mutated number rule: the last number is the answer, whatever else is offered."""
    numbers = tier0._tokens(tier0.plain(text))
    return tier0.Stated(numbers[-1].value if numbers else None)


def test_the_audit_passes_on_the_example_and_says_what_it_could_not_test(cli: CliRun) -> None:
    # The example declares every reference, known-wrong answer, minimum and grading
    # setting: all that is left untested here is the release, not published in a fixture.
    result = cli("audit", VOL1)
    assert result.exit_code == 0, result.output
    assert "vol-001: audit passed" in result.stderr
    untested = [line for line in result.stderr.splitlines() if line.startswith("not tested")]
    assert untested == [
        "not tested: receipts: vol-001 is not published yet: no release to check [audit/untested]"
    ]
    assert "FAIL" not in result.stderr


def test_strict_fails_what_could_not_be_tested(cli: CliRun) -> None:
    result = cli("audit", VOL1, "--strict")
    assert result.exit_code == 1
    assert "vol-001: audit failed: receipts" in result.stderr


def test_a_check_that_accepts_several_answers_fails_the_audit(
    cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tier0, "stated_number", _shotgun)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert (
        "FAIL: exploits: bank/public.jsonl (arith-001): the Tier 0 check of arith-001 accepts "
        "several answers at once: '6 or 5' passes [audit/exploit]"
    ) in result.stderr
    assert (  # the example's own negative control catches the mutation too
        "FAIL: controls: bank/public.jsonl (arith-001): known-wrong answer 2 of arith-001 "
        "'The ball costs 5 cents, or maybe 10"
    ) in result.stderr
    assert "vol-001: audit failed: controls, exploits" in result.stderr


def test_exploit_messages_never_show_held_out_text(
    cli: CliRun, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tier0, "stated_number", _shotgun)
    result = cli("audit", VOL1, "--json")
    held = [
        r
        for r in _bank_lines(root / ".private/heldout_items.jsonl")
        if r.get("check", {}).get("kind") == "number"
    ]
    assert held
    cases = [
        c
        for s in json.loads(result.stdout)["sections"]
        for c in s["cases"]
        if c["status"] == "fail"
    ]
    for row in held:
        mine = [c for c in cases if c["name"].startswith(f"{row['id']}/")]
        assert mine, row["id"]
        expected = format(Decimal(row["check"]["expected"]), "f")
        for case in mine:
            assert "(held-out text not shown)" in case["message"]
            assert expected not in case["message"].replace(row["id"], "")


def test_a_stale_reference_answer_fails_the_audit(cli: CliRun, root: Path) -> None:
    _declare(root, "arith-001", {"answer": "The ball costs 10 cents."})
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert (
        "FAIL: reference: bank/public.jsonl (arith-001): the Tier 0 check fails arith-001's "
        "reference answer with rule wrong-number: states 10, not 5 (a stale reference answer, "
        "or a check that rejects a right answer); fix the reference or the check "
        "[audit/stale-reference]"
    ) in result.stderr


def test_reference_and_known_wrong_answers_are_tested(cli: CliRun, root: Path) -> None:
    _declare(
        root,
        "arith-001",
        {
            "answer": "The ball costs 5 cents.",
            "known_wrong": [
                {"answer": "10 cents", "rule": "wrong-number"},
                {"answer": "5 or 10 cents", "rule": "wrong-number"},
            ],
        },
    )
    result = cli("audit", VOL1, "--json")
    assert result.exit_code == 1
    sections = {s["section"]: s for s in json.loads(result.stdout)["sections"]}
    reference = {c["name"]: c for c in sections["reference"]["cases"]}
    assert reference["arith-001/reference"]["status"] == "pass"
    controls = {c["name"]: c for c in sections["controls"]["cases"]}
    assert controls["arith-001/known-wrong-1"]["status"] == "pass"
    assert controls["arith-001/known-wrong-2"]["message"] == (
        "known-wrong answer 2 of arith-001 '5 or 10 cents' fails with several-answers, "
        "expected to fail with wrong-number"
    )


def test_a_held_out_stale_reference_is_named_by_id_only(cli: CliRun, root: Path) -> None:
    held = next(
        r
        for r in _bank_lines(root / ".private/heldout_items.jsonl")
        if r.get("check", {}).get("kind") == "number"
    )
    _declare(root, held["id"], {"answer": "It is 123456789."}, private=True)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert (
        f"the Tier 0 check fails {held['id']}'s reference answer with rule wrong-number "
        "(a stale reference answer" in result.stderr
    )
    assert "123456789" not in result.stderr


def test_a_category_below_the_minimum_fails_the_audit(cli: CliRun, root: Path) -> None:
    volume = root / "bundles" / VOL1 / "volume.yaml"
    text = re.sub(r"  min_category_items: \d+\n", "", volume.read_text("utf-8"))
    volume.write_text(
        text.replace(
            "  max_qualification_refusals: 1\n",
            "  max_qualification_refusals: 1\n  min_category_items: 5\n",
        ),
        "utf-8",
    )
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert (
        "FAIL: balance: bundles/vol-001/volume.yaml: category ambiguity has 4 validated "
        "items, below the pre-registered minimum of 5: its per-category rates are "
        "withheld (not published); add validated items [audit/category-below-minimum]"
    ) in result.stderr


def test_figures_without_a_receipt_fail_the_audit(cli: CliRun, root: Path) -> None:
    path = root / "figures" / "figures.json"
    registry = json.loads(path.read_text("utf-8"))
    assert registry["receipts"][VOL1]["scorer"]["tier0_sha256"]
    del registry["receipts"]
    registry["schema_version"] = 1
    path.write_text(json.dumps(registry), "utf-8")
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert (
        "FAIL: receipts: figures/figures.json: records no receipt (scorer version, Tier 0 "
        "code hash, grader prompt hash and settings)"
    ) in result.stderr


def test_junit_and_markdown_reports(cli: CliRun, root: Path, tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script> [x](javascript:1) | 5"
    _declare(
        root,
        "arith-001",
        {"answer": "10 cents", "known_wrong": [{"answer": hostile, "rule": "wrong-number"}]},
    )
    junit, markdown = tmp_path / "audit.xml", tmp_path / "audit.md"
    result = cli("audit", VOL1, "--junit", str(junit), "--markdown", str(markdown))
    assert result.exit_code == 1
    xml = JUnitXml.fromfile(str(junit))
    suites = {s.name: s for s in xml}
    assert set(suites) == {
        f"audit.{n}"
        for n in (
            "reference",
            "controls",
            "exploits",
            "properties",
            "baselines",
            "balance",
            "receipts",
        )
    }
    failed = [c for c in suites["audit.reference"] if any(isinstance(r, Failure) for r in c.result)]
    # A wrong reference fails its item and makes the pseudo-candidate imperfect.
    assert [c.name for c in failed] == ["arith-001/reference", "pseudo-candidate"]
    assert any(isinstance(r, Skipped) for c in suites["audit.receipts"] for r in c.result)
    assert xml.failures == 3 and xml.errors == 0
    text = markdown.read_text("utf-8")
    assert text.startswith("### probepress audit vol-001: FAILED\n")
    assert "| audit.reference | 62 | 2 | 0 | 0 |" in text
    assert "<script" not in text and "&lt;script&gt;" in text
    assert " [x](javascript" not in text and "\\[x\\](javascript" in text  # no link


def test_an_unreadable_volume_is_a_junit_error(cli: CliRun, root: Path, tmp_path: Path) -> None:
    (root / "bundles" / VOL1 / "volume.yaml").write_text("id: [unclosed\n", "utf-8")
    junit = tmp_path / "audit.xml"
    result = cli("audit", VOL1, "--junit", str(junit))
    assert result.exit_code == 2
    xml = JUnitXml.fromfile(str(junit))
    assert xml.errors == 1 and xml.failures == 0


def test_a_coverage_that_forgets_the_schedule_fails_the_audit(
    cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.audit import properties

    def answered_of_present(c: Any) -> float:
        recorded = c.scheduled - c.unrecorded
        return c.answered / recorded if recorded else 0.0

    monkeypatch.setattr(properties, "answered_share", answered_of_present)
    result = cli("audit", VOL1)
    assert result.exit_code == 1
    assert "FAIL: properties: bundles/vol-001: " in result.stderr
    assert "raised coverage [audit/property-removed-draw]" in result.stderr
