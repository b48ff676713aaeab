"""The leak scan beside the other gates: same report as in line, whatever the child does."""

from __future__ import annotations

import multiprocessing
import os
import threading
from pathlib import Path

import pytest

from generator import checking
from generator.errors import UsageError
from generator.forked import Forked
from generator.gates import GATES, holdout, preflight
from generator.store import Layout

VOL = "vol-001"
PARENT = os.getpid()


def test_the_child_answers() -> None:
    assert Forked(lambda: (os.getpid() != PARENT, [1, 2])).result() == (True, [1, 2])


def test_an_exception_in_the_child_is_raised_in_the_parent() -> None:
    def fail() -> None:
        raise UsageError("from the child")

    with pytest.raises(UsageError, match="from the child"):
        Forked(fail).result()


def test_a_child_that_dies_is_replaced_by_the_parent() -> None:
    def die_in_child() -> str:
        if os.getpid() != PARENT:
            os._exit(3)
        return "computed in the parent"

    assert Forked(die_in_child).result() == "computed in the parent"


def test_an_unpicklable_answer_is_recomputed_in_the_parent() -> None:
    def answer() -> tuple[object, int]:
        return (lambda: None), os.getpid()  # a lambda cannot be pickled back

    assert Forked(answer).result()[1] == PARENT


def _plant_leak(root: Path) -> None:
    from generator.store.volume import load_volume

    bank = load_volume(Layout.at(root, root / ".private"), VOL).bank
    prompt = next(i.prompt for i in bank.private.values() if isinstance(i.prompt, str))
    (root / "notes.md").write_text(f"# Notes\n\n{prompt}\n", "utf-8")


@pytest.mark.parametrize("cache", [False, True])
def test_aside_and_in_line_give_the_same_report(root: Path, cache: bool) -> None:
    _plant_leak(root)
    layout = Layout.at(root, root / ".private", cache=cache)
    aside = checking.run_gates(layout, VOL, options={checking.PARALLEL_OPTION: True})
    in_line = checking.run_gates(layout, VOL, options={checking.PARALLEL_OPTION: False})
    assert aside == in_line
    assert [r.name for r in aside.results] == [m.NAME for m in GATES]
    leaks = [f.rule for r in aside.results for f in r.findings if r.name == holdout.NAME]
    assert leaks == ["leak-prompt"]


def test_a_gate_that_raises_stops_the_child(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ctx: object) -> None:
        raise UsageError("broken gate")

    monkeypatch.setattr(preflight, "check", broken)
    layout = Layout.at(root, root / ".private", cache=False)
    with pytest.raises(UsageError, match="broken gate"):
        checking.run_gates(layout, VOL, options={checking.PARALLEL_OPTION: True})
    assert multiprocessing.active_children() == []  # stopped and reaped


def test_small_volumes_scan_in_line(root: Path) -> None:
    from generator.gates import GateContext
    from generator.store.volume import load_volume

    ctx = GateContext(load_volume(Layout.at(root, root / ".private"), VOL))
    assert sum(len(b.draws) for b in ctx.data.bundles.values()) < checking.PARALLEL_MIN_DRAWS
    assert not checking._scan_aside(ctx, list(GATES))
    assert checking._scan_aside(
        GateContext(ctx.data, {checking.PARALLEL_OPTION: True}), list(GATES)
    )
    assert not checking._scan_aside(ctx, [holdout])


def test_no_fork_beside_another_thread(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.gates import GateContext
    from generator.store.volume import load_volume

    monkeypatch.setattr(checking, "PARALLEL_MIN_DRAWS", 1)
    monkeypatch.setattr(checking, "usable_cpus", lambda: 2)
    ctx = GateContext(load_volume(Layout.at(root, root / ".private"), VOL))
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert checking._scan_aside(ctx, list(GATES))
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert not checking._scan_aside(ctx, list(GATES))
