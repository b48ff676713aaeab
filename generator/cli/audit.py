"""``probepress audit``: test the benchmark before the models (DESIGN §13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from generator.cli.base import EPILOG, State, pass_state
from generator.console import err, out, print_json, progress
from generator.errors import CheckFailed, escape

REPORT_FILE = click.Path(dir_okay=False, path_type=Path)
F = TypeVar("F", bound=Callable[..., Any])


def ci_options(command: F) -> F:
    """``--junit FILE`` and ``--markdown FILE`` (shared with ``check``)."""
    command = click.option(
        "--markdown",
        "markdown_file",
        type=REPORT_FILE,
        help="Also write the report as Markdown (a pull-request comment) to FILE.",
    )(command)
    return click.option(
        "--junit",
        "junit_file",
        type=REPORT_FILE,
        help="Also write the report as JUnit XML to FILE (failures as failures, "
        "unreadable input as an error).",
    )(command)


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report on stdout.")
@click.option("--strict", is_flag=True, help="What could not be tested fails too.")
@ci_options
@pass_state
def audit(
    state: State,
    volume: str,
    as_json: bool,
    strict: bool,
    junit_file: Path | None,
    markdown_file: Path | None,
) -> None:
    """Test the benchmark on VOLUME before the models: reference answers, negative
    controls, exploit attempts on every Tier 0 check, scorer properties, balance and
    receipts. Cases that could not run are listed as not tested (failures with
    --strict). Held-out items are named by id only."""
    from generator import ci_reports
    from generator.audit import AuditReport, run_audit

    def run() -> AuditReport:
        with progress(f"auditing {volume}", ticking=False) as step:
            return run_audit(
                state.layout, volume, strict=strict, bounds=state.bounds, progress=step
            )

    files = (junit_file, markdown_file)
    report = ci_reports.reported("audit", volume, files, run, ci_reports.from_audit)
    _print(report, as_json)


def _print(report: object, as_json: bool) -> None:
    from rich.table import Table

    from generator.audit import AuditReport

    assert isinstance(report, AuditReport)
    if as_json:
        print_json(report.as_json())
    else:
        table = Table("section", "verdict", "passed", "failed", "not tested", title=report.volume)
        for s in report.sections:
            verdict = "FAIL" if s.failed(report.strict) else "pass"
            table.add_row(s.title, verdict, *(str(s.count(k)) for k in ("pass", "fail", "skip")))
        out.print(table)
        for s in report.sections:
            for c in s.cases:
                if c.status != "pass":
                    label = "not tested" if c.status == "skip" else "FAIL"
                    err.print(f"{label}: {s.name}: {c}", markup=False)
    if not report.passed:
        failed = [s.name for s in report.sections if s.failed(report.strict)]
        raise CheckFailed(f"{escape(report.volume)}: audit failed: {', '.join(failed)}")
    err.print(f"{report.volume}: audit passed", markup=False)
