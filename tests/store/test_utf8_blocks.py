"""A JSON document's UTF-8 is checked a block at a time, never held as text (issue 19):
the same files pass, and a file that is not UTF-8 is refused at the same byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.store import strict
from generator.store.jsonl import Problems, parse_document

CASES = [
    '{"a": "x–y"}'.encode(),
    '{"a": "––––", "b": "\U0001f600"}'.encode(),
    b'{"a": "x\xffy"}',
    '{"a": "–'.encode()[:-1] + b'"}',
    b'{"a": "\xe2\x80"}',
    b'{"a": "ok"}\xe2',
    b"\xc3\x28{}",
]


@pytest.mark.parametrize("raw", CASES)
@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 20])
def test_utf8_checked_in_blocks_as_decoded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: bytes, block: int
) -> None:
    monkeypatch.setattr(strict, "_DECODED", block)
    path = tmp_path / "doc.json"
    path.write_bytes(raw)
    problems = Problems()
    parsed = parse_document(path, "doc.json", problems, 1 << 20)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        assert parsed is None
        assert [(p.rule, p.message) for p in problems.items] == [
            ("utf-8", f"file is not valid UTF-8 (byte {exc.start + 1})")
        ]
    else:
        assert problems.items == [] and parsed is not None and parsed.raw == raw
