"""PDF workers never outlive the run, and no scratch folder is left behind: SIGTERM stops
the workers and removes the scratch folder; a SIGKILLed parent's workers are killed by
the kernel; a killed run's scratch folder is removed by the next run. Real processes,
synchronised on marker files (never on sleeps)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.render.pdf import SCRATCH_PREFIX, sweep_scratch

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")

RENDERING = """
import sys, time
from pathlib import Path
import generator.render.pdf as pdf
from generator.interrupt import sigterm_exits
real = pdf.as_completed
def waiting(futures):
    Path(sys.argv[1]).write_text("submitted", "utf-8")
    time.sleep(600)
    return real(futures)
pdf.as_completed = waiting
jobs = [pdf.PdfJob(f"p{i}.pdf", b"<p>page</p>", "0" * 64, 0, False) for i in range(4)]
with sigterm_exits():
    pdf.render_pdfs(jobs, 2)
"""

ORPHAN = """
import multiprocessing, os, sys, time
from pathlib import Path
from generator.render.pdf import _die_with_parent
def worker(parent, marker):
    _die_with_parent(parent)
    Path(marker).write_text(str(os.getpid()), "utf-8")
    time.sleep(600)  # a long page: without the death signal it would outlive the parent
if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    ctx.Process(target=worker, args=(os.getpid(), sys.argv[1])).start()
    time.sleep(600)
"""


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _gone(pids: set[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = set()
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.add(pid)
        if not alive:
            return True
        time.sleep(0.05)
    return False


def _wait_for(marker: Path, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert child.poll() is None, "the child died early"
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_sigterm_stops_the_workers_and_removes_the_scratch_folder(tmp_path: Path) -> None:
    scratch_base = tmp_path / "tmp"
    scratch_base.mkdir()
    marker = tmp_path / "submitted"
    child = subprocess.Popen(
        [sys.executable, "-c", RENDERING, str(marker)],
        env={**os.environ, "TMPDIR": str(scratch_base)},
    )
    _wait_for(marker, child)
    workers = _children(child.pid)
    assert len(workers) >= 2  # two renderers (plus multiprocessing's resource tracker)
    (scratch,) = scratch_base.iterdir()
    assert scratch.name.startswith(f"{SCRATCH_PREFIX}{child.pid}-")
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=60) == 143
    assert _gone(workers, 10)
    assert list(scratch_base.iterdir()) == []


def test_workers_die_with_a_sigkilled_parent(tmp_path: Path) -> None:
    marker = tmp_path / "worker"
    script = tmp_path / "orphan.py"  # spawn re-imports the main module: it must be a file
    script.write_text(ORPHAN, "utf-8")
    child = subprocess.Popen([sys.executable, str(script), str(marker)], cwd=tmp_path)
    _wait_for(marker, child)
    worker = int(marker.read_text("utf-8"))
    child.kill()
    child.wait(timeout=30)
    assert _gone({worker}, 10), "the worker outlived its SIGKILLed parent"


def test_the_next_run_removes_a_killed_runs_scratch_folder(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    stale = tmp_path / f"{SCRATCH_PREFIX}{dead.stdout.strip()}-abc"
    (stale / "fc-x").mkdir(parents=True)
    live = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-def"
    live.mkdir()
    other = tmp_path / "unrelated-99999999"
    other.mkdir()
    assert sweep_scratch(str(tmp_path)) == 1
    assert not stale.exists() and live.is_dir() and other.is_dir()
