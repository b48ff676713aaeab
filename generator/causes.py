"""Root causes first: consequences are grouped under the problem they follow from.

One edited bundle file makes every figure computed from it fail to recompute. Reported
one figure at a time, those follow-on findings bury the one that matters (the file
changed) and suggest the wrong fix (recompute the figures over a tampered file). Here
each changed source becomes one finding that names how many figures it breaks and why,
with a fix that fits the reason; the figure ids are kept in ``affected``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from generator.errors import Problem
from generator.words import counted

CHANGED_SOURCE = "figure-mismatch"
"""The rule of a figure whose source file changed (its ``cause`` is the file)."""
LISTED = 3
"""Figure ids named in a grouped finding's message (all of them are in ``affected``)."""


class Because(NamedTuple):
    """Why a source file changed, as far as the caller knows, and what to do about it."""

    reason: str
    """Completes "N figures do not recompute because FILE …" (``changed after sealing``)."""
    fix: str | None


def _same(path: str) -> str:
    return path


def figures_by_source(
    mismatches: Iterable[Problem],
    because: Callable[[str], Because],
    shown: Callable[[str], str] = _same,
) -> list[Problem]:
    """``mismatches`` (``figures.verify``'s) with those that follow from a changed source
    file grouped into one problem per file, named as ``shown`` names it.

    A figure in a group is not reported again for recomputing to another value: that
    follows from the same change. Other mismatches are kept, in their order, first.
    """
    found = list(mismatches)
    groups: dict[str, list[str]] = {}
    for problem in found:
        if problem.cause is not None and problem.rule == CHANGED_SOURCE:
            groups.setdefault(problem.cause, []).append(problem.path)
    grouped = {fid for ids in groups.values() for fid in ids}
    kept = [p for p in found if p.cause is None and p.path not in grouped]
    kept += [p for p in found if p.cause is not None and p.path not in grouped]
    for source, ids in groups.items():
        why = because(source)
        where = shown(source)
        verb = "does" if len(ids) == 1 else "do"
        listed = ", ".join(ids[:LISTED])
        more = f" and {len(ids) - LISTED} more" if len(ids) > LISTED else ""
        message = (
            f"{counted(len(ids), 'figure')} {verb} not recompute because this file "
            f"{why.reason} ({listed}{more})"
        )
        kept.append(
            Problem(where, None, CHANGED_SOURCE, message, why.fix, cause=where, affected=tuple(ids))
        )
    return kept
