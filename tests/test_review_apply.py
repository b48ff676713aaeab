"""``probepress review apply`` and the validation ladder, on a copy of the example bank:
every refusal with its exact message and exit code, and what reaches the ledgers."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from generator.cli import main

REPO = Path(__file__).resolve().parents[1]
BANK = "probepress example bank (demonstration data)"
FIX = "fix: build a new review page (`probepress review build`) and review again"
LEDGER_FIX = (
    "fix: the ledger only grows through `probepress review apply`; restore the published lines"
)
Review = Callable[..., Result]
VOLUMES = ("vol-001", "vol-002")
"""The volumes published when the review tests' bank was current (the example as of vol-002)."""


@pytest.fixture
def root(example_vol002_src: Path, tmp_path: Path) -> Path:
    """The example's bank as of vol-002, with vol-001 and vol-002 published (their volume
    files and their entries of the committed fingerprint registry): enough to review."""
    dest = tmp_path / "root"
    shutil.copytree(example_vol002_src / "bank", dest / "bank")
    (dest / "figures").mkdir(parents=True)
    registry = json.loads((REPO / "figures" / "fingerprints.json").read_text("utf-8"))
    published = {k: v for k, v in registry["files"].items() if v["volume"] in VOLUMES}
    text = json.dumps({**registry, "files": published}, indent=2, sort_keys=True)
    (dest / "figures" / "fingerprints.json").write_text(text + "\n", "utf-8")
    for volume in VOLUMES:
        (dest / "bundles" / volume).mkdir(parents=True)
        shutil.copy(
            example_vol002_src / "bundles" / volume / "volume.yaml", dest / "bundles" / volume
        )
    (dest / ".private").mkdir()
    return dest


def decision(item: str, seen: str, what: str = "sign-off", **extra: str) -> dict[str, str]:
    return {"item": item, "seen_status": seen, "decision": what, **extra}


@pytest.fixture
def review(root: Path) -> Review:
    """Write a review file of ``decisions`` and apply it as ``reviewer``."""

    def run(
        *decisions: dict[str, str],
        reviewer: str = "M. Lindqvist",
        on: str = "2026-12-01",
        **header: Any,
    ) -> Result:
        doc = {"bank": BANK, "bank_version": "v1.2", "batch": "v1.2-01", **header}
        path = root / "review.json"
        path.write_text(json.dumps({**doc, "decisions": list(decisions)}, indent=1), "utf-8")
        args = ["--root", str(root), "--private", str(root / ".private"), "review", "apply"]
        return CliRunner().invoke(main, [*args, str(path), "--reviewer", reviewer, "--on", on])

    return run


def ledger(root: Path, name: str = "status.jsonl") -> list[dict[str, Any]]:
    path = root / "bank" / name
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()] if path.exists() else []


def test_a_sign_off_climbs_one_rung_with_the_reviewers_name_and_date(
    root: Path, review: Review
) -> None:
    before = {p.name: p.read_bytes() for p in (root / "bank").iterdir()}
    result = review(decision("live-003", "reviewed", comment="criterion is clear"))
    assert result.exit_code == 0, result.output
    assert "1 sign-off appended to bank/status.jsonl, 0 disagreements recorded" in result.output
    assert ledger(root) == [
        {
            "bank_version": "v1.2",
            "by": "M. Lindqvist",
            "comment": "criterion is clear",
            "item": "live-003",
            "notes_private": False,
            "on": "2026-12-01",
            "resolution": "",
            "schema_version": 1,
            "status": "validated",
        }
    ]
    for name, data in before.items():  # the frozen bank files never change
        assert (root / "bank" / name).read_bytes() == data


@pytest.mark.parametrize(
    ("reviewer", "message"),
    [
        (
            "S. Tanaka",
            "step 3 (validated) is signed by 'S. Tanaka', who also signed it off as "
            "'reviewed': each rung needs a different person",
        ),
        (
            "s.   TANAKA",
            "step 3 (validated) is signed by 's.   TANAKA', who also signed it off as "
            "'reviewed': each rung needs a different person",
        ),
        (
            "R. Okafor",
            "step 3 (validated) is signed by 'R. Okafor', who also wrote the item: each rung "
            "needs a different person",
        ),
    ],
)
def test_the_same_person_never_signs_two_rungs(
    root: Path, review: Review, reviewer: str, message: str
) -> None:
    result = review(decision("live-003", "reviewed"), reviewer=reviewer)
    assert result.exit_code == 2
    shown = root / "review.json"
    assert f"{shown}: review not applied (nothing was written):" in result.output
    assert f"{shown}:7: live-003: {message} [validation-ladder]; {FIX}" in result.output
    assert "Traceback" not in result.output
    assert not (root / "bank" / "status.jsonl").exists()


def test_a_validated_item_climbs_no_further(root: Path, review: Review) -> None:
    result = review(decision("ambig-001", "validated"))
    assert result.exit_code == 2
    assert (
        f"{root / 'review.json'}:7: ambig-001: the item is already 'validated', the top rung "
        f"[validation-ladder]; {FIX}"
    ) in result.output


def test_a_file_built_before_someone_else_reviewed_is_refused(root: Path, review: Review) -> None:
    assert review(decision("premise-004", "draft"), reviewer="S. Tanaka").exit_code == 0
    result = review(decision("premise-004", "draft"), reviewer="R. Okafor")
    assert result.exit_code == 2
    assert (
        f"{root / 'review.json'}:7: premise-004: the page showed it 'draft' but it is now "
        f"'reviewed' (reviewed by someone else since) [review-stale]; {FIX}"
    ) in result.output
    assert [c["by"] for c in ledger(root)] == ["S. Tanaka"]


@pytest.mark.parametrize(
    ("header", "rule", "message"),
    [
        (
            {"bank_version": "v1.1"},
            "review-version",
            "the file was built for bank version v1.1; the bank is now v1.2",
        ),
        (
            {"bank": "another bank"},
            "review-bank",
            "the file is for bank 'another bank', not "
            "'probepress example bank (demonstration data)'",
        ),
    ],
)
def test_a_file_for_another_bank_or_version_is_refused(
    root: Path, review: Review, header: dict[str, str], rule: str, message: str
) -> None:
    result = review(decision("live-003", "reviewed"), **header)
    assert result.exit_code == 2
    assert f"{root / 'review.json'}: {message} [{rule}]; {FIX}" in result.output
    assert not (root / "bank" / "status.jsonl").exists()


def test_an_unknown_item_refuses_the_whole_file(root: Path, review: Review) -> None:
    result = review(decision("live-003", "reviewed"), decision("nope-001", "draft"))
    assert result.exit_code == 2
    assert (
        f"{root / 'review.json'}:12: item nope-001 is not in the bank [review-item]; {FIX}"
    ) in result.output
    assert not (root / "bank" / "status.jsonl").exists()  # all or nothing


def test_a_date_that_would_change_a_published_volume_is_refused(root: Path, review: Review) -> None:
    result = review(decision("live-003", "reviewed"), on="2026-11-25")
    assert result.exit_code == 2
    assert (
        f"{root / 'review.json'}: the review date 2026-11-25 is not after vol-002's publication "
        "date (2026-11-25): vol-002 counts the ledger up to that day, so its published figures "
        "would change [review-date]; fix: give the real date with --on"
    ) in result.output


def test_a_disagreement_needs_a_resolution_before_validation(root: Path, review: Review) -> None:
    disagree = decision("prov-003", "reviewed", "disagree", comment="the source is wrong")
    assert review(disagree, reviewer="A. Haddad").exit_code == 0
    assert ledger(root, "disagreements.jsonl")[0]["comment"] == "the source is wrong"
    result = review(decision("prov-003", "reviewed"), reviewer="R. Okafor", on="2026-12-02")
    assert result.exit_code == 2
    assert (
        "prov-003: the 'validated' step follows a recorded disagreement but gives no "
        "resolution: write down how the two reviewers settled it [validation-ladder]"
    ) in result.output
    fixed = decision("prov-003", "reviewed", resolution="source replaced by the primary one")
    assert review(fixed, reviewer="R. Okafor", on="2026-12-02").exit_code == 0
    assert ledger(root)[0]["resolution"] == "source replaced by the primary one"


def test_a_held_out_items_notes_stay_in_the_private_store(root: Path, review: Review) -> None:
    index = root / "bank" / "heldout_index.jsonl"
    lines = index.read_text("utf-8").splitlines()
    entry = json.loads(lines[0])
    entry["status"], entry["validation"] = "reviewed", entry["validation"][:2]
    index.write_text("\n".join([json.dumps(entry), *lines[1:]]) + "\n", "utf-8")
    secret = "the held-out prompt asks about 03/04"
    result = review(decision(entry["id"], "reviewed", comment=secret), reviewer="M. Lindqvist")
    assert result.exit_code == 0, result.output
    line = ledger(root)[0]
    assert line["notes_private"] is True and line["comment"] == "" and line["by"] == "M. Lindqvist"
    assert all(secret not in p.read_text("utf-8") for p in (root / "bank").iterdir())
    notes = (root / ".private" / "review_notes.jsonl").read_text("utf-8")
    assert secret in notes


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        (
            [("validated", "A. Haddad", "2026-10-07")],
            "step 1 is 'validated': a history starts at 'draft' (who wrote the item, and "
            "when), then climbs one rung per sign-off",
        ),
        (
            [("draft", "R. Okafor", "2026-10-04"), ("validated", "A. Haddad", "2026-10-07")],
            "step 2 jumps from 'draft' to 'validated', skipping 'reviewed'",
        ),
        (
            [
                ("draft", "R. Okafor", "2026-10-04"),
                ("reviewed", "A. Haddad", "2026-10-07"),
                ("reviewed", "S. Tanaka", "2026-10-08"),
            ],
            "step 3 goes from 'reviewed' to 'reviewed': a status never goes down or repeats a rung",
        ),
        (
            [("draft", "R. Okafor", "2026-10-04"), ("reviewed", "A. Haddad", "2026-10-01")],
            "step 2 (reviewed, 2026-10-01) is dated before step 1 (draft, 2026-10-04)",
        ),
    ],
)
def test_the_bank_refuses_a_history_that_breaks_the_ladder(
    root: Path, review: Review, steps: list[tuple[str, str, str]], message: str
) -> None:
    path = root / "bank" / "public.jsonl"
    lines = path.read_text("utf-8").splitlines()
    n = next(i for i, x in enumerate(lines) if '"id":"live-003"' in x)
    item = json.loads(lines[n])
    item["validation"] = [{"status": s, "by": b, "on": o} for s, b, o in steps]
    item["status"] = steps[-1][0]
    lines[n] = json.dumps(item)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    result = review(decision("prem-004", "draft"))
    assert result.exit_code == 2
    assert f"bank/public.jsonl:{n + 1}: validation ladder: {message} [schema]" in result.output


def test_a_hand_written_ledger_line_that_skips_a_rung_is_refused(
    root: Path, review: Review
) -> None:
    line = {
        "bank_version": "v1.2",
        "by": "M. Lindqvist",
        "item": "premise-004",
        "on": "2026-12-01",
        "status": "validated",
    }
    (root / "bank" / "status.jsonl").write_text(json.dumps(line) + "\n", "utf-8")
    result = review(decision("live-003", "reviewed"))
    assert result.exit_code == 2
    assert (
        "bank/status.jsonl:1: premise-004: the item is 'draft': a sign-off climbs exactly one "
        f"rung, to 'reviewed', not to 'validated' [validation-ladder]; {LEDGER_FIX}"
    ) in result.output


def test_a_file_that_is_no_review_file_is_refused_at_its_line(root: Path, review: Review) -> None:
    result = review(decision("live-003", "reviewed", "maybe"))
    assert result.exit_code == 2
    assert (
        f"{root / 'review.json'}:9: decisions[0].decision: Input should be 'sign-off', 'disagree' "
        "or 'skip', got 'maybe' [schema]"
    ) in result.output
    assert not (root / "bank" / "status.jsonl").exists()


def test_a_disagreement_without_a_comment_is_refused(root: Path, review: Review) -> None:
    result = review(decision("live-003", "reviewed", "disagree"))
    assert result.exit_code == 2
    assert "a disagreement needs a comment saying what is wrong [schema]" in result.output


def test_a_hand_written_disagreement_with_a_wrong_status_is_refused(
    root: Path, review: Review
) -> None:
    line = {
        "bank_version": "v1.2",
        "by": "M. Lindqvist",
        "comment": "too loose",
        "item": "premise-004",
        "on": "2026-12-01",
        "status": "reviewed",
    }
    (root / "bank" / "disagreements.jsonl").write_text(json.dumps(line) + "\n", "utf-8")
    result = review(decision("live-003", "reviewed"))
    assert result.exit_code == 2
    assert (
        "bank/disagreements.jsonl:1: premise-004 was 'draft' on 2026-12-01, not 'reviewed' "
        f"[ledger-status]; {LEDGER_FIX}"
    ) in result.output
