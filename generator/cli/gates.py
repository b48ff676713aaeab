"""Commands that check a volume: check, gate, figures."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.audit import ci_options
from generator.cli.base import (
    EPILOG,
    State,
    pass_state,
    print_report,
    writer_lock,
)
from generator.console import err, print_json, progress
from generator.errors import CheckFailed, UsageError
from generator.store.paths import FIGURES_REGISTRY
from generator.words import counted


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@ci_options
@pass_state
def check(
    state: State,
    volume: str,
    as_json: bool,
    strict: bool,
    junit_file: Path | None,
    markdown_file: Path | None,
) -> None:
    """Run all nine publication gates on VOLUME and print a table of verdicts."""
    from generator import ci_reports
    from generator.checking import CheckReport, run_gates

    def run() -> CheckReport:
        with progress(f"checking {volume}", ticking=False) as step:
            return run_gates(
                state.layout, volume, strict=strict, bounds=state.bounds, progress=step
            )

    files = (junit_file, markdown_file)
    report = ci_reports.reported("check", volume, files, run, ci_reports.from_check)
    print_report(report, as_json)


@click.command(epilog=EPILOG)
@click.argument("name", metavar="NAME")
@click.argument("volume")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@pass_state
def gate(state: State, name: str, volume: str, as_json: bool, strict: bool) -> None:
    """Run one publication gate NAME on VOLUME.

    NAME is one of: preflight, config, circuit-breaker, judge-conflict, recusal,
    agreement, holdout, naming, publishing.
    """
    from generator.checking import run_gates
    from generator.gates import NAMES

    if name not in NAMES:
        raise UsageError(f"no gate {name!r}; the gates are: {', '.join(NAMES)}")
    report = run_gates(state.layout, volume, [name], strict=strict, bounds=state.bounds)
    print_report(report, as_json)


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option(
    "--verify", is_flag=True, help="Recompute and compare with the registry; write nothing."
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def figures(state: State, volume: str, verify: bool, as_json: bool) -> None:
    """Compute every figure of VOLUME into figures/figures.json (or --verify it)."""
    from generator import figures as registry

    if verify:
        mismatches = registry.verify(state.layout, volume, state.bounds)
        if as_json:
            print_json(
                {
                    "volume": volume,
                    "verified": not mismatches,
                    "mismatches": [{"figure": m.path, "message": m.message} for m in mismatches],
                }
            )
        if mismatches:
            raise CheckFailed(
                f"{volume}: {counted(len(mismatches), 'registered figure')} not recomputing:",
                mismatches,
            )
        err.print(
            f"{volume}: every registered figure recomputes from sources with matching SHA-256"
        )
        return
    with writer_lock(state.layout.root):
        count, changed = registry.write(state.layout, volume, state.bounds)
    if as_json:
        print_json({"volume": volume, "figures": count, "changed": changed})
    where = "written to" if changed else "unchanged in"
    err.print(f"{volume}: {counted(count, 'figure')} {where} {FIGURES_REGISTRY}")
