"""``import items`` on small hand-made files: every rule and its message."""

from __future__ import annotations

import json
from pathlib import Path

from tests.importing.factories import init, run

HEADER = (
    "id,category,tier,prompt,pass_criterion,check,status,"
    "written_by,written_on,reviewed_by,reviewed_on,validated_by,validated_on,heldout"
)
SIGNED = "wes,2024-01-01,ann,2024-01-02,val,2024-01-03"
"""The three rungs' columns of a validated row."""


def _import(root: Path, text: str, *options: str, name: str = "items.csv") -> object:
    path = root.parent / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return run(root, "import", "items", str(path), *options)


def test_tier0_checks_are_json_cells_and_heldout_text_stays_private(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "math")
    text = (
        f"{HEADER}\n"
        'm-1,math,0,2+2?,Says 4.,"{""kind"": ""number"", ""expected"": ""4""}",validated,wes,'
        "2024-01-01,ann,2024-01-02,val,2024-01-03,false\n"
        'm-2,math,0,3+3?,Says 6.,"{""kind"": ""number"", ""expected"": ""6""}",draft,ann,'
        "2024-01-02,,,,,true\n"
    )
    result = _import(root, text)
    assert result.exit_code == 0, result.output
    public = json.loads((root / "bank" / "public.jsonl").read_text("utf-8"))
    assert public["check"] == {"expected": "4", "kind": "number", "tolerance": "0"}
    index = (root / "bank" / "heldout_index.jsonl").read_text("utf-8")
    assert "3+3" not in index and "Says 6" not in index and '"id":"m-2"' in index
    assert "3+3?" in (root / ".private" / "heldout_items.jsonl").read_text("utf-8")
    assert run(root, "check", "vol-001").exit_code == 2  # the skeleton is not filled in yet


def test_every_bad_row_is_reported_and_nothing_is_written(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "math")
    text = (
        f"{HEADER}\n"
        f"m-1,poetry,1,Q?,C.,,validated,{SIGNED},false\n"
        f"m-2,math,0,Q?,C.,,validated,{SIGNED},false\n"
        f'm-3,math,1,Q?,C.,"{{oops",validated,{SIGNED},false\n'
        "m-4,math,1,Q?,C.,,validated,,,,,,,false\n"
        f"m-5,math,1,Q?,C.,,validated,{SIGNED},false\n"
        f"m-5,math,1,Q?,C.,,validated,{SIGNED},false\n"
    )
    result = _import(root, text)
    assert result.exit_code == 2
    out = result.output
    assert "items.csv:2: category 'poetry' is not declared" in out
    assert "items.csv:3: a Tier 0 item needs a mechanical check" in out
    assert "items.csv:4: check: a CSV cell of this field holds JSON" in out
    assert (
        "items.csv:5: status 'validated' needs written_by, written_on, reviewed_by, "
        "reviewed_on, validated_by, validated_on (the validation ladder"
    ) in out
    assert "items.csv:7: item m-5 also at line 6" in out
    assert "nothing was written" in out
    assert (root / "bank" / "public.jsonl").read_bytes() == b""


def test_an_undeclared_version_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "math")
    result = _import(
        root, f"{HEADER}\nm-1,math,1,Q?,C.,,validated,{SIGNED},false\n", "--version", "v2"
    )
    assert result.exit_code == 2
    assert "bank version 'v2' is not declared in bank/bank.yaml (declared: v1)" in result.output


def test_cp1252_is_read_when_named(tmp_path: Path) -> None:
    root = tmp_path / "root"
    init(root, "math")
    text = f"{HEADER}\nm-1,math,1,Caf\u00e9?,C.,,validated,{SIGNED},false\n"
    path = tmp_path / "items.csv"
    path.write_bytes(text.encode("cp1252"))
    assert run(root, "import", "items", str(path)).exit_code == 2
    assert run(root, "import", "items", str(path), "--encoding", "cp1252").exit_code == 0
    assert "Caf\u00e9?" in (root / "bank" / "public.jsonl").read_text("utf-8")
