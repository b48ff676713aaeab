"""``verify`` reads a volume's bundles in two halves and computes its figures in three
parts, in forked children beside it: the same rows, problems and figures as one process
reading and computing them all, and a child that dies is an error, never a pass."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import generator.figures.volume as figures_volume
from generator import figures
from generator.cli import main
from generator.figures import across
from generator.forked import forked
from generator.store import Layout, VolumeData, load_volume
from generator.store import volume as store_volume
from tests.site.downstream import generated_root


@pytest.fixture
def copy(example_src: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    dest = tmp_path / "root"
    shutil.copytree(generated_root(example_src, tmp_path_factory), dest, symlinks=True)
    return dest


def _read(data: VolumeData) -> list[Any]:
    """Everything a reading of the volume gives, in order."""
    bundles = [
        (slug, b.draws, b.verdicts, b.panel, b.qualification, b.file_sha256, b.manifest)
        for slug, b in data.bundles.items()
    ]
    return [bundles, data.problems]


def test_the_halves_and_the_parts_give_what_one_process_gives(example_src: Path) -> None:
    layout = Layout.at(example_src, example_src / ".private", cache=False)
    for volume in layout.volume_ids():
        alone = load_volume(layout, volume, private=False)
        halves = load_volume(layout, volume, private=False, beside=forked)
        assert _read(halves) == _read(alone)
        one = figures.compute(layout, volume, data=alone)
        three = figures.compute(layout, volume, data=halves, beside=forked)
        assert list(three) == list(one)
        assert [(f, t, [(s.path, s.sha256) for s in src]) for f, t, src in three.made()] == [
            (f, t, [(s.path, s.sha256) for s in src]) for f, t, src in one.made()
        ]


def test_problems_in_both_halves_come_back_in_order(example_src: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(example_src, root, symlinks=True)
    layout = Layout.at(root, root / ".private", cache=False)
    volume = layout.volume_ids()[0]
    slugs = [c.slug for c in load_volume(layout, volume).volume.candidates]
    for slug in (slugs[0], slugs[-1]):  # one in each half
        path = layout.bundle_dir(volume, slug) / "verdicts.jsonl"
        path.write_bytes(path.read_bytes() + b'{"item": 1}\nnot json\n')
    alone = load_volume(layout, volume, private=False, strict=False)
    halves = load_volume(layout, volume, private=False, strict=False, beside=forked)
    assert len(alone.problems) >= 6  # each file: two bad lines and its changed hash
    assert halves.problems == alone.problems
    assert _read(halves) == _read(alone)


def _killed_in_a_child(real: Callable[..., Any]) -> Callable[..., Any]:
    """``real``, except that in a process forked from this one it is killed first."""
    parent = os.getpid()

    def call(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)

    return call


@pytest.mark.parametrize(
    ("module", "name", "what"),
    [
        (store_volume, "scan_bundle", "reading the bundles"),
        (across, "holm_separations", "the paired rank comparisons"),
        (figures_volume, "wrong_figures", "the jury, wrong-answer and contamination figures"),
    ],
)
def test_a_reading_or_computing_child_that_is_killed_fails_verify(
    copy: Path, monkeypatch: pytest.MonkeyPatch, module: Any, name: str, what: str
) -> None:
    monkeypatch.setattr(module, name, _killed_in_a_child(getattr(module, name)))
    result = CliRunner().invoke(main, ["--root", str(copy), "verify"])
    shown = result.output + (result.stderr if result.stderr_bytes else "")
    assert result.exit_code == 2, shown
    assert (
        f"{what} did not finish: the child process was killed by signal 9 (Killed) before "
        "handing back a result, so nothing is verified"
    ) in shown
