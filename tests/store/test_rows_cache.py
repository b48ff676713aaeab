"""Bundles restored from the result cache are exactly what reading them gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import generator.store.bundle as bundle_module
from generator.store import Layout, load_volume
from generator.store.volume import VolumeData
from tests.factories import first_slug

VOL = "vol-001"


def _layout(root: Path, cache: bool | Path) -> Layout:
    return Layout.at(root, root / ".private", cache=cache)


def _state(data: VolumeData) -> dict[str, Any]:
    return {
        "problems": [str(p) for p in data.problems],
        "bundles": {
            slug: (b.draws, b.verdicts, b.panel, b.qualification, b.file_sha256, b.manifest)
            for slug, b in data.bundles.items()
        },
    }


class _Reads:
    """The bundle files read line by line."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.files: list[str] = []
        real = bundle_module.iter_jsonl  # type: ignore[attr-defined]

        def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
            self.files.append(path.name)
            return real(path, *args, **kwargs)

        monkeypatch.setattr(bundle_module, "iter_jsonl", counted)


def test_restored_rows_equal_read_rows(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = _state(load_volume(_layout(root, False), VOL))
    warm_layout = _layout(root, root.parent / "cache")
    first = _state(load_volume(warm_layout, VOL))
    reads = _Reads(monkeypatch)
    second = _state(load_volume(warm_layout, VOL))
    assert cold == first == second
    assert "draws.jsonl" not in reads.files and "verdicts.jsonl" not in reads.files
    assert "qualification.jsonl" in reads.files  # small files are always read


def test_a_changed_line_is_read_and_reported(root: Path) -> None:
    layout = _layout(root, root.parent / "cache")
    load_volume(layout, VOL)
    draws = root / "bundles" / VOL / first_slug(root) / "draws.jsonl"
    lines = draws.read_bytes().splitlines(keepends=True)
    lines[2] = b'{"not": "a draw"}\n'
    draws.write_bytes(b"".join(lines))
    for _ in range(2):  # a bundle with problems is never remembered
        data = load_volume(layout, VOL, strict=False)
        rules = {p.rule for p in data.problems if p.path.endswith("draws.jsonl")}
        assert {"schema", "manifest-hash"} <= rules
    assert _state(data) == _state(load_volume(_layout(root, False), VOL, strict=False))


def test_changed_private_texts_are_read_again(root: Path) -> None:
    layout = _layout(root, root.parent / "cache")
    load_volume(layout, VOL)
    responses = sorted((root / ".private" / "responses" / VOL).glob("*.jsonl"))[0]
    lines = responses.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[0])
    record["text"] += " (edited)"
    lines[0] = (json.dumps(record) + "\n").encode()
    responses.write_bytes(b"".join(lines))
    data = load_volume(layout, VOL, strict=False)
    assert [p.rule for p in data.problems] == ["private-commitment"]


def test_a_damaged_entry_is_read_again(root: Path) -> None:
    cache_dir = root.parent / "cache"
    layout = _layout(root, cache_dir)
    expected = _state(load_volume(layout, VOL))
    entries = [p for p in (cache_dir / "bundle-rows").rglob("*") if p.is_file()]
    assert entries
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:-40])  # truncated
    assert _state(load_volume(layout, VOL)) == expected
    for entry in entries:
        entry.write_text('{"draws": [[1]], "verdicts": [], "panel": [], "files": {}}')
    assert _state(load_volume(layout, VOL)) == expected


def test_an_entry_with_a_boolean_line_is_damaged() -> None:
    """Line numbers are pooled per volume: a ``true`` would stand for line 1 everywhere."""
    from generator.store import rows
    from generator.store.rowtypes import DrawKey, DrawRow, PanelRow, VerdictRow

    def entry(line: object) -> bytes:
        draw = [line, "item-1", "A", 1, ["ok"], False, True, None]
        files = {name: "0" * 64 for name in rows.FILES}
        return json.dumps({"draws": [draw], "verdicts": [], "panel": [], "files": files}).encode()

    types = (DrawKey, DrawRow, VerdictRow, PanelRow)
    pool: rows.Pool = {}
    restored = rows.restore(entry(1), *types, pool=pool)
    assert restored is not None and restored.draws[0].line == 1
    assert rows.restore(entry(True), *types, pool=pool) is None
    assert type(pool[1]) is int
