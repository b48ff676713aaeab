"""The downloads page's pandas snippets run, as printed, against the built downloads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from generator.site import _bank as read_bank
from generator.site import downloads
from generator.site.published import load_publication
from generator.site.snippets import Snippet, pandas_section, snippets
from generator.store import Layout
from tests.site.downstream import generated_root


@pytest.fixture(scope="module")
def gen(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated_root(example_src, tmp_path_factory)


@pytest.fixture(scope="module")
def found(gen: Path) -> list[Snippet]:
    layout = Layout.at(gen, gen / ".private")
    pub = load_publication(layout)
    return snippets(pub, downloads.plan(pub, read_bank(layout)))


def test_every_kind_of_download_has_a_snippet_on_the_page(gen: Path, found: list[Snippet]) -> None:
    page = (Layout.at(gen, gen / ".private").downloads_dir / "index.md").read_text("utf-8")
    assert "## Load it with pandas" in page
    wanted = ("leaderboard.csv", "leaderboard.json", "verdicts.jsonl", ".tar.gz", "figures.json")
    for part in (*wanted, "_public.jsonl"):
        assert any(part in s.code for s in found), part
    for snippet in found:
        indented = "\n".join(f"    {line}" if line else "" for line in snippet.code.splitlines())
        assert indented in page, snippet.title


def test_every_snippet_runs_in_the_downloaded_folder(
    gen: Path, found: list[Snippet], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "downloads"
    shutil.copytree(Layout.at(gen, gen / ".private").downloads_dir, folder)
    monkeypatch.chdir(folder)
    results = {}
    for snippet in found:
        scope: dict[str, object] = {}
        exec(compile(snippet.code, snippet.title, "exec"), scope)
        frame = scope[snippet.result]
        assert isinstance(frame, pd.DataFrame), snippet.title
        assert len(frame) > 0, snippet.title
        results[snippet.result] = frame
    core = results["core"]
    assert core["value"].is_monotonic_increasing and core["n"].min() > 0
    assert set(results["counts"]["verdict"]) <= {"pass", "fail", "grader_refused", "lost"}
    assert {"item", "half", "draw", "attempts"} <= set(results["draws"].columns)
    registry = json.loads((folder / "figures.json").read_text("utf-8"))["figures"]
    assert len(results["figures"]) == len(registry)
    # Every figure's sources are its files (path and digest), not the table's key.
    for sources in results["figures"]["sources"]:
        assert sources and all({"path", "sha256"} <= set(source) for source in sources)


def test_no_snippets_without_downloads(gen: Path) -> None:
    pub = load_publication(Layout.at(gen, gen / ".private"))
    assert pandas_section(pub, []) == ""
