"""Copies of the same bytes are scanned once and reported under every name."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.leaks import LeakIndex, scan_file, scan_paths
from generator.leaks import scan as scan_module
from tests.leaks.leak_samples import PROMPT


def test_each_copy_is_reported_and_scanned_once(
    index: LeakIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "intro\n" + PROMPT + "\n"
    for name in ("a/notes.md", "b/notes.md", "c/other.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    (tmp_path / "c" / "page.html").write_text(text, "utf-8")  # same bytes, read as markup
    (tmp_path / "c" / "same-size.md").write_text(text.replace("intro", "INTRO"), "utf-8")
    scanned: list[str] = []
    real = scan_module._scan

    def counting(index: LeakIndex, path: Path, label: str, seen: object) -> object:
        scanned.append(label)
        return real(index, path, label, seen)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_module, "_scan", counting)
    leaks = scan_paths(index, [tmp_path], root=tmp_path)
    assert [(leak.source, leak.line, leak.secret_key) for leak in leaks] == [
        ("a/notes.md", 2, "item:h-0003"),
        ("b/notes.md", 2, "item:h-0003"),
        ("c/other.md", 2, "item:h-0003"),
        ("c/page.html", 2, "item:h-0003"),
        ("c/same-size.md", 2, "item:h-0003"),
    ]
    assert scanned == ["a/notes.md", "c/page.html", "c/same-size.md"]
    monkeypatch.undo()
    alone = [leak for p in sorted(tmp_path.rglob("*.*")) for leak in scan_file(index, p)]
    assert sorted(leak.sort_key() for leak in alone) == sorted(
        leak.sort_key() for leak in scan_paths(index, [p for p in tmp_path.rglob("*.*")])
    )
