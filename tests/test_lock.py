"""One writer per root: a second writer is refused with the holder's pid (exit 2)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.lock import LOCK_FILE, TIMEOUT_ENV, LockBusy, holds, writing
from tests.conftest import CliRun

HOLDER = """
import sys
from pathlib import Path
from generator.lock import writing
with writing(Path(sys.argv[1])):
    Path(sys.argv[2]).write_text("held", "utf-8")
    sys.stdin.read()  # hold until the test closes our stdin
"""


@pytest.fixture
def held(root: Path, tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``root``'s writer lock until the test ends."""
    marker = tmp_path / "held"
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root), str(marker)], stdin=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, "the lock holder died"
        assert time.monotonic() < deadline, "the lock holder never took the lock"
        time.sleep(0.02)
    yield child
    assert child.stdin is not None
    child.stdin.close()
    child.wait(timeout=30)


@pytest.mark.parametrize(
    "args",
    [
        ("publish", "--recover"),
        ("publish", "vol-001", "--allow-dirty"),
        ("figures", "vol-001"),
        ("render", "vol-001", "--no-pdf"),
        ("site", "--no-build"),
        ("demo",),
    ],
)
def test_a_second_writer_is_refused_with_the_holders_pid(
    root: Path,
    cli: CliRun,
    held: subprocess.Popen[str],
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "0")
    result = cli(*args)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"another probepress is writing {root} (pid {held.pid}); waited 0 s. "
        f"Let it finish, or raise ${TIMEOUT_ENV} to wait longer."
    )


def test_readers_do_not_need_the_lock(
    root: Path, cli: CliRun, held: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "0")
    assert cli("figures", "vol-001", "--verify").exit_code == 0


def test_the_lock_is_released_and_waits_up_to_the_timeout(
    root: Path, tmp_path: Path, cli: CliRun
) -> None:
    marker = tmp_path / "held"
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root), str(marker)], stdin=subprocess.PIPE, text=True
    )
    while not marker.exists():
        assert child.poll() is None
        time.sleep(0.02)
    started = time.monotonic()
    with pytest.raises(LockBusy), writing(root, timeout=0.3):
        pass
    assert time.monotonic() - started >= 0.3
    assert child.stdin is not None
    child.stdin.close()
    child.wait(timeout=30)
    # The holder is gone (the kernel dropped its flock): the next writer gets the lock.
    with writing(root, timeout=0):
        assert holds(root)
        with writing(root, timeout=0):  # re-entrant within one process
            assert holds(root)
        assert holds(root)
    assert not holds(root)
    assert (root / LOCK_FILE).is_file()
    # Released, the file is empty again: its bytes do not change with every writer, so
    # the holdout gate's scan of it stays remembered as clean.
    assert (root / LOCK_FILE).read_bytes() == b""
    assert cli("publish", "--recover").stderr.strip() == "nothing to recover"
