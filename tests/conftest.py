"""Shared fixtures: a freshly generated example publication, copied per test."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from generator import figures
from generator.checking import run_gates
from generator.cli import main
from generator.demo import build as demo_build
from generator.demo.spec import EXAMPLE, DemoSpec
from generator.lock import LOCK_FILE
from generator.store import Layout
from tests.factories import shared


def as_of(spec: DemoSpec, volume: str) -> DemoSpec:
    """The publication as it stood when ``volume`` was published: the bank versions
    released, volumes published and reviews dated up to its publication date."""
    day = next(v.publication_date for v in spec.volumes if v.id == volume)
    return replace(
        spec,
        versions=tuple(v for v in spec.versions if v.released <= day),
        volumes=tuple(v for v in spec.volumes if v.publication_date <= day),
        reviews=tuple(r for r in spec.reviews if r.day <= day),
    )


def write_example(root: Path, spec: DemoSpec = EXAMPLE) -> None:
    """Generate the example's inputs into ``root`` and compute every volume's figures."""
    layout = Layout.at(root, root / ".private")
    demo_build.write(demo_build.build(spec), layout)
    for volume in layout.volume_ids():
        figures.write(layout, volume)


@pytest.fixture(scope="session")
def example_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example publication's inputs, generated once per test run for every xdist
    worker (read-only use). Its result cache is warm, as a maintainer's is after one
    ``check``: every copy's gates skip the files already scanned clean and scan only the
    bytes a test changed (the cache can never return a stale answer, tests/test_cache.py;
    the tests of a cold scan use their own cache or ``--no-cache``)."""

    def build(root: Path) -> None:
        write_example(root)
        layout = Layout.at(root, root / ".private")
        for volume in layout.volume_ids():
            run_gates(layout, volume, ["holdout"])

    return shared(tmp_path_factory, "example", build)


@pytest.fixture(scope="session")
def example_vol002_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example as it stood when vol-002 was published (``as_of``): bank
    v1.2 current, premise-004 a draft, live-003 and prov-003 reviewed, no ledger. The
    review tests start from it (read-only use)."""
    spec = as_of(EXAMPLE, "vol-002")
    return shared(tmp_path_factory, "example-vol-002", lambda root: write_example(root, spec))


@pytest.fixture
def root(example_src: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the example (with its private store at ROOT/.private)."""
    dest = tmp_path / "root"
    shutil.copytree(example_src, dest, symlinks=True)
    return dest


CliRun = Callable[..., Result]


@pytest.fixture
def cli(root: Path) -> CliRun:
    """Run ``probepress --root ROOT ARGS…`` in-process; stdout and stderr kept apart."""

    def run(*args: str, root_dir: Path | None = None) -> Result:
        runner = CliRunner()
        return runner.invoke(main, ["--root", str(root_dir or root), *args], catch_exceptions=False)

    return run


def tree_state(path: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``path`` with its size and mtime (to prove nothing was written).
    The writer lock (``.probepress-lock``) is left out: every writing command takes it,
    and it holds no output."""
    return {
        p.relative_to(path).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(path.rglob("*"))
        if p.is_file() and p.name != LOCK_FILE
    }


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Write freshly rendered frozen pages over the committed ones instead of comparing.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite golden files."""
    return bool(request.config.getoption("--update-golden"))


# Deadlines make property tests flaky on a loaded 2-core CI machine; examples are bounded
# by max_examples instead. The default profile is derandomised, so every run of the suite
# tries the same examples (a failure found once is found every time); set
# HYPOTHESIS_PROFILE=explore for random search with more examples in a longer local run.
settings.register_profile("probepress", deadline=None, derandomize=True, database=None)
settings.register_profile("explore", deadline=None, derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "probepress"))


# The slowest modules, slowest first (CPU seconds of one module in a serial run, measured
# for issue 13). `make test` hands whole files to its two workers (`--dist loadfile`), each
# the next file in collection order when it runs dry (`--no-loadscope-reorder`; xdist would
# otherwise order files by their number of tests, which put these few-test files last and
# left one worker running the last of them alone). Starting the longest first keeps both
# workers busy to the end. A module missing from the list only runs later. The second
# module needs no example: while the first worker builds the session's example
# (``example_src``, which every other early module waits for), the second imports every
# module of the package on its own instead of waiting.
SLOWEST_FIRST = (
    "tests/test_publish.py",
    "tests/test_imports.py",
    "tests/test_verify.py",
    "tests/gates/test_gates.py",
    "tests/render/test_golden.py",
    "tests/gates/test_jury_gates.py",
    "tests/render/test_determinism.py",
    "tests/gates/test_calibration.py",
    "tests/site/test_browser.py",
    "tests/store/test_fuzz.py",
    "tests/site/test_output.py",
    "tests/render/test_pdf.py",
    "tests/render/test_hostile.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the modules of ``SLOWEST_FIRST`` first, in its order (each module's tests stay
    together and in their order: the sort is stable)."""
    rank = {path: n for n, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
