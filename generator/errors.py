"""Domain errors. Library code raises these; only ``cli.py`` turns them into exits."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as we can."""

    path: str
    line: int | None
    rule: str
    message: str
    fix: str = ""

    def location(self) -> str:
        """``path:line`` (or just ``path`` when no line applies)."""
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        text = f"{self.location()}: {self.message} [{self.rule}]"
        return f"{text}; fix: {self.fix}" if self.fix else text


class ProbepressError(Exception):
    """Base class of every error probepress expects and explains."""

    exit_code = 2

    def __init__(self, message: str, problems: Iterable[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)

    def render(self, limit: int = 50) -> str:
        """The message plus one line per problem, capped at ``limit`` lines."""
        if not self.problems:
            return str(self)
        lines = [str(p) for p in self.problems[:limit]]
        hidden = len(self.problems) - limit
        if hidden > 0:
            lines.append(f"... and {hidden} more problem(s)")
        head = str(self)
        return "\n".join([head, *lines]) if head else "\n".join(lines)


class InputError(ProbepressError):
    """An input file is missing, unreadable, malformed or inconsistent (exit 2)."""


class UsageError(ProbepressError):
    """The command was asked for something that cannot be done (exit 2)."""


class CheckFailed(ProbepressError):
    """A check ran and found a problem (exit 1)."""

    exit_code = 1
