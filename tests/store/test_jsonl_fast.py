"""The JSONL reader's fast path (core-only validation of bytes) changes nothing: with every
line sent the careful way (decode, then the model), records, problems and hashes are the
same."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import SchemaValidator

from generator.models.records import Draw, PanelVote
from generator.store import jsonl
from generator.store.jsonl import Bounds, Problems, StreamResult, iter_jsonl

VOTE = (
    b'{"draw":2,"family":"lumen","half":"A","item":"ambig-001",'
    b'"judge":"demo-lumen/lumen-judge-1","schema_version":1,"vote":"fail","why":"stratified"}'
)
DRAW = (
    b'{"attempts":[{"latency_ms":9,"status":"ok"}],"draw":1,"half":"A","item":"ambig-001",'
    b'"latency_ms":9,"response":"caf\xc3\xa9 \\u00e9","schema_version":2}'
)
BAD_VOTES = [
    VOTE.replace(b'"schema_version":1', b'"schema_version":2'),
    VOTE.replace(b'"schema_version":1', b'"schema_version":"2"'),
    VOTE.replace(b'"schema_version":1', b'"schema_version":1.0'),
    VOTE.replace(b'"vote"', b'"mood":"x","vote"'),
    VOTE.replace(b"lumen", b"l\xffmen"),
    VOTE.replace(b"fail", b"f\xed\xa0\x80il"),
    VOTE + b" " + VOTE,
    VOTE[:-1],
    b"\xef\xbb\xbf" + VOTE,
    b"  " + VOTE + b"\r",
    b"",
    b" \t ",
    b"{bad",
    b"null",
]
BAD_DRAWS = [
    DRAW.replace(
        b'"response"', b'"response_commitment":"hmac-sha256:' + b"0" * 64 + b'","response"'
    ),
    DRAW.replace(b'"ok"', b'"timeout"'),
    DRAW.replace(b'"schema_version":2', b'"schema_version":3'),
    DRAW.replace(b'"schema_version":2', b'"schema_version":1'),  # the old, plain-digest shape
    DRAW.replace(b'"draw":1', b'"draw":101'),
]


class _RefuseAll:
    """Stands in for the fast validator: refuses every line, so all go the careful way."""

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model

    def validate_json(self, line: bytes) -> Any:
        SchemaValidator({"type": "int"}).validate_json(b'"no"')  # raises ValidationError


def _read(path: Path, model: type[BaseModel], bounds: Bounds) -> tuple[Any, ...]:
    problems, result = Problems(), StreamResult()
    records = [
        (number, type(record), record.model_dump())
        for number, record in iter_jsonl(path, model, "f", problems, bounds, result)
    ]
    return records, [str(p) for p in problems.items], result


@pytest.mark.parametrize(
    ("model", "good", "bad"), [(PanelVote, VOTE, BAD_VOTES), (Draw, DRAW, BAD_DRAWS)]
)
@pytest.mark.parametrize(
    "bounds", [Bounds(), Bounds(max_line_bytes=220), Bounds(max_records=9)], ids=repr
)
@pytest.mark.parametrize("final_newline", [True, False])
def test_fast_and_careful_paths_agree(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: type[BaseModel],
    good: bytes,
    bad: list[bytes],
    bounds: Bounds,
    final_newline: bool,
) -> None:
    lines = [good, good]
    for line in bad:  # each bad line in the middle of good ones
        lines += [line, good]
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    fast = _read(path, model, bounds)
    monkeypatch.setattr(jsonl, "json_validator", _RefuseAll)
    careful = _read(path, model, bounds)
    assert fast == careful
    records, problems, result = fast
    assert records and problems
    assert all(kind is model for _, kind, _ in records)
    if bounds.max_records > len(lines):
        assert result.sha256 == hashlib.sha256(data).hexdigest()
        assert result.size == len(data)


def test_a_bad_line_in_the_middle_keeps_its_number_and_message(tmp_path: Path) -> None:
    ahead = PanelVote.supported_schema_version + 1
    newer = VOTE.replace(b'"schema_version":1', b'"schema_version":%d' % ahead)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\n".join([VOTE, VOTE, newer, VOTE]) + b"\n")
    records, problems, result = _read(path, PanelVote, Bounds())
    assert [number for number, _, _ in records] == [1, 2, 4]
    assert problems == [
        f"f:3: schema_version: schema_version {ahead} is newer than this probepress reads "
        f"({ahead - 1}); upgrade probepress [schema]"
    ]
    assert result.records == 3


@pytest.mark.parametrize("block", [1, 5, 64, 300, 1 << 20])
def test_too_many_records_stops_at_that_line_whatever_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(jsonl, "_BLOCK", block)
    long = b"x" * 400
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\n".join([VOTE, long, VOTE, long, VOTE, VOTE]) + b"\n")
    records, problems, result = _read(path, PanelVote, Bounds(max_line_bytes=300, max_records=4))
    assert [number for number, _, _ in records] == [1, 3]
    assert problems == [
        "f:2: line is longer than the 300-byte bound [line-too-long]",
        "f:4: line is longer than the 300-byte bound [line-too-long]",
        "f:5: more than 4 records (the max_records bound); the rest is not read "
        "[too-many-records]; fix: raise the bound: --limit max_records=N with N above 4",
    ]
    read = b"\n".join([VOTE, long, VOTE, long, VOTE]) + b"\n"
    assert result.sha256 == hashlib.sha256(read).hexdigest()
    assert result.size == len(read)
    assert not result.complete  # a hash of part of the file: nobody may compare it
