"""The publish commit under fault injection: every operation of commit and of recovery is
failed (an OSError) or "killed" (a BaseException no handler catches, as SIGKILL would
leave things) in turn, and the tree must then recover to exactly the old or exactly the
new publication, byte for byte. Small synthetic trees keep the exhaustive loops fast."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from generator import journal
from generator.confine import UnsafePath
from generator.journal import JOURNAL, CommitError, FileOps, commit, recover
from generator.lock import LOCK_FILE
from generator.staging import Plan, plan

Tree = dict[str, bytes | None]
"""Every entry under a root: file bytes, or None for a directory."""


class Killed(BaseException):
    """A simulated SIGKILL: nothing catches it, no rollback runs."""


class Faulty(FileOps):
    """Counts operations; raises ``fault`` at operation number ``at``."""

    def __init__(
        self, at: int | None = None, fault: Callable[[Path], BaseException] = lambda _: Killed()
    ):
        self.at = at
        self.fault = fault
        self.count = 0
        self.log: list[tuple[str, str]] = []

    def step(self, action: str, path: Path) -> None:
        self.count += 1
        self.log.append((action, path.name))
        if self.count == self.at:
            raise self.fault(path)


def eacces(path: Path) -> OSError:
    return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def killed(path: Path) -> BaseException:
    return Killed(str(path))


@pytest.fixture
def tmp_path(tmp_path: Path) -> Iterator[Path]:
    """On tmpfs when there is one: the loops fsync thousands of times, which costs
    nothing there and tens of seconds on a disk; the operations are the same."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        yield tmp_path
        return
    base = Path(tempfile.mkdtemp(prefix="probepress-journal-test-", dir=shm))
    yield base
    shutil.rmtree(base, ignore_errors=True)


def tree(root: Path) -> Tree:
    """The whole tree under ``root`` (the lock file aside: it is not publication)."""
    out: Tree = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == LOCK_FILE:
            continue
        out[rel] = None if path.is_dir() else path.read_bytes()
    return out


def write(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")


OLD = {
    "figures/figures.json": '{"old": 1}\n',
    "site_src/index.md": "# hand-written\n",
    "site_src/volumes/v1/leaderboard.html": "<p>old board</p>\n",
    "site_src/downloads/stale.txt": "stale\n",
    "site/index.html": "<p>same</p>\n",
    "site/gone/only-old.html": "<p>old only</p>\n",
}
NEW = {
    "figures/figures.json": '{"new": 2}\n',
    "site_src/index.md": "# hand-written\n",
    "site_src/volumes/v1/leaderboard.html": "<p>new board</p>\n",
    "site_src/volumes/v2/leaderboard.html": "<p>a new volume</p>\n",
    "site/index.html": "<p>same</p>\n",
    "site/fresh/deep/page.html": "<p>new nested page</p>\n",
}


@pytest.fixture
def scene(tmp_path: Path) -> tuple[Path, Path, Tree, Tree]:
    """A root holding the old publication, a staging copy holding the new one, and the
    expected trees before and after a complete commit."""
    root, stage = tmp_path / "root", tmp_path / "stage"
    write(root, OLD)
    write(stage, NEW)
    before = tree(root)
    probe = tmp_path / "probe"
    shutil.copytree(root, probe)
    commit(probe, stage, plan(probe, stage))
    after = tree(probe)
    shutil.rmtree(probe)
    assert before != after
    return root, stage, before, after


def fresh(tmp_path: Path, scene: tuple[Path, Path, Tree, Tree], name: str) -> Path:
    """A copy of the scene's root to break."""
    dest = tmp_path / name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(scene[0], dest)
    return dest


def clean_run_ops(scene: tuple[Path, Path, Tree, Tree], tmp_path: Path) -> Faulty:
    root = fresh(tmp_path, scene, "count")
    ops = Faulty()
    commit(root, scene[1], plan(root, scene[1]), ops)
    return ops


def commit_point(ops: Faulty) -> int:
    """The number of the operation that makes the commit marker appear."""
    return ops.log.index(("rename", journal.COMMITTED)) + 1


def test_plan_and_a_clean_commit(scene: tuple[Path, Path, Tree, Tree], tmp_path: Path) -> None:
    root, stage, _, after = scene
    todo = plan(root, stage)
    assert sorted(todo.deletes) == ["site/gone/only-old.html", "site_src/downloads/stale.txt"]
    assert "site/index.html" not in todo.moves and len(todo.moves) == 4
    assert after["site/fresh/deep/page.html"] == b"<p>new nested page</p>\n"
    assert "site/gone/only-old.html" not in after and "site_src/index.md" in after
    assert not any(k.startswith(".probepress-") for k in after)


def test_a_kill_at_every_commit_step_recovers_to_old_or_new(
    scene: tuple[Path, Path, Tree, Tree], tmp_path: Path
) -> None:
    _, stage, before, after = scene
    counted = clean_run_ops(scene, tmp_path)
    point = commit_point(counted)
    outcomes = {"old": 0, "new": 0}
    for k in range(1, counted.count + 1):
        root = fresh(tmp_path, scene, "k")
        with pytest.raises(Killed):
            commit(root, stage, plan(root, stage), Faulty(k))
        recover(root)
        expected, label = (before, "old") if k <= point else (after, "new")
        assert tree(root) == expected, f"killed at operation {k}: {counted.log[k - 1]}"
        outcomes[label] += 1
        assert recover(root).state == "none"  # idempotent: nothing left to do
        assert tree(root) == expected
    assert outcomes["old"] == point and outcomes["new"] == counted.count - point
    assert counted.count > 30


def test_an_os_error_at_every_commit_step_rolls_back_at_once(
    scene: tuple[Path, Path, Tree, Tree], tmp_path: Path
) -> None:
    _, stage, before, after = scene
    counted = clean_run_ops(scene, tmp_path)
    # A commit marker that cannot be made durable (its folder's fsync fails) is not
    # trusted: that commit rolls back too.
    point = commit_point(counted) + 1
    assert counted.log[point - 1] == ("fsync", JOURNAL)
    for k in range(1, counted.count + 1):
        root = fresh(tmp_path, scene, "k")
        if k <= point:
            with pytest.raises(CommitError) as failed:
                commit(root, stage, plan(root, stage), Faulty(k, eacces))
            message = failed.value.render()
            assert "publish could not move the files into place: " in message
            assert ": Permission denied [EACCES]; " in message
            assert tree(root) == before, f"failed at operation {k}: {counted.log[k - 1]}"
        else:
            # After the commit point only the clean-up is left; it is finished later.
            commit(root, stage, plan(root, stage), Faulty(k, eacces))
            recover(root)
            assert tree(root) == after, f"failed at operation {k}: {counted.log[k - 1]}"


def _interrupted(tmp_path: Path, scene: tuple[Path, Path, Tree, Tree], k: int) -> Path:
    root = fresh(tmp_path, scene, "r")
    with pytest.raises(Killed):
        commit(root, scene[1], plan(root, scene[1]), Faulty(k))
    return root


def _kill_points(counted: Faulty) -> dict[str, int]:
    applying = counted.log.index(("rename", journal.APPLYING)) + 1
    point = commit_point(counted)
    halfway = next(
        k
        for k in range(applying + 1, point)
        if counted.log[k - 1][0] == "rename" and counted.log[k - 2][0] == "copy"
    )
    return {
        "nothing applied yet": applying + 1,
        "a new file half-installed": halfway + 1,
        "everything applied, no commit marker": point,
        "committed, clean-up left": point + 1,
    }


@pytest.mark.parametrize(
    "state",
    [
        "nothing applied yet",
        "a new file half-installed",
        "everything applied, no commit marker",
        "committed, clean-up left",
    ],
)
def test_recovery_killed_or_failing_at_every_step_then_run_again(
    scene: tuple[Path, Path, Tree, Tree], tmp_path: Path, state: str
) -> None:
    _, _, before, after = scene
    counted = clean_run_ops(scene, tmp_path)
    k = _kill_points(counted)[state]
    expected = after if state.startswith("committed") else before
    probe = _interrupted(tmp_path, scene, k)
    steps = Faulty()
    assert recover(probe, steps).state == ("committed" if expected is after else "applying")
    assert tree(probe) == expected
    for j in range(1, steps.count + 1):
        for fault in (killed, eacces):
            root = _interrupted(tmp_path, scene, k)
            with pytest.raises((Killed, CommitError)):
                recover(root, Faulty(j, fault))
            recover(root)
            assert tree(root) == expected, f"recovery hit at {j}: {steps.log[j - 1]}"
            assert recover(root).state == "none"


def test_recovery_refuses_a_journal_it_cannot_read(
    scene: tuple[Path, Path, Tree, Tree], tmp_path: Path
) -> None:
    counted = clean_run_ops(scene, tmp_path)
    root = _interrupted(tmp_path, scene, commit_point(counted) - 3)
    (root / JOURNAL / journal.PLAN_FILE).write_text("{not json", "utf-8")
    touched = tree(root)
    with pytest.raises(journal.InputError, match="cannot read the journal"):
        recover(root)
    assert tree(root) == touched


def test_commit_refuses_a_symlink_on_the_way(
    scene: tuple[Path, Path, Tree, Tree], tmp_path: Path
) -> None:
    root = fresh(tmp_path, scene, "link")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("theirs\n", "utf-8")
    shutil.rmtree(root / "site" / "gone")
    (root / "site" / "fresh").symlink_to(elsewhere)
    before = tree(root)
    with pytest.raises(UnsafePath, match="site/fresh is a symbolic link"):
        commit(root, scene[1], Plan(moves=["site/fresh/deep/page.html"]))
    assert tree(root) == before
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]


def test_a_commit_under_umask_077_writes_0644_files_and_0755_dirs(
    scene: tuple[Path, Path, Tree, Tree], tmp_path: Path
) -> None:
    root = fresh(tmp_path, scene, "umask")
    saved = os.umask(0o077)
    try:
        commit(root, scene[1], plan(root, scene[1]))
    finally:
        os.umask(saved)
    assert (root / "site" / "fresh" / "deep" / "page.html").stat().st_mode & 0o777 == 0o644
    for folder in ("site/fresh", "site/fresh/deep", "site_src/volumes/v2"):
        assert (root / folder).stat().st_mode & 0o777 == 0o755
