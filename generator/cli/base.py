"""What every command shares: options, the error boundary, the writer lock, reports."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import click

from generator.console import err, out, print_json
from generator.errors import (
    CheckFailed,
    ProbepressError,
    UsageError,
    escape,
    os_error_message,
    root_causes_first,
)
from generator.interrupt import Terminated, sigterm_exits
from generator.lock import writing
from generator.store import Bounds, Layout

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EPILOG = "Exit codes: 0 ok; 1 a check or gate failed; 2 usage error or unreadable input."


@dataclass
class State:
    """Options shared by every command."""

    layout: Layout
    traceback: bool
    private_option: Path | None = None
    bounds: Bounds = field(default_factory=Bounds)


class Group(click.Group):
    """Turns expected errors into one clear message and an exit code, never a traceback.

    Expected errors are ``ProbepressError``s and ``OSError``s — the machine refusing
    (a full disk, a permission, an I/O error): both say what and where, exit 2. Any
    other exception is a bug and keeps its traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with sigterm_exits():
                return super().invoke(ctx)
        except Terminated:
            err.print("probepress: stopped by SIGTERM; temporary files removed", markup=False)
            raise
        except ProbepressError as exc:
            if _wants_traceback(ctx):
                raise
            err.print(exc.render(), markup=False)
            sys.exit(exc.exit_code)
        except OSError as exc:
            if _wants_traceback(ctx):
                raise
            err.print(f"could not run: {os_error_message(exc)}", markup=False)
            sys.exit(2)


def _wants_traceback(ctx: click.Context) -> bool:
    state = ctx.find_object(State)
    return state is not None and state.traceback


def parse_limits(limits: tuple[str, ...]) -> Bounds:
    """Reader bounds from ``--limit NAME=N`` options."""
    names = {f.name for f in fields(Bounds)}
    values: dict[str, int] = {}
    for text in limits:
        name, _, value = text.partition("=")
        if name not in names or not value.isdigit() or int(value) < 1:
            raise click.BadParameter(
                f"expected NAME=N with NAME one of {', '.join(sorted(names))}, got {text!r}",
                param_hint="--limit",
            )
        values[name] = int(value)
    return replace(Bounds(), **values)


pass_state = click.make_pass_decorator(State)


@contextmanager
def writer_lock(root: Path, writes: bool = True, create: bool = False) -> Iterator[None]:
    """Hold ``root``'s writer lock when the command writes (one writer per root)."""
    with writing(root, create=create) if writes else nullcontext():
        yield


def parse_scale(text: str) -> dict[str, int]:
    """``--scale candidates=N,items=M`` as a dict."""
    parts: dict[str, int] = {}
    for chunk in text.split(","):
        key, _, value = chunk.partition("=")
        if key.strip() not in ("candidates", "items") or not value.strip().isdigit():
            raise UsageError(f"--scale takes candidates=N,items=M, got {text!r}")
        parts[key.strip()] = int(value)
    if set(parts) != {"candidates", "items"} or min(parts.values()) < 1:
        raise UsageError(f"--scale needs both candidates=N and items=M (N, M ≥ 1), got {text!r}")
    return parts


def print_report(report: Any, as_json: bool) -> None:
    """A gate report as a table on stderr (or JSON on stdout)."""
    from rich.table import Table

    if as_json:
        print_json(report.as_json())
    else:
        table = Table("gate", "verdict", "findings", "first finding", title=f"{report.volume}")
        for r in report.results:
            verdict = "pass" if r.passed(report.strict) else "FAIL"
            if r.passed(report.strict) and r.findings:
                verdict = "pass (warnings)"
            if r.pending:
                verdict += " · pending parts"
            first = r.findings[0].located(escape(r.findings[0].message)) if r.findings else "—"
            table.add_row(r.name, verdict, str(len(r.findings)), first)
        out.print(table)
        found = [f for r in report.results for f in r.findings]
        for finding in root_causes_first(found):  # consequences after every root cause
            err.print(f"{finding.severity}: {finding}", markup=False)
        for r in report.results:
            for item in r.pending:
                err.print(f"pending: {r.name}: {item}", markup=False)
        for r in report.results:
            for note in r.notes:
                err.print(f"note: {r.name}: {note}", markup=False)
    if not report.passed:
        failed = [r.name for r in report.results if not r.passed(report.strict)]
        raise CheckFailed(
            f"{report.volume}: {'gate' if len(failed) == 1 else 'gates'} failed: "
            f"{', '.join(failed)}"
        )
