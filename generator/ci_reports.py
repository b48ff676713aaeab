"""JUnit XML and Markdown reports of ``check`` and ``audit``, for CI systems.

Both commands reduce to suites of cases (a gate or an audit section each); a case passes,
fails (a regression: a gate's error finding, a failed audit case), is skipped (an audit
case that could not run) or is an error (the input could not be read at all). The JUnit
file follows the Ant/Jenkins schema CI systems read (``testsuites`` › ``testsuite`` ›
``testcase`` with ``failure``, ``error`` or ``skipped``); the Markdown reads as a pull
request comment. Untrusted text is escaped in both: control characters as escapes, and in
Markdown every character that could open a tag, a link or a table cell.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from generator.canonical import write_text
from generator.errors import ProbepressError, escape


class _Verdict(Protocol):
    @property
    def passed(self) -> bool: ...


R = TypeVar("R", bound=_Verdict)

Outcome = Literal["pass", "fail", "skip", "error"]


@dataclass(frozen=True)
class CiCase:
    """One JUnit test case."""

    name: str
    outcome: Outcome
    message: str = ""
    detail: str = ""


@dataclass(frozen=True)
class CiSuite:
    """One JUnit test suite (a gate, an audit section)."""

    name: str
    cases: tuple[CiCase, ...]

    def count(self, outcome: Outcome) -> int:
        return sum(c.outcome == outcome for c in self.cases)


def from_check(report: Any) -> list[CiSuite]:
    """Suites of a ``check`` report: one per gate, one case per error finding (a gate
    without one passes as a single case; warnings go in its detail)."""
    suites = []
    for r in report.results:
        failing = r.errors(report.strict)
        cases = [CiCase(f"{f.rule} {f.location()}", "fail", f.message, str(f)) for f in failing]
        if not cases:
            notes = "\n".join(str(f) for f in r.findings)
            cases = [CiCase(r.name, "pass", detail=notes)]
        suites.append(CiSuite(f"check.{r.name}", tuple(cases)))
    return suites


def from_audit(report: Any) -> list[CiSuite]:
    """Suites of an audit report: one per section, one case per audit case (skipped ones
    fail under ``--strict``)."""
    suites = []
    for s in report.sections:
        cases = []
        for c in s.cases:
            outcome: Outcome = c.status
            if outcome == "skip" and report.strict:
                outcome = "fail"
            cases.append(CiCase(c.name, outcome, c.message, str(c)))
        suites.append(CiSuite(f"audit.{s.name}", tuple(cases)))
    return suites


def unreadable(command: str, volume: str, message: str) -> list[CiSuite]:
    """The one suite of a run that could not read its input: a single error case."""
    head = " ".join(message.splitlines()[:2])  # the message and its first problem
    return [CiSuite(f"{command}.input", (CiCase(volume, "error", head, message),))]


def junit(title: str, suites: Sequence[CiSuite]) -> str:
    """The suites as JUnit XML text (deterministic: no timestamps, times 0)."""
    root = ET.Element("testsuites", _totals(title, suites))
    for suite in suites:
        node = ET.SubElement(root, "testsuite", _totals(suite.name, [suite]))
        for case in suite.cases:
            element = ET.SubElement(
                node, "testcase", {"classname": suite.name, "name": escape(case.name), "time": "0"}
            )
            tag = {"fail": "failure", "error": "error", "skip": "skipped"}.get(case.outcome)
            if tag is not None:
                child = ET.SubElement(element, tag, {"message": escape(case.message)})
                if tag != "skipped":
                    child.set("type", case.outcome)
                    child.text = escape(case.detail)
            elif case.detail:
                ET.SubElement(element, "system-out").text = escape(case.detail)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _totals(name: str, suites: Sequence[CiSuite]) -> dict[str, str]:
    cases = [c for s in suites for c in s.cases]
    return {
        "name": name,
        "tests": str(len(cases)),
        "failures": str(sum(c.outcome == "fail" for c in cases)),
        "errors": str(sum(c.outcome == "error" for c in cases)),
        "skipped": str(sum(c.outcome == "skip" for c in cases)),
        "time": "0",
    }


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def md_text(text: str) -> str:
    """Untrusted text as inert Markdown: HTML-escaped, Markdown punctuation escaped, one line."""
    flat = " ".join(escape(text).split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))


def markdown(title: str, passed: bool, suites: Sequence[CiSuite], limit: int = 50) -> str:
    """The suites as a pull-request comment: verdict, one table row per suite, then the
    failures, errors and skipped cases (at most ``limit`` of each)."""
    lines = [
        f"### {md_text(title)}: {'passed' if passed else 'FAILED'}",
        "",
        "| suite | passed | failed | errors | skipped |",
        "|---|---:|---:|---:|---:|",
    ]
    for s in suites:
        row = [md_text(s.name), *(str(s.count(o)) for o in ("pass", "fail", "error", "skip"))]
        lines.append("| " + " | ".join(row) + " |")
    for outcome, heading in (("error", "Errors"), ("fail", "Failures"), ("skip", "Not tested")):
        found = [(s, c) for s in suites for c in s.cases if c.outcome == outcome]
        if not found:
            continue
        lines += ["", f"**{heading}**", ""]
        lines += [
            f"- {md_text(s.name)}: {md_text(c.detail or c.message)}" for s, c in found[:limit]
        ]
        if len(found) > limit:
            lines.append(f"- … and {len(found) - limit} more")
    return "\n".join(lines) + "\n"


def write_reports(
    junit_file: Path | None,
    markdown_file: Path | None,
    title: str,
    passed: bool,
    suites: Sequence[CiSuite],
) -> None:
    """Write the JUnit and Markdown reports asked for (each atomically)."""
    if junit_file is not None:
        write_text(junit_file, junit(title, suites))
    if markdown_file is not None:
        write_text(markdown_file, markdown(title, passed, suites))


def reported(
    command: str,
    volume: str,
    files: tuple[Path | None, Path | None],
    run: Callable[[], R],
    suites_of: Callable[[R], list[CiSuite]],
) -> R:
    """``run()``'s report, with the JUnit and Markdown ``files`` (either None) written from
    it by ``suites_of``; when the input cannot be read, the reports say so as an error and
    the exception goes on."""
    title = f"probepress {command} {volume}"
    try:
        report = run()
    except ProbepressError as exc:
        write_reports(*files, title, False, unreadable(command, volume, exc.render()))
        raise
    write_reports(*files, title, bool(report.passed), suites_of(report))
    return report
