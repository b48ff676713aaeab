"""``generator.forked``: work beside the caller in a forked child, never a silent pass."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from generator.errors import ProbepressError, Problem
from generator.forked import ChildDied, ChildTraceback, forked


def test_the_childs_value_comes_back_and_its_memory_is_its_own() -> None:
    seen = [1]

    def work() -> tuple[int, list[int]]:
        seen.append(2)  # the child's copy: the caller's list stays as it was
        return os.getpid(), seen

    with forked(work, "the work") as child:
        pid, found = child.result()
    assert pid != os.getpid()
    assert found == [1, 2]
    assert seen == [1]


def test_an_expected_error_is_raised_again_whole_with_the_childs_traceback() -> None:
    problem = Problem("bundles/x.jsonl", 3, "schema", "bad")

    def work() -> None:
        raise ProbepressError("cannot read", [problem])

    with forked(work, "the work") as child, pytest.raises(ProbepressError) as caught:
        child.result()
    assert str(caught.value) == "cannot read"
    assert caught.value.problems == [problem]
    assert caught.value.exit_code == 2
    assert isinstance(caught.value.__cause__, ChildTraceback)
    assert "in work" in str(caught.value.__cause__)


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # pickling passes args, not (a, b)
        super().__init__(f"{a}+{b}")


def test_a_bug_that_does_not_pickle_still_comes_back_as_an_error() -> None:
    def work() -> None:
        raise _Unpicklable(1, 2)

    with (
        forked(work, "the work") as child,
        pytest.raises(RuntimeError, match=r"_Unpicklable: 1\+2"),
    ):
        child.result()


@pytest.mark.parametrize("how", ["sigkill", "sigterm-default", "exit"])
def test_a_child_that_ends_without_a_result_is_an_error_never_a_pass(how: str) -> None:
    def work() -> None:
        if how == "exit":
            os._exit(0)
        if how == "sigterm-default":
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGKILL)

    with forked(work, "the checks") as child, pytest.raises(ChildDied) as caught:
        child.result()
    ended = {
        "sigkill": "was killed by signal 9 (Killed)",
        "sigterm-default": "was killed by signal 15 (Terminated)",
        "exit": "exited with status 0",
    }[how]
    assert str(caught.value) == (
        f"the checks did not finish: the child process {ended} before handing back a "
        "result, so nothing is verified"
    )
    assert caught.value.exit_code == 2


def test_leaving_the_block_early_kills_and_reaps_the_child(tmp_path: Path) -> None:
    started = tmp_path / "started"

    def work() -> None:
        started.touch()
        time.sleep(60)

    with pytest.raises(KeyboardInterrupt), forked(work, "the work") as child:
        pid = child.pid
        while not started.exists():
            time.sleep(0.01)
        raise KeyboardInterrupt
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left
    assert child.pid == 0 and child.pipe == -1
