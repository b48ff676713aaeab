"""The JSONL reader cuts lines out of blocks; block boundaries must change nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from generator.models.records import PanelVote
from generator.store import jsonl
from generator.store.jsonl import Bounds, Problems, StreamResult, iter_jsonl

VOTE = (
    b'{"draw":2,"family":"lumen","half":"A","item":"ambig-001",'
    b'"judge":"demo-lumen/lumen-judge-1","schema_version":1,"vote":"fail","why":"stratified"}'
)
LINES = [VOTE, b"", b"x" * 400, VOTE, b"   ", b"{bad", VOTE.replace(b"lumen", b"l\xffmen"), VOTE]


def _read(path: Path, bounds: Bounds) -> tuple[list[int], list[str], StreamResult]:
    problems, result = Problems(), StreamResult()
    lines = [number for number, _ in iter_jsonl(path, PanelVote, "f", problems, bounds, result)]
    return lines, [str(p) for p in problems.items], result


@pytest.mark.parametrize("final_newline", [True, False])
@pytest.mark.parametrize("line_bytes", [150, 300, 10_000])
def test_every_block_size_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, final_newline: bool, line_bytes: int
) -> None:
    data = b"\n".join(LINES) + (b"\n" if final_newline else b"")
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    bounds = Bounds(max_line_bytes=line_bytes)
    seen = []
    for block in (1, 3, 64, 150, 1 << 20):
        monkeypatch.setattr(jsonl, "_BLOCK", block)
        seen.append(_read(path, bounds))
    assert all(s == seen[0] for s in seen)
    lines, problems, result = seen[0]
    assert result.sha256 == hashlib.sha256(data).hexdigest()
    assert result.size == len(data)
    assert lines == ([1, 4, 8] if final_newline else [1, 4])
    assert any("[line-too-long]" in p for p in problems) == (line_bytes < 401)
    assert any("[truncated-line]" in p for p in problems) == (not final_newline)


def test_too_many_records_stops_hashing_at_that_line(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\n".join([VOTE] * 5) + b"\n")
    lines, problems, result = _read(path, Bounds(max_records=2))
    assert lines == [1, 2]
    assert problems == [
        "f:3: more than 2 records (the max_records bound); the rest is not read "
        "[too-many-records]; fix: raise the bound: --limit max_records=N with N above 2"
    ]
    assert result.sha256 == hashlib.sha256((VOTE + b"\n") * 3).hexdigest()
