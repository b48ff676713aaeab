"""Changes to a copy of the example bank for the review page tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from generator.canonical import dumps_line
from generator.store.bank import item_text_sha256
from tests.factories import edit_lines

DRAFT = "premise-004"
"""The example's one draft item (public, added in v1.2)."""
REVIEWED = ("live-003", "prov-003")
"""The example's items at ``reviewed``."""
PROMPT = '<script>alert("p")</script></script><img src=x onerror=alert(1)> why?'
NAME = '</script><img src=x onerror=alert(2)><script>alert("n")</script> A. \u202eEvil'
BANK_NAME = 'bank <script>alert("b")</script></script><img src=x onerror=alert(3)> \u202eknab'
SOURCE = 'javascript:alert(4)//"><img src=x onerror=alert(5)>'


def _rehash(row: dict[str, Any]) -> None:
    row["text_sha256"] = item_text_sha256(
        row["prompt"], row["pass_criterion"], row.get("check"), row.get("rubric")
    )


def make_hostile(root: Path) -> None:
    """Plant script in the draft item's prompt, sources and reviewer name, and in the
    bank's name (its hash kept right, so the bank still reads)."""

    def rows(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in lines:
            if row["id"] == DRAFT:
                row["prompt"] = PROMPT
                row["sources"] = [SOURCE]
                row["validation"][0]["by"] = NAME
                _rehash(row)
        return lines

    edit_lines(root / "bank", "public.jsonl", rows, seal=False)
    manifest = root / "bank" / "bank.yaml"
    data = yaml.safe_load(manifest.read_text("utf-8"))
    data["name"] = BANK_NAME
    manifest.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")


def heldout_id(root: Path) -> str:
    """The first held-out item of the example."""
    first = (root / "bank" / "heldout_index.jsonl").read_text("utf-8").splitlines()[0]
    return str(json.loads(first)["id"])


def make_heldout_draft(root: Path) -> str:
    """Turn the first held-out item back into a draft, in the index and the private store
    alike (its text, hence its commitments, unchanged); return its id."""
    item = heldout_id(root)

    def rows(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in lines:
            if row["id"] == item:
                row["status"] = "draft"
                row["validation"] = row["validation"][:1]
        return lines

    edit_lines(root / "bank", "heldout_index.jsonl", rows, seal=False)
    edit_lines(root / ".private", "heldout_items.jsonl", rows, seal=False)
    return item


def heldout_prompt(root: Path, item: str) -> str:
    """The held-out item's prompt text, from the private store."""
    for line in (root / ".private" / "heldout_items.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == item:
            prompt = row["prompt"]
            return prompt if isinstance(prompt, str) else str(prompt[-1]["content"])
    raise AssertionError(f"{item} is not in the private store")


def append_ledger(root: Path, *changes: dict[str, Any]) -> None:
    """Append status-ledger lines (``bank/status.jsonl``) as ``review apply`` would."""
    path = root / "bank" / "status.jsonl"
    old = path.read_text("utf-8") if path.exists() else ""
    lines = [dumps_line({"schema_version": 1, "bank_version": "v1.2", **c}) for c in changes]
    path.write_text(old + "".join(lines), "utf-8")


def dispute(root: Path, item: str = "live-003", on: str = "2026-10-10") -> None:
    """Record a disagreement with ``item`` (at ``reviewed``) after its review, as ``review
    apply`` would: its ``validated`` sign-off must then say how it was resolved."""
    line = {
        "schema_version": 1,
        "item": item,
        "status": "reviewed",
        "by": "K. Osei",
        "on": on,
        "bank_version": "v1.2",
        "comment": "The criterion fails an answer that gives a clearly labelled example.",
    }
    path = root / "bank" / "disagreements.jsonl"
    old = path.read_text("utf-8") if path.exists() else ""
    path.write_text(old + dumps_line(line), "utf-8")
