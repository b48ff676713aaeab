"""CPU per test of the suite, for issue 13 (``make test`` within 8 minutes on 2 cores).

On a shared machine wall time says little, so this records CPU: the worker's own user+sys
time and that of the child processes it waited for (many tests run the CLI, a render or a
browser in a subprocess), per test (setup, call and teardown together: a session fixture
counts against the first test that needs it), one JSON line per test in a file per
xdist worker. Run the suite as ``make pytest`` runs it, with this module as a plugin::

    CPU_PROFILE_DIR=/tmp/prof PYTHONPATH=. env -u PYTHONDONTWRITEBYTECODE \\
        .venv/bin/python -m pytest -p benchmarks.suite_cpu -n 2 --dist loadfile \\
        --no-loadscope-reorder -q
    python3 benchmarks/suite_cpu.py /tmp/prof

The report prints each worker's total, the costliest files and tests, and the idle tail
(how long one worker ran alone after the other finished its last test).
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

import pytest

DIR_ENV = "CPU_PROFILE_DIR"
_out: list[IO[str]] = []


def _cpu() -> tuple[float, float]:
    """User+sys seconds of this process and of its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _write(record: dict[str, Any]) -> None:
    _out[0].write(json.dumps(record) + "\n")
    _out[0].flush()


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(DIR_ENV)
    if not folder:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _out.append((Path(folder) / f"{worker}.jsonl").open("a", encoding="utf-8"))
    own, children = _cpu()
    _write({"event": "start", "t": time.time(), "self": own, "child": children})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    if not _out:
        yield
        return
    own0, children0 = _cpu()
    t0 = time.time()
    yield
    own1, children1 = _cpu()
    _write(
        {
            "id": item.nodeid,
            "t0": t0,
            "t1": time.time(),
            "self": own1 - own0,
            "child": children1 - children0,
        }
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _out:
        return
    own, children = _cpu()
    _write({"event": "end", "t": time.time(), "self": own, "child": children})
    _out.pop().close()


def report(folder: Path, top: int = 15) -> None:
    """Print the totals, the ``top`` costliest files and tests and the idle tail."""
    tests: list[dict[str, Any]] = []
    ends: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            record = json.loads(line)
            if record.get("event") == "end":
                ends[path.stem] = record
            elif "id" in record:
                tests.append({**record, "worker": path.stem})
    total = sum(t["self"] + t["child"] for t in tests)
    print(f"{len(tests)} tests, {total:.1f} s CPU in tests")
    last: dict[str, dict[str, Any]] = {}
    for t in tests:
        if t["worker"] not in last or t["t1"] > last[t["worker"]]["t1"]:
            last[t["worker"]] = t
    for worker, end in sorted(ends.items()):
        if worker in last:
            print(f"  {worker}: {end['self'] + end['child']:.1f} s CPU in all")
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for t in tests:
        entry = files[t["id"].partition("::")[0]]
        entry[0] += t["self"] + t["child"]
        entry[1] += t["child"]
        entry[2] += 1
    print(f"\nfiles by CPU (s, of which in child processes, tests), top {top}")
    for name, (cpu, child, count) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{cpu:7.1f} {child:7.1f} {int(count):5d}  {name}")
    print(f"\ntests by CPU (s, of which in child processes), top {top}")
    for t in sorted(tests, key=lambda t: -(t["self"] + t["child"]))[:top]:
        print(f"{t['self'] + t['child']:7.1f} {t['child']:7.1f}  {t['id']}")
    if len(last) > 1:
        finish = sorted(t["t1"] for t in last.values())
        print(f"\nidle tail: {finish[-1] - finish[0]:.1f} s wall; last files:")
        for worker, t in sorted(last.items()):
            print(f"  {worker}: {t['id'].partition('::')[0]}")


if __name__ == "__main__":
    report(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 15)
