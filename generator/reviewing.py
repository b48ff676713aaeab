"""``probepress review apply``: a reviewer's review file into the bank's ledgers.

The file (:class:`generator.models.review.ReviewFile`, saved by the review page) is
checked whole before anything is written: its bank and bank version are the current
ones, every item exists and still has the status the page showed, and every sign-off
climbs exactly one rung by the ladder's rules (``generator.ladder``) with the reviewer's
name and date. A sign-off appends a line to ``bank/status.jsonl``; a disagreement, which
changes no status, a line to ``bank/disagreements.jsonl`` (the item's ``validated``
sign-off must then say how it was resolved). A held-out item may be reviewed, but only
its id, status, the reviewer's name and the date reach the public ledgers: comments and
resolutions go to the private store's ``review_notes.jsonl``. The date must be later than
every published volume's publication date, because a volume counts the ledger lines
dated up to its own (a line dated earlier would change its published figures).

Each ledger is rewritten whole through a temporary file and a rename, under the root's
writer lock (the command holds it); the private notes are written first and the status
ledger last, so an interruption leaves no climb without its notes.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator import ladder
from generator.canonical import dumps_line, write_bytes
from generator.errors import InputError
from generator.fingerprints import load_frozen
from generator.models.base import Record
from generator.models.review import (
    Disagreement,
    ReviewDecision,
    ReviewFile,
    ReviewNote,
    StatusChange,
)
from generator.models.volume import Volume
from generator.store.bank import Bank, load_bank
from generator.store.jsonl import Bounds, Locator, Problems, load_document
from generator.store.paths import Layout

FIX = "build a new review page (`probepress review build`) and review again"


@dataclass(frozen=True)
class Applied:
    """What a review file added."""

    climbs: tuple[StatusChange, ...]
    """The ledger lines appended (one per sign-off)."""
    disagreements: tuple[Disagreement, ...]
    """The disagreements recorded."""
    skipped: int
    """Decisions that were ``skip``."""


def published_through(layout: Layout, bounds: Bounds) -> tuple[str, dt.date] | None:
    """The published volume with the latest publication date, and that date (None before
    the first volume is published)."""
    latest: tuple[str, dt.date] | None = None
    for volume_id in sorted({f.volume for f in load_frozen(layout).values()}):
        problems = Problems()
        path = layout.volume_file(volume_id)
        volume = load_document(path, Volume, layout.rel(path), problems, bounds.max_yaml_bytes)
        if volume is None:
            raise InputError(f"cannot read published volume {volume_id}:", problems.items)
        if latest is None or volume.publication_date > latest[1]:
            latest = (volume_id, volume.publication_date)
    return latest


@dataclass
class _Plan:
    """The lines a review file will add, gathered while it is checked."""

    climbs: list[StatusChange]
    disagreements: list[Disagreement]
    notes: list[ReviewNote]
    skipped: int = 0


def _header_problems(
    review: ReviewFile, bank: Bank, shown: str, on: dt.date, layout: Layout, bounds: Bounds
) -> Problems:
    problems = Problems()
    if review.bank != bank.manifest.name:
        message = f"the file is for bank {review.bank!r}, not {bank.manifest.name!r}"
        problems.add(shown, None, "review-bank", message, FIX)
    current = bank.manifest.version_ids()[-1]
    if review.bank_version != current:
        message = (
            f"the file was built for bank version {review.bank_version}; the bank is now {current}"
        )
        problems.add(shown, None, "review-version", message, FIX)
    latest = published_through(layout, bounds)
    if latest is not None and on <= latest[1]:
        message = (
            f"the review date {on} is not after {latest[0]}'s publication date ({latest[1]}): "
            f"{latest[0]} counts the ledger up to that day, so its published figures would change"
        )
        problems.add(shown, None, "review-date", message, "give the real date with --on")
    return problems


def _disagree(bank: Bank, decision: ReviewDecision, fields: dict[str, Any], plan: _Plan) -> None:
    """Record a disagreement (a held-out item's comment goes to the private notes)."""
    meta = bank.meta(decision.item)
    held = bank.is_heldout(decision.item)
    comment = "" if held else decision.comment
    plan.disagreements.append(
        Disagreement.model_validate(
            {**fields, "status": meta.status, "comment": comment, "notes_private": held}
        )
    )
    if held:
        note = {k: v for k, v in fields.items() if k != "bank_version"}
        plan.notes.append(
            ReviewNote.model_validate(
                {**note, "status": meta.status, "decision": "disagree", "comment": decision.comment}
            )
        )


def _sign_off(
    bank: Bank, decision: ReviewDecision, fields: dict[str, Any], plan: _Plan
) -> str | None:
    """Plan a sign-off's climb; why the ladder refuses it, or None."""
    meta = bank.meta(decision.item)
    rung = ladder.next_rung(meta.status)
    if rung is None:
        return "the item is already 'validated', the top rung"
    notes = {"comment": decision.comment, "resolution": decision.resolution}
    full = StatusChange.model_validate({**fields, "status": rung, **notes})
    days = [d.on for d in bank.disputes.get(decision.item, [])]
    problem = ladder.check_climb(meta.validation, full, days)
    if problem is not None:
        return problem
    if not bank.is_heldout(decision.item):
        plan.climbs.append(full)
        return None
    # Only id, status, name and date of a held-out item are public; its notes stay private.
    plan.climbs.append(
        StatusChange.model_validate({**fields, "status": rung, "notes_private": True})
    )
    note = {k: v for k, v in fields.items() if k != "bank_version"}
    plan.notes.append(
        ReviewNote.model_validate({**note, **notes, "status": rung, "decision": "sign-off"})
    )
    return None


def _decide(
    bank: Bank,
    decision: ReviewDecision,
    fields: dict[str, Any],
    where: tuple[str, int | None],
    plan: _Plan,
    problems: Problems,
) -> None:
    """Check one decision; add its lines to ``plan`` or its refusal to ``problems``."""
    shown, line = where
    item = decision.item
    if item not in bank.public and item not in bank.heldout:
        problems.add(shown, line, "review-item", f"item {item} is not in the bank", FIX)
        return
    status = bank.meta(item).status
    if decision.seen_status != status:
        message = (
            f"{item}: the page showed it {decision.seen_status!r} but it is now "
            f"{status!r} (reviewed by someone else since)"
        )
        problems.add(shown, line, "review-stale", message, FIX)
    elif decision.decision == "skip":
        plan.skipped += 1
    elif decision.decision == "disagree":
        _disagree(bank, decision, {**fields, "item": item}, plan)
    else:
        problem = _sign_off(bank, decision, {**fields, "item": item}, plan)
        if problem is not None:
            problems.add(shown, line, "validation-ladder", f"{item}: {problem}", FIX)


def check_review(layout: Layout, file: Path, reviewer: str, on: dt.date, bounds: Bounds) -> _Plan:
    """Every line the review file adds, or ``InputError`` naming every refusal."""
    shown = str(file)
    problems = Problems()
    review = load_document(file, ReviewFile, shown, problems, bounds.max_yaml_bytes)
    bank = load_bank(layout, bounds, problems, private=False)
    if review is None or bank is None or problems:
        raise InputError(f"{shown}: review not applied (nothing was written):", problems.items)
    problems = _header_problems(review, bank, shown, on, layout, bounds)
    lines = Locator(file, bounds.max_yaml_bytes)
    plan = _Plan([], [], [])
    fields: dict[str, Any] = {"by": reviewer, "on": on, "bank_version": review.bank_version}
    for n, decision in enumerate(review.decisions):
        where = (shown, lines.line(("decisions", n, "item")))
        _decide(bank, decision, fields, where, plan, problems)
    if problems:
        raise InputError(f"{shown}: review not applied (nothing was written):", problems.items)
    return plan


def _appended(path: Path, records: Sequence[Record]) -> bytes | None:
    """The file's bytes with ``records`` appended (None: nothing to append)."""
    if not records:
        return None
    old = path.read_bytes() if os.path.lexists(path) else b""
    if old and not old.endswith(b"\n"):
        raise InputError(f"{path}: the last line has no line end; the ledger was cut short")
    return old + "".join(dumps_line(r.model_dump(mode="json")) for r in records).encode("utf-8")


def apply_review(
    layout: Layout, file: Path, reviewer: str, on: dt.date, bounds: Bounds | None = None
) -> Applied:
    """Check ``file`` and append its lines to the ledgers (all or nothing; the caller
    holds the root's writer lock).

    Raises:
        InputError: The file, the reviewer's name or a decision is refused (nothing is
            written).
    """
    bounds = bounds or Bounds()
    try:
        StatusChange.model_validate(
            {"item": "x", "status": "reviewed", "by": reviewer, "on": on, "bank_version": "v1"}
        )
    except ValidationError:
        raise InputError(f"--reviewer {reviewer!r} is not a name (1 to 200 characters)") from None
    plan = check_review(layout, file, reviewer, on, bounds)
    writes = [
        (layout.private_review_notes, _appended(layout.private_review_notes, plan.notes)),
        (layout.disagreement_ledger, _appended(layout.disagreement_ledger, plan.disagreements)),
        (layout.status_ledger, _appended(layout.status_ledger, plan.climbs)),
    ]
    for path, data in writes:
        if data is not None:
            base = layout.private if path == layout.private_review_notes else layout.root
            write_bytes(path, data, base)
    return Applied(tuple(plan.climbs), tuple(plan.disagreements), plan.skipped)
