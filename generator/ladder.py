"""The validation ladder (DESIGN §14) as pure rules: no file is read or written here.

An item climbs ``draft`` → ``reviewed`` → ``validated``, one rung per step:

- ``draft``: who wrote the item (with its criterion or rubric), and when;
- ``reviewed``: one named reviewer, not the author, signed off on a date;
- ``validated``: a second reviewer, neither the author nor the first reviewer, signed
  off on a date; if they disagreed with the first (``disagreed``, or a disagreement
  recorded in the ledger since the item was reviewed), the step says how it was resolved.

A step never goes down, never repeats a rung and never skips one, and steps are in date
order. An item validated outside the project (e.g. an imported public data set whose
authors validated it) has one ``external`` step naming the source publication instead of
invented reviewer names; it is ``validated`` and climbs no further.

An item's frozen history is its ``validation`` list in the bank file it was published in;
later climbs are ledger lines (``bank/status.jsonl``) appended to it. Names are compared
as a reader sees them (invisible characters dropped, case and spacing folded), so
``"A. Haddad"`` and ``"a.  haddad"`` are one person.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Sequence
from typing import Final, Protocol

RUNGS: Final = ("draft", "reviewed", "validated")
"""The ladder's rungs, bottom first."""


class Step(Protocol):
    """What the ladder reads of a step: a frozen ``ValidationStep`` or a ledger line."""

    @property
    def status(self) -> str: ...
    @property
    def by(self) -> str: ...
    @property
    def on(self) -> dt.date: ...


def person(name: str) -> str:
    """A name as a reader tells people apart: compatibility forms, case and spacing
    folded, characters that do not show (format and control characters) dropped."""
    shown = "".join(c for c in name if unicodedata.category(c) not in ("Cf", "Cc"))
    return " ".join(unicodedata.normalize("NFKC", shown).casefold().split())


def _external(step: Step) -> str | None:
    return getattr(step, "external", None)


def _resolved(step: Step) -> bool:
    """Whether a step writes down how a disagreement was resolved (here, or in the
    private store for a held-out item)."""
    text = str(getattr(step, "resolution", "") or "")
    return bool(text.strip()) or bool(getattr(step, "notes_private", False))


def _rung(steps: Sequence[Step], n: int) -> str | None:
    """Why step ``n`` (0-based) is not the next rung after ``steps[:n]``, or None."""
    step = steps[n]
    if step.status not in RUNGS:
        return f"step {n + 1}: {step.status!r} is not a rung of the ladder ({', '.join(RUNGS)})"
    if n == 0:
        if step.status != "draft":
            return (
                f"step 1 is {step.status!r}: a history starts at 'draft' (who wrote the item, "
                "and when), then climbs one rung per sign-off"
            )
        return None
    before = steps[n - 1].status
    if n >= len(RUNGS):
        return f"step {n + 1} climbs past 'validated', the top rung"
    expected = RUNGS[n]
    if step.status == expected:
        return None
    if RUNGS.index(step.status) <= RUNGS.index(before):
        return (
            f"step {n + 1} goes from {before!r} to {step.status!r}: a status never goes "
            "down or repeats a rung"
        )
    return f"step {n + 1} jumps from {before!r} to {step.status!r}, skipping {expected!r}"


def _independent(steps: Sequence[Step], n: int) -> str | None:
    """Why the signer of step ``n`` is not independent of the earlier signers, or None."""
    step = steps[n]
    for k in range(n):
        if person(steps[k].by) == person(step.by):
            role = "wrote the item" if k == 0 else f"signed it off as {steps[k].status!r}"
            return (
                f"step {n + 1} ({step.status}) is signed by {step.by!r}, who also {role}: "
                f"each rung needs a different person"
            )
    return None


def history_problem(steps: Sequence[Step], disagreements: Sequence[dt.date] = ()) -> str | None:
    """Why a history (frozen steps, then ledger lines) breaks the ladder, or None.

    Args:
        steps: The steps, oldest first.
        disagreements: Dates of disagreements recorded against the item (in the ledger);
            one dated on or after the ``reviewed`` step needs the ``validated`` step to
            carry a resolution.
    """
    if not steps:
        return "the validation history is empty: it starts with a 'draft' step"
    if _external(steps[0]) is not None:
        if len(steps) > 1:
            return (
                "an external validation step stands alone: an item validated by its source "
                "publication climbs no further"
            )
        if steps[0].status != "validated":
            return (
                f"an external step records validation by a source publication: its status "
                f"is 'validated', not {steps[0].status!r}"
            )
        return None
    for n in range(len(steps)):
        problem = _rung(steps, n) or _independent(steps, n)
        if problem is None and n > 0 and _external(steps[n]) is not None:
            problem = f"step {n + 1} is external: only a one-step history can be external"
        if problem is None and n > 0 and steps[n].on < steps[n - 1].on:
            problem = (
                f"step {n + 1} ({steps[n].status}, {steps[n].on}) is dated before step {n} "
                f"({steps[n - 1].status}, {steps[n - 1].on})"
            )
        if problem is not None:
            return problem
    return _resolution_problem(steps, disagreements)


def _resolution_problem(steps: Sequence[Step], disagreements: Sequence[dt.date]) -> str | None:
    if len(steps) < 3:
        return None
    reviewed, validated = steps[1], steps[2]
    disputed = bool(getattr(validated, "disagreed", False)) or any(
        reviewed.on <= day <= validated.on for day in disagreements
    )
    if disputed and not _resolved(validated):
        return (
            "the 'validated' step follows a recorded disagreement but gives no resolution: "
            "write down how the two reviewers settled it"
        )
    return None


def current_status(history: Sequence[Step], ledger: Sequence[Step] = ()) -> str:
    """The status an item has now: the last of its frozen history and its ledger lines."""
    steps = [*history, *ledger]
    return steps[-1].status if steps else "draft"


def next_rung(status: str) -> str | None:
    """The rung above ``status`` (None at the top)."""
    n = RUNGS.index(status)
    return RUNGS[n + 1] if n + 1 < len(RUNGS) else None


def check_climb(
    history: Sequence[Step], change: Step, disagreements: Sequence[dt.date] = ()
) -> str | None:
    """Why appending ``change`` to ``history`` (frozen steps and earlier ledger lines)
    breaks the ladder, or None when it is the next rung, signed by someone new, dated no
    earlier than the last step, resolving any recorded disagreement."""
    if history and _external(history[0]) is not None:
        return (
            f"the item was validated by its source publication ({_external(history[0])}): "
            "it climbs no further"
        )
    status = current_status(history)
    above = next_rung(status)
    if above is None:
        return "the item is already 'validated', the top rung"
    if change.status != above:
        return (
            f"the item is {status!r}: a sign-off climbs exactly one rung, to {above!r}, "
            f"not to {change.status!r}"
        )
    return history_problem([*history, change], disagreements)
