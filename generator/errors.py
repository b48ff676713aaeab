"""Domain errors. Library code raises these; only ``generator.cli`` turns them into exits."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from generator.words import counted


def escape(text: str) -> str:
    """``text`` with every character a terminal or a reader might not show as itself
    written as an escape: C0 and C1 controls (``\\x1b``), bidi and other format
    characters (``\\u202e``, ``\\u200b``), line separators and unassigned code points.

    Messages quote file names, keys and texts from untrusted input; escaped, such a
    message cannot move the cursor, recolour the terminal or reorder what is shown.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong, located as precisely as we can: found by a reader, a gate
    (``gate`` names it) or ``verify`` (whose ``rule`` is the question it fails:
    integrity, recomputed or authenticated).

    ``path`` is usually a root-relative file; a problem about a figure or a volume as a
    whole is located by its id.
    """

    path: str
    line: int | None
    rule: str
    message: str
    fix: str | None = None
    gate: str | None = field(default=None, kw_only=True)
    severity: Severity = field(default="error", kw_only=True)
    """A warning fails only under ``--strict``."""
    cause: str | None = field(default=None, kw_only=True)
    """Where the root cause of this problem is reported (a path), when it only follows
    from another problem; None: it is a root cause itself. Root causes are shown first."""
    affected: tuple[str, ...] = field(default=(), kw_only=True)
    """What a grouped problem stands for (the figures that do not recompute …)."""

    def location(self) -> str:
        """``path:line`` (or just ``path`` when no line applies), control characters
        escaped."""
        path = escape(self.path)
        return f"{path}:{self.line}" if self.line is not None else path

    def located(self, text: str) -> str:
        """``path:line: text``; a problem of the whole tree (path ``.``) is not prefixed
        with a bare ``.:``, which reads as a typo."""
        return text if self.path in ("", ".") else f"{self.location()}: {text}"

    def __str__(self) -> str:
        rule = f"{self.gate}/{self.rule}" if self.gate else self.rule
        text = self.located(f"{escape(self.message)} [{escape(rule)}]")
        return f"{text}; fix: {escape(self.fix)}" if self.fix else text

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form (``fix`` null when there is none)."""
        return {
            "gate": self.gate,
            "rule": self.rule,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "fix": self.fix or None,
            "severity": self.severity,
            "cause": self.cause,
            "affected": list(self.affected),
        }


class ProbepressError(Exception):
    """Base class of every error probepress expects and explains."""

    exit_code = 2

    def __init__(self, message: str, problems: Iterable[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)

    def render(self, limit: int = 50) -> str:
        """The message plus one line per problem, root causes first, capped at ``limit``
        lines; the cap cuts problems that follow from another before any root cause."""
        if not self.problems:
            return escape(str(self))
        shown = root_causes_first(self.problems)[:limit]
        lines = [str(p) for p in shown]
        hidden = len(self.problems) - len(shown)
        if hidden > 0:
            roots = sum(p.cause is None for p in self.problems) - sum(
                p.cause is None for p in shown
            )
            kinds = f", {counted(roots, 'root cause')} among them" if roots else ""
            lines.append(f"... and {counted(hidden, 'more problem')}{kinds}")
        head = escape(str(self))
        return "\n".join([head, *lines]) if head else "\n".join(lines)


def root_causes_first(problems: Iterable[Problem]) -> list[Problem]:
    """``problems`` with every root cause before the problems that follow from one
    (each part in its own order)."""
    found = list(problems)
    return [p for p in found if p.cause is None] + [p for p in found if p.cause is not None]


class InputError(ProbepressError):
    """An input file is missing, unreadable, malformed or inconsistent (exit 2)."""


class UsageError(ProbepressError):
    """The command was asked for something that cannot be done (exit 2)."""


class CheckFailed(ProbepressError):
    """A check ran and found a problem (exit 1)."""

    exit_code = 1


def os_error_message(exc: OSError) -> str:
    """An operating-system error in the ``path: message [rule]`` form, naming the path
    (or both paths)
    and the errno text, e.g. ``site/index.html: No space left on device [ENOSPC]``."""
    code = exc.errno
    name = errno.errorcode.get(code, "OSError") if code is not None else "OSError"
    reason = exc.strerror or (os.strerror(code) if code is not None else str(exc))
    paths = [os.fsdecode(p) for p in (exc.filename, exc.filename2) if p is not None]
    where = " -> ".join(escape(p) for p in paths) if paths else "(no path)"
    return f"{where}: {escape(reason)} [{name}]"
