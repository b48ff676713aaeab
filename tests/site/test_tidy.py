"""The tidy leaderboard downloads: the registered figures as rows, read back by pandas."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pandas as pd
import pytest

from generator.figures import load_registry
from generator.models.figures import Interval
from generator.models.leaderboard import Leaderboard
from generator.site import _bank as read_bank
from generator.site import archive, downloads, tidy
from generator.site.published import load_publication
from generator.store import Layout
from tests.site.downstream import generated_root


@pytest.fixture(scope="module")
def gen(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated_root(example_src, tmp_path_factory)


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private")


def _board(root: Path, volume: str) -> Leaderboard:
    data = (_layout(root).downloads_dir / tidy.json_name(volume)).read_bytes()
    return Leaderboard.model_validate_json(data)


@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_rows_are_every_registered_figure_of_every_candidate(gen: Path, volume: str) -> None:
    layout = _layout(gen)
    registry = load_registry(layout).figures
    pub = load_publication(layout)
    (pv,) = [v for v in pub.volumes if v.id == volume]
    # The tidy leaderboard is the ranking as rows: candidates and anchors (its schema's
    # roles). Baselines are never ranked; they have figures but no rows here.
    assert pv.volume.baselines()
    prefixes = tuple(f"{volume}/{c.slug}/" for c in pv.volume.ranked())
    expected = {k for k in registry if k.startswith(prefixes)}
    board = _board(gen, volume)
    assert sorted(r.figure_id for r in board.rows) == sorted(expected)
    assert {r.role for r in board.rows} <= {"candidate", "anchor"}
    baseline_prefixes = tuple(f"{volume}/{c.slug}/" for c in pv.volume.baselines())
    assert any(k.startswith(baseline_prefixes) for k in registry)
    for row in board.rows:
        figure = registry[row.figure_id]
        assert (row.value, row.display, row.method) == (figure.value, figure.display, figure.method)
        assert row.metric == row.figure_id.removeprefix(f"{volume}/{row.candidate}/")
        assert {n: (i.lo, i.hi, i.method) for n, i in row.intervals.items()} == {
            n: (i.lo, i.hi, i.method) for n, i in figure.intervals.items()
        }
        assert row.n == figure.detail.get("draws")


def test_pandas_reads_the_csv_with_the_json_s_numbers(gen: Path) -> None:
    layout = _layout(gen)
    frame = pd.read_csv(layout.downloads_dir / tidy.csv_name("vol-002"))
    board = _board(gen, "vol-002")
    assert len(frame) == len(board.rows)
    assert list(frame.columns) == tidy.columns(board)
    assert frame["value"].dtype == float and frame["narrow_lo"].dtype == float
    core = frame[frame["metric"] == "core_rate"].set_index("candidate")
    assert len(core) == len({r.candidate for r in board.rows})
    for row in board.rows:
        if row.metric == "core_rate":
            assert core.loc[row.candidate, "value"] == float(row.value)
            assert core.loc[row.candidate, "wide_hi"] == float(row.intervals["wide"].hi)
            assert core.loc[row.candidate, "n"] == row.n


def test_building_twice_gives_identical_bytes_whatever_the_registry_order(gen: Path) -> None:
    layout = _layout(gen)
    pub = load_publication(layout)
    pv = pub.volumes[-1]
    first = tidy.downloads_of(pv.volume, pv.figures)
    shuffled = list(pv.figures.items())
    random.Random(7).shuffle(shuffled)
    assert tidy.downloads_of(pv.volume, dict(shuffled)) == first
    for name, data in first.items():
        assert (layout.downloads_dir / name).read_bytes() == data, name


def test_a_new_metric_and_a_new_interval_flow_in(gen: Path) -> None:
    pv = load_publication(_layout(gen)).volumes[-1]
    slug = pv.volume.candidates[0].slug
    core = pv.figures[f"{pv.id}/{slug}/core_rate"]
    extra = Interval(
        lo="0.1000", hi="0.6000", display="10.0%–60.0%", method="holm-paired", confidence="0.95"
    )
    new = core.model_copy(
        update={"id": f"{pv.id}/{slug}/coverage/new", "intervals": {"simultaneous": extra}}
    )
    board = tidy.leaderboard(pv.volume, {**pv.figures, new.id: new})
    (row,) = [r for r in board.rows if r.figure_id == new.id]
    assert row.metric == "coverage/new"
    frame = pd.read_csv(io.BytesIO(tidy.csv_bytes(board)))
    assert list(frame.columns[-7:]) == [
        "simultaneous_lo",
        "simultaneous_hi",
        "simultaneous_confidence",
        "simultaneous_method",
        "n",
        "items",
        "method",
    ]
    found = frame[frame["figure_id"] == new.id].iloc[0]
    assert found["simultaneous_method"] == "holm-paired" and pd.isna(found["narrow_lo"])


def test_untrusted_names_never_run_as_spreadsheet_formulas(gen: Path) -> None:
    pv = load_publication(_layout(gen)).volumes[-1]
    ref = pv.volume.candidates[0]
    hostile = '=HYPERLINK("http://x.invalid","@me")'
    renamed = ref.model_copy(update={"display_name": hostile})
    volume = pv.volume.model_copy(update={"candidates": [renamed, *pv.volume.candidates[1:]]})
    board = tidy.leaderboard(volume, pv.figures)
    text = tidy.csv_bytes(board).decode("utf-8")
    frame = pd.read_csv(io.StringIO(text))
    names = set(frame[frame["candidate"] == ref.slug]["display_name"])
    assert names == {"'" + hostile}
    rows = json.loads(tidy.json_bytes(board))["rows"]
    assert {r["display_name"] for r in rows if r["candidate"] == ref.slug} == {hostile}
    assert {r.display_name for r in board.rows if r.candidate == ref.slug} == {hostile}


def test_downloads_list_the_leaderboards_and_archives_in_sha256sums(gen: Path) -> None:
    layout = _layout(gen)
    sums = (layout.downloads_dir / "SHA256SUMS").read_text("utf-8").splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in sums}
    files = {f.name: f for f in downloads.plan(load_publication(layout), read_bank(layout))}
    for volume in ("vol-001", "vol-002"):
        for name in (tidy.csv_name(volume), tidy.json_name(volume), archive.archive_name(volume)):
            assert listed[name] == files[name].sha256, name
