"""``import items`` and the validation ladder: per-rung columns, an external validation,
and the refusals, each with its exact message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.importing.factories import init, run
from tests.ladder_data import SIGNED

ROW = {"id": "q-1", "category": "safety", "prompt": "Say hi.", "pass_criterion": "Greets."}


def _import(root: Path, *rows: dict[str, Any]) -> Any:
    path = root.parent / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return run(root, "import", "items", str(path))


def _history(root: Path) -> list[dict[str, Any]]:
    line = (root / "bank" / "public.jsonl").read_text("utf-8").splitlines()[0]
    return json.loads(line)["validation"]  # type: ignore[no-any-return]


def test_each_rung_gets_its_own_person_and_date(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "safety")
    result = _import(root, {**ROW, "status": "validated", **SIGNED})
    assert result.exit_code == 0, result.output
    assert _history(root) == [
        {"by": "wes", "on": "2024-01-01", "status": "draft"},
        {"by": "ann", "on": "2024-01-02", "status": "reviewed"},
        {"by": "val", "on": "2024-01-03", "status": "validated"},
    ]  # a step that uses none of the later fields is written as before


def test_an_item_validated_by_its_source_says_so(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "safety")
    source = {"external": "Chao et al., JailbreakBench (NeurIPS 2024)"}
    dated = {"validated_by": "JailbreakBench authors", "validated_on": "2024-03-28"}
    result = _import(root, {**ROW, "status": "validated", **source, **dated})
    assert result.exit_code == 0, result.output
    [step] = _history(root)
    assert step["external"] == "Chao et al., JailbreakBench (NeurIPS 2024)"
    assert (step["status"], step["by"], step["on"]) == (
        "validated",
        "JailbreakBench authors",
        "2024-03-28",
    )


def test_a_single_reviewer_cannot_validate(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "safety")
    one = {"reviewed_by": "ann", "reviewed_on": "2024-01-02"}
    result = _import(root, {**ROW, "status": "validated", **one})
    assert result.exit_code == 2
    assert (
        "items.jsonl:1: status 'validated' needs written_by, written_on, validated_by, "
        "validated_on (the validation ladder: written_by for the draft, reviewed_by, then "
        "validated_by, a different person each; or external, naming the publication that "
        "validated it)"
    ) in result.output
    assert (root / "bank" / "public.jsonl").read_bytes() == b""


def test_a_history_that_breaks_the_ladder_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "safety")
    same = {**SIGNED, "validated_by": "ANN"}
    result = _import(root, {**ROW, "status": "validated", **same})
    assert result.exit_code == 2
    assert (
        "items.jsonl:1: validation ladder: step 3 (validated) is signed by 'ANN', who also "
        "signed it off as 'reviewed': each rung needs a different person"
    ) in result.output
    alone = [{"status": "validated", "by": "ann", "on": "2024-01-02"}]
    result = _import(root, {**ROW, "status": "validated", "validation": alone})
    assert result.exit_code == 2
    assert "items.jsonl:1: validation ladder: step 1 is 'validated': a history starts at" in (
        result.output
    )
