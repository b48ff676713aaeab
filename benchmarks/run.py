"""``make bench``: what publishing a volume costs at scale (issue 8).

Run from the repository root (a fresh clone is enough; ``make bench`` sets up the venv):

    .venv/bin/python benchmarks/run.py                  # full size, half, double and 10 ×
    .venv/bin/python benchmarks/run.py --runs 5 --sizes 60
    .venv/bin/python benchmarks/run.py --no-write       # leave benchmarks/RESULTS.md alone

For each size it builds a synthetic publication root outside the repository with
``probepress demo --scale candidates=N,items=103`` (2 halves × 5 draws per item: 61,800
draws with verdicts and panel votes at N=60), its private store next to it (never inside
the root), computes its figures, and makes the root a clean git checkout (``git init``,
one commit) so that every gate applies, the publishing gate included. Then it measures,
every command in its own process, started the way a maintainer starts it:

1. the **floors** (``benchmarks/floor.py``): read, SHA-256 and JSON-parse every bundle
   byte, once with the standard library's ``json`` and once with the fastest parser
   installed (``--parser fast``: orjson, a dev dependency; issue 19's physical floor);
2. ``probepress check vol-001`` (all nine gates): once on an empty result cache, then
   with the cache (``generator.cache``) as it is after that run, and with ``--no-cache``;
3. ``probepress figures vol-001`` (the registry is already up to date), with and without
   the cache;
4. a first ``probepress publish vol-001`` of the committed root (nothing rendered yet:
   frozen HTML, PDFs, downloads, site, both gate passes), a no-op ``publish`` right after
   (inputs unchanged), ``probepress verify`` of the built site (``site/``), and
   ``check`` once more on the published root (frozen pages, PDFs and site included);
5. ``probepress render vol-001`` (frozen HTML, then PDFs, then again with nothing to do)
   and ``probepress site``, on a copy of the committed root taken before step 4;
6. peak memory (max RSS of the process tree: GNU time's ``%M`` when it is installed,
   else ``wait4``) of every command, check and figures included;
7. floors, check and figures again at half, double and ten times the candidates (600:
   issue 19's bounded-memory size; about 25 minutes of the run).

Floor, check and figures are run interleaved (floor, check, figures, floor, …) so that a
busy machine slows them alike; each line is the median of ``--runs`` runs (3 by
default). Steps 4 and 5 are skipped with a printed reason when the command does not exist
yet or when it fails (the harness never fails because of them; ``verify`` exiting 3,
"intact but authenticity not checked" for want of a trusted key, is a success here).
Every time is also given as a multiple of both floors; the targets (issue 19) are
judged against the fast one. The table ends with ``ratio check/floor = X.XX`` and is
written into ``benchmarks/RESULTS.md`` between the
``bench:begin`` / ``bench:end`` markers, leaving the hand-written notes there alone.
Options: ``--runs``, ``--sizes``, ``--core-only`` (no render, site or publish),
``--code DIR`` with ``--block NAME`` (time another checkout's code, e.g. an export of an
earlier commit, into its own block), ``--keep`` (keep the scratch directory).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBEPRESS = (sys.executable, "-c", "from generator.cli import main; main()")
"""The CLI, started the way the ``probepress`` script starts it, with the ``generator``
package of this checkout (``ENV``'s ``PYTHONPATH``) or of ``--code``."""
FLOOR = Path(__file__).resolve().parent / "floor.py"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
VOLUME = "vol-001"
ITEMS = 103
FULL = 60
GIT_CONFIG = (
    *("-c", "user.name=probepress bench"),
    *("-c", "user.email=bench@localhost"),
    *("-c", "commit.gpgsign=false"),
)
# Every command runs with bytecode cached, as an installed copy does: a workplace that sets
# PYTHONDONTWRITEBYTECODE would otherwise add compiling the whole package to every time.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "NO_COLOR": "1",
    "COLUMNS": "160",
    "PYTHONPATH": str(REPO),
}
SITE_FILES = ("mkdocs.yml", "site_src/assets", "site_src/overrides", "site_src/downloads/schemas")
"""What the scaled root copies from the repository to build a site, besides the
hand-written pages (``site_src/*.md``)."""
CITED = re.compile(r'fig\("([^"]+)"\)')
CITED_VOLUME = re.compile(r'fig\("vol-[0-9]+/')
PACKAGES = (
    "pydantic",
    "pydantic-core",
    "numpy",
    "scipy",
    "pandas",
    "irrCAC",
    "weasyprint",
    "pypdf",
    "mkdocs",
    "mkdocs-material",
)
FAST_FLOOR = "floor (fast)"
COLD, WARM = "check --no-cache", "check"
TIME_TARGETS = {
    FULL: ((COLD, 6.0), (WARM, 3.0)),
    10 * FULL: ((COLD, 4.0), (WARM, 2.0), ("figures --no-cache", 3.0), ("figures", 1.5)),
}
"""Issue 19's time targets against the fast floor, by size: (step, at most × floor)."""


@dataclass(frozen=True)
class Sample:
    """One run of one command."""

    wall: float
    cpu: float
    rss_mb: float
    code: int
    last_error: str


@dataclass
class Row:
    """One line of the table: a step at a size, with its runs."""

    step: str
    candidates: int
    samples: list[Sample] = field(default_factory=list)
    note: str = ""
    skipped: str = ""

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def rss(self) -> float:
        return max(s.rss_mb for s in self.samples)

    @property
    def failed(self) -> Sample | None:
        return next((s for s in self.samples if s.code != 0), None)


def run(argv: Sequence[str | Path], cwd: Path, log: Path) -> Sample:
    """Run one command to completion; wall and CPU time, max RSS, exit code.

    A forked child's ``ru_maxrss`` starts at its parent's footprint, so when GNU time is
    there the command runs under it and its own peak is read from there (a few MB of
    time's own instead of this harness's tens of MB; only small commands notice).
    """
    peak = log.with_suffix(".rss")
    command = [str(a) for a in argv]
    if GNU_TIME is not None:
        command = [GNU_TIME, "-o", str(peak), "-f", "%M", *command]
    with log.open("wb") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT, env=ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    rss_kb = usage.ru_maxrss  # kilobytes on Linux
    if GNU_TIME is not None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            rss_kb = int(peak.read_text().split()[-1])
    lines = [line for line in log.read_text("utf-8", "replace").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("error", "Error"))]
    if any(line.startswith("Traceback") for line in lines):
        errors = lines[-1:]  # the exception itself
    return Sample(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        rss_mb=rss_kb / 1024,
        code=proc.returncode,
        last_error=(errors or lines or [""])[-1].strip()[:200],
    )


def _gnu_time() -> str | None:
    """GNU time's path when it is installed (it reports a command's own peak memory)."""
    path = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    if path is None:
        return None
    probe = subprocess.run([path, "-f", "%M", "true"], capture_output=True, text=True, check=False)
    return path if probe.returncode == 0 and probe.stderr.strip().isdigit() else None


GNU_TIME = _gnu_time()


def git(root: Path, *args: str) -> str:
    """Run git in the scratch root (never in the repository)."""
    done = subprocess.run(
        ["git", *GIT_CONFIG, *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def clean(root: Path) -> bool:
    """True when the scratch checkout has no changes."""
    return git(root, "status", "--porcelain") == ""


def commit_all(root: Path, message: str) -> None:
    """Commit everything in the scratch checkout."""
    git(root, "add", "-A")
    if not clean(root):
        git(root, "commit", "-q", "-m", message)


class Bench:
    """One synthetic publication root and the commands measured on it."""

    def __init__(self, work: Path, candidates: int, runs: int) -> None:
        self.candidates = candidates
        self.runs = runs
        self.base = work / f"c{candidates}"
        self.root = self.base / "root"
        self.private = self.base / "private"
        self.logs = self.base / "logs"
        self.count = 0

    def cli(self, *args: str, root: Path | None = None) -> list[str | Path]:
        return [*PROBEPRESS, "--root", root or self.root, "--private", self.private, *args]

    def log(self, step: str) -> Path:
        self.count += 1
        return self.logs / f"{self.count:03d}-{step.replace(' ', '-')}.log"

    def prepare(self) -> None:
        """Build the root, compute its figures and commit it (a clean git checkout)."""
        self.logs.mkdir(parents=True)
        scale = f"candidates={self.candidates},items={ITEMS}"
        for step, argv in (
            ("demo", self.cli("demo", "--scale", scale, "--out", str(self.root))),
            ("figures (first)", self.cli("figures", VOLUME)),
        ):
            sample = run(argv, REPO, self.log(step))
            if sample.code != 0:
                raise SystemExit(f"bench: {step} failed: {sample.last_error}")
            say(f"  {step}: {sample.wall:.1f} s")
        self.site_skeleton()
        git(self.root, "init", "-q")
        commit_all(self.root, f"synthetic volume: {scale}")

    def site_skeleton(self) -> None:
        """The site configuration and assets of the repository, stand-in pages."""
        for name in SITE_FILES:
            source, target = REPO / name, self.root / name
            if source.is_dir():
                shutil.copytree(source, target)
            elif source.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        registry = json.loads((self.root / "figures" / "figures.json").read_text("utf-8"))
        for page in sorted((REPO / "site_src").glob("*.md")):
            # The pages cite the example's figures: cite the synthetic volume's figure of
            # the same name where there is one, else use a stand-in page with the title.
            text = CITED_VOLUME.sub(f'fig("{VOLUME}/', page.read_text("utf-8"))
            cited = set(CITED.findall(text))
            if not cited <= set(registry["figures"]):
                first = text.splitlines()[:1]
                title = first[0] if first and first[0].startswith("# ") else f"# {page.stem}"
                text = f"{title}\n\nA stand-in page of the benchmark's synthetic volume.\n"
            (self.root / "site_src" / page.name).write_text(text, "utf-8")

    def core(self, rows: dict[str, Row]) -> None:
        """Floor, check and figures, interleaved, ``runs`` times each.

        ``check`` and ``figures`` run as a maintainer runs them (the result cache in the
        private store on), after one first ``check`` on an empty cache that fills it and
        is reported on its own line; ``--no-cache`` runs recompute everything.
        """
        shutil.rmtree(self.private / "cache", ignore_errors=True)
        first = Row("check (empty cache)", self.candidates)
        first.samples.append(run(self.cli("check", VOLUME), REPO, self.log("check-first")))
        say(f"  check on an empty cache: {first.samples[0].wall:.2f} s")
        steps: list[tuple[str, list[str | Path]]] = [
            ("floor", [sys.executable, FLOOR, self.root / "bundles" / VOLUME]),
            (
                FAST_FLOOR,
                [sys.executable, FLOOR, self.root / "bundles" / VOLUME, "--parser", "fast"],
            ),
            ("check --no-cache", self.cli("--no-cache", "check", VOLUME)),
            ("check", self.cli("check", VOLUME)),
            ("figures --no-cache", self.cli("--no-cache", "figures", VOLUME)),
            ("figures", self.cli("figures", VOLUME)),
        ]
        for number in range(self.runs):
            for name, argv in steps:
                row = rows.setdefault(name, Row(name, self.candidates))
                sample = run(argv, REPO, self.log(name))
                row.samples.append(sample)
                say(f"  {name} run {number + 1}: {sample.wall:.2f} s, {sample.rss_mb:.0f} MB")
        rows[first.step] = first
        for row in rows.values():
            if row.failed:
                row.note = f"exit {row.failed.code}: {row.failed.last_error}"
        if not clean(self.root):
            rows["figures"].note += " (left the checkout dirty)"

    def optional(self, rows: list[Row]) -> None:
        """Publish (first, no-op), verify, render and site: measured when they exist and
        succeed. Rendering is timed on a copy of the root taken before the first publish,
        so that the first publish renders everything itself, as it does on a new volume."""
        rendered = self.base / "render-root"
        shutil.copytree(self.root, rendered, symlinks=True)
        first = self.attempt("publish (first)", ("publish", VOLUME), 1)
        rows.append(first)
        commit_all(self.root, "after publish (first)")  # what a maintainer commits
        publish = self.attempt("publish no-op", ("publish", VOLUME), self.runs)
        if not publish.skipped and not clean(self.root):
            publish.note = (publish.note + " (changed files)").strip()
        rows.append(publish)
        site = self.root / "site"
        rows.append(self.attempt("verify (built site)", ("verify", str(site)), self.runs, (0, 3)))
        # What check costs on a published root: the holdout gate then also reads the
        # frozen pages, their PDFs' text layers and the built site.
        rows.append(self.attempt("check (published)", ("check", VOLUME), 1))
        for name, args, commit in (
            ("render HTML", ("render", VOLUME, "--no-pdf"), False),
            ("render HTML+PDF", ("render", VOLUME), True),
            ("render again", ("render", VOLUME), False),
            ("site", ("site",), False),
        ):
            rows.append(self.attempt(name, args, 1, root=rendered))
            if commit:
                commit_all(rendered, f"after {name}")

    def attempt(
        self,
        name: str,
        args: tuple[str, ...],
        runs: int,
        ok: tuple[int, ...] = (0,),
        root: Path | None = None,
    ) -> Row:
        """A step that may not exist yet or may fail: never fails the bench. ``ok``: the
        exit codes that mean success."""
        row = Row(name, self.candidates)
        command, argv = args[0], self.cli(*args, root=root)
        probe = run([*PROBEPRESS, command, "--help"], REPO, self.log(f"{command}-help"))
        if probe.code != 0:
            row.skipped = f"`probepress {command}` is not available yet"
            say(f"  {name}: skipped ({row.skipped})")
            return row
        for _ in range(runs):
            sample = run(argv, REPO, self.log(name))
            if sample.code not in ok:
                row.skipped = f"failed (exit {sample.code}): {sample.last_error}"
                say(f"  {name}: {row.skipped}")
                return row
            row.samples.append(replace(sample, code=0))  # an accepted exit code
            say(f"  {name}: {sample.wall:.2f} s, {sample.rss_mb:.0f} MB")
        return row


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


Floors = dict[tuple[str, int], float]
"""Median wall time of each floor (``floor``, ``FAST_FLOOR``) at each size."""


def _times(row: Row, floors: Floors) -> str:
    """The row's wall time as multiples of the stdlib and the fast floor."""
    if row.step in ("floor", FAST_FLOOR):
        return "– | –"
    cells = []
    for name in ("floor", FAST_FLOOR):
        floor = floors.get((name, row.candidates))
        cells.append("–" if floor is None else f"{row.wall / floor:.2f}")
    return " | ".join(cells)


def table(rows: list[Row], floors: Floors, runs: int) -> list[str]:
    """The result table in Markdown (also readable as plain text)."""
    out = [
        "| step | candidates | draws | runs | wall s (median) | CPU s (median) "
        "| max RSS MB | × floor (json) | × fast floor | note |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        draws = f"{row.candidates * ITEMS * 10:,}"
        if row.skipped:
            out.append(
                f"| {row.step} | {row.candidates} | {draws} | 0 | – | – | – | – | – | "
                f"skipped: {row.skipped} |"
            )
            continue
        out.append(
            f"| {row.step} | {row.candidates} | {draws} | {len(row.samples)} | {row.wall:.2f} "
            f"| {row.cpu:.2f} | {row.rss:.0f} | {_times(row, floors)} | {row.note} |"
        )
    return out


def verdicts(rows: list[Row]) -> list[str]:
    """Issue 19's targets at 60 candidates, and memory and growth at every size: met or
    not, with the numbers (times against the fast floor)."""
    by = {(r.step, r.candidates): r for r in rows if r.samples and not r.skipped}
    out: list[str] = []

    def line(ok: bool, text: str) -> None:
        out.append(f"- {'met' if ok else 'NOT met'}: {text}")

    for size, bounds in TIME_TARGETS.items():
        fast = by.get((FAST_FLOOR, size))
        for step, bound in bounds:
            row = by.get((step, size))
            if fast and row:
                ratio = row.wall / fast.wall
                failed = f" (exit {row.failed.code}: not a result)" if row.failed else ""
                text = f"`{step}` at {size} = {ratio:.2f} × fast floor (≤ {bound:g}){failed}"
                line(ratio <= bound and not failed, text)
    for step, bound in (("publish no-op", 1.0), ("verify (built site)", 2.0)):
        row = by.get((step, FULL))
        if row:
            line(row.wall <= bound, f"{step} = {row.wall:.2f} s (≤ {bound:g} s)")
        else:
            out.append(f"- not measured: {step} (see the table)")
    heavy = [r for r in rows if r.samples and not r.skipped and r.rss > 400]
    line(
        not heavy,
        "peak RSS ≤ 400 MB for every command at every size"
        + "".join(f"; {r.step} at {r.candidates}: {r.rss:.0f} MB" for r in heavy),
    )
    for step in ("floor", FAST_FLOOR, COLD, WARM, "figures", "figures --no-cache"):
        full, double = by.get((step, FULL)), by.get((step, 2 * FULL))
        if full and double:
            growth = double.wall / full.wall
            line(growth <= 2.2, f"{step} at double size = {growth:.2f} × (≤ 2.2)")
    return out


def machine() -> list[str]:
    """Where the numbers come from."""
    model = "unknown"
    memory = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    try:
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = "unknown"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [
        f"- machine: {platform.system()} {platform.machine()}, {usable} usable CPUs "
        f"(nproc), {memory} RAM, {model}",
        f"- load average before the run: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- Python {platform.python_version()}; " + ", ".join(versions),
        f"- repository at {commit or 'unknown'}",
        "- max RSS: "
        + (
            f"each command's own peak, from GNU time ({GNU_TIME})"
            if GNU_TIME
            else "from wait4 (GNU time not found: small commands show this harness's size)"
        ),
    ]


def write_results(text: str, name: str) -> None:
    """Replace the generated block ``name`` of RESULTS.md (or add it)."""
    tag = f"bench:{name}:" if name else "bench:"
    begin, end = f"<!-- {tag}begin -->", f"<!-- {tag}end -->"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    if RESULTS.exists():
        current = RESULTS.read_text("utf-8")
        if begin in current and end in current:
            head, _, rest = current.partition(begin)
            _, _, tail = rest.partition(end)
            RESULTS.write_text(head + block + tail, "utf-8")
            return
        RESULTS.write_text(f"{current.rstrip()}\n\n{block}\n", "utf-8")
        return
    RESULTS.write_text(f"# Benchmark results\n\n{block}\n", "utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description="probepress benchmark (issue 8)")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[FULL, FULL // 2, 2 * FULL, 10 * FULL],
        help=f"candidate counts; {FULL} is the full size (render, site, publish run there)",
    )
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    parser.add_argument(
        "--block",
        default="",
        help="name of the generated block of RESULTS.md to replace (default: the main one; "
        "e.g. `before` with --code)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--core-only",
        action="store_true",
        help="only floor, check and figures (no render, site or publish)",
    )
    parser.add_argument(
        "--code",
        type=Path,
        help="measure the generator package in this directory instead (an export of an "
        "earlier commit, for before/after numbers): put first on PYTHONPATH",
    )
    args = parser.parse_args(argv)
    if args.code is not None:
        if not (args.code / "generator" / "__init__.py").is_file():
            print(f"bench: {args.code} holds no generator package")
            return 2
        ENV["PYTHONPATH"] = str(args.code.resolve())
    work = Path(tempfile.mkdtemp(prefix="probepress-bench-"))
    if work.resolve().is_relative_to(REPO):
        print(f"bench: the scratch directory {work} is inside the repository; set TMPDIR")
        return 2
    say(f"scratch directory: {work}")
    header = machine()
    if args.code is not None:
        header.append(f"- code measured: the generator package in {args.code} (--code)")
    started = time.perf_counter()
    rows: list[Row] = []
    floors: Floors = {}
    try:
        for size in args.sizes:
            say(f"{size} candidates × {ITEMS} items × 10 draws:")
            bench = Bench(work, size, args.runs)
            bench.prepare()
            core: dict[str, Row] = {}
            bench.core(core)
            rows += core.values()
            floors.update({(name, size): core[name].wall for name in ("floor", FAST_FLOOR)})
            if size == FULL and not args.core_only:
                bench.optional(rows)
    finally:
        if args.keep:
            say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    rows.sort(key=lambda r: (r.candidates != FULL, r.candidates))
    lines = table(rows, floors, args.runs)
    main_size = FULL if FULL in args.sizes else args.sizes[0]
    check = next(r for r in rows if r.step == WARM and r.candidates == main_size)
    cold = next(r for r in rows if r.step == COLD and r.candidates == main_size)
    ratio = "\n".join(
        f"ratio {row.step}/{name} = {row.wall / floors[(name, main_size)]:.2f}"
        for row in (cold, check)
        for name in ("floor", FAST_FLOOR)
    )
    print("\n".join(lines))
    print()
    print("\n".join(verdicts(rows)))
    print(ratio)
    if not args.no_write:
        write_results(
            "\n".join(
                [
                    f"Generated by `make bench` in {time.perf_counter() - started:.0f} s "
                    f"({args.runs} runs per line, median wall-clock time; max RSS over the "
                    "runs).",
                    "",
                    *header,
                    "",
                    *lines,
                    "",
                    *verdicts(rows),
                    "",
                    "```",
                    ratio,
                    "```",
                ]
            ),
            args.block,
        )
        say(f"wrote {RESULTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
