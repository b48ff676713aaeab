"""Held-out commitments on the way in: the old plain-digest formats are refused with a
message that says why, and private texts that do not match the published commitments are
findings that name the private file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.hashing import sha256_text
from generator.store.bank import item_text_sha256
from tests.conftest import CliRun, tree_state
from tests.factories import bundle_dir, edit_lines, first_slug

OLD_INDEX = (
    "bank/heldout_index.jsonl:1: schema_version: schema_version 1 is an old format that this "
    "probepress refuses (it reads 2): its text_sha256 is a plain SHA-256 of held-out text, "
    "which anyone can test guesses against; rewrite the index with prompt_commitment and "
    "criterion_commitment (`probepress demo` for the example) [schema]"
)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), "utf-8")


def _refused(cli: CliRun, root: Path, expected: str) -> None:
    before = tree_state(root)
    result = cli("show", "vol-001")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert expected in result.stderr, result.stderr
    assert tree_state(root) == before


def test_an_old_heldout_index_is_refused(cli: CliRun, root: Path) -> None:
    index = root / "bank" / "heldout_index.jsonl"
    rows = _rows(index)
    for row in rows:  # the version 1 shape: a plain digest instead of commitments
        del row["prompt_commitment"], row["criterion_commitment"]
        row.update(schema_version=1, text_sha256=sha256_text(row["id"]))
    _write(index, rows)
    _refused(cli, root, OLD_INDEX)


def test_an_old_draws_file_is_refused(cli: CliRun, root: Path) -> None:
    slug = first_slug(root)

    def old(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in rows:
            row["schema_version"] = 1
            if "response_commitment" in row:
                row["response_sha256"] = "0" * 64
                del row["response_commitment"]
        return rows

    edit_lines(bundle_dir(root, slug), "draws.jsonl", old)
    _refused(
        cli,
        root,
        f"bundles/vol-001/{slug}/draws.jsonl:1: schema_version: schema_version 1 is an old "
        "format that this probepress refuses (it reads 3): its response_sha256 is a plain "
        "SHA-256 of a held-out response, which anyone can test guesses against; write the "
        "bundle again with response_commitment (`probepress demo` for the example) [schema]",
    )


def _preflight(cli: CliRun, expected: str) -> None:
    result = cli("gate", "preflight", "vol-001")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert expected in result.stderr, result.stderr


def test_an_index_commitment_that_does_not_match_the_private_text(cli: CliRun, root: Path) -> None:
    index = root / "bank" / "heldout_index.jsonl"
    rows = _rows(index)
    rows[2]["prompt_commitment"] = rows[3]["prompt_commitment"]
    _write(index, rows)
    private = (root / ".private" / "heldout_items.jsonl").resolve()
    line = 1 + [r["id"] for r in _rows(private)].index(rows[2]["id"])
    _preflight(
        cli,
        f"{private}:{line}: {rows[2]['id']}: prompt_commitment of bank/heldout_index.jsonl:3 "
        "does not match this text under the bank secret [preflight/private-commitment]; fix: "
        "restore the private store (or the index) that was published together",
    )


def test_a_private_item_changed_after_publication(cli: CliRun, root: Path) -> None:
    private = root / ".private" / "heldout_items.jsonl"
    rows = _rows(private)
    rows[0]["pass_criterion"] += " Reworded."
    # The private line stays self-consistent; only the keyed commitment can tell.
    rows[0]["text_sha256"] = item_text_sha256(
        rows[0]["prompt"], rows[0]["pass_criterion"], rows[0].get("check")
    )
    _write(private, rows)
    index_line = 1 + [r["id"] for r in _rows(root / "bank" / "heldout_index.jsonl")].index(
        rows[0]["id"]
    )
    _preflight(
        cli,
        f"{private.resolve()}:1: {rows[0]['id']}: criterion_commitment of "
        f"bank/heldout_index.jsonl:{index_line} does not match this text under the bank "
        "secret [preflight/private-commitment]",
    )


def test_a_private_response_changed_after_publication(cli: CliRun, root: Path) -> None:
    slug = first_slug(root)
    path = root / ".private" / "responses" / "vol-001" / f"{slug}.jsonl"
    rows = _rows(path)
    rows[4]["text"] += " (edited)"
    _write(path, rows)
    key = (rows[4]["item"], rows[4]["half"], rows[4]["draw"])
    draws = _rows(bundle_dir(root, slug) / "draws.jsonl")
    line = 1 + [(d["item"], d["half"], d["draw"]) for d in draws].index(key)
    _preflight(
        cli,
        f"{path.resolve()}:5: response to {key[0]} {key[1]}{key[2]} does not match the "
        f"response_commitment of bundles/vol-001/{slug}/draws.jsonl:{line} under the bank "
        "secret [preflight/private-commitment]",
    )
