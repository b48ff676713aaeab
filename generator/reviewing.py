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

Applying is all or nothing for the public ledgers and idempotent as a whole, under the
root's writer lock (the command holds it):

- the private notes are written first (the private store may lie outside the root, where
  the publish journal cannot reach), then both public ledgers move into place in one
  commit of the publish journal (``generator.journal``): a failure rolls them back and
  restores the notes at once, a kill is rolled back by the next writer (this command
  recovers first, as publish and import do), so no disagreement is ever left without the
  climbs of the same file;
- a kill after the notes and before the journal's commit point leaves notes without their
  ledger lines: applying the same file again adds each line that is not there yet and no
  line twice (a decision whose ledger line is already recorded, with the same reviewer,
  date and words, counts as already applied rather than as stale), so re-applying an
  interrupted or a finished file is always safe.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator import journal, ladder
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
from generator.staging import Plan
from generator.store.bank import Bank, load_bank
from generator.store.jsonl import Bounds, Locator, Problems, load_document
from generator.store.paths import Layout

FIX = "build a new review page (`probepress review build`) and review again"
STAGE_PREFIX = ".probepress-review-"
"""The staging folder of an apply, inside the root (a killed one's is removed by recovery)."""


@dataclass(frozen=True)
class Applied:
    """What a review file added."""

    climbs: tuple[StatusChange, ...]
    """The ledger lines appended (one per sign-off)."""
    disagreements: tuple[Disagreement, ...]
    """The disagreements recorded."""
    skipped: int
    """Decisions that were ``skip``."""
    already: int = 0
    """Decisions already recorded by an earlier apply of the same file (nothing added)."""


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
    already: int = 0


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
    if decision.decision != "skip" and _recorded(bank, decision, {**fields, "item": item}):
        plan.already += 1
    elif decision.seen_status != status:
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


def _recorded(bank: Bank, decision: ReviewDecision, fields: dict[str, Any]) -> bool:
    """Whether the public ledger line this decision makes from the status the page showed
    is already recorded (the same file, or its interrupted run, was applied before)."""
    held = bank.is_heldout(decision.item)
    words = {} if held else {"comment": decision.comment}
    try:
        if decision.decision == "disagree":
            line = {**fields, **words, "status": decision.seen_status, "notes_private": held}
            return Disagreement.model_validate(line) in bank.disputes.get(decision.item, [])
        rung = ladder.next_rung(decision.seen_status)
        if rung is None:
            return False
        if not held:
            words["resolution"] = decision.resolution
        climb = StatusChange.model_validate(
            {**fields, **words, "status": rung, "notes_private": held}
        )
    except ValidationError:
        return False
    return climb in bank.ledger.get(decision.item, [])


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
    """The file's bytes with each of ``records`` appended that is not one of its lines
    yet (None: nothing to append)."""
    old = path.read_bytes() if os.path.lexists(path) else b""
    if old and not old.endswith(b"\n"):
        raise InputError(f"{path}: the last line has no line end; the ledger was cut short")
    present = set(old.splitlines(keepends=True))
    new = [dumps_line(r.model_dump(mode="json")).encode("utf-8") for r in records]
    fresh = [line for line in dict.fromkeys(new) if line not in present]
    return old + b"".join(fresh) if fresh else None


def apply_review(
    layout: Layout,
    file: Path,
    reviewer: str,
    on: dt.date,
    bounds: Bounds | None = None,
    ops: journal.FileOps | None = None,
) -> Applied:
    """Check ``file`` and append its lines to the ledgers (all or nothing, and never a
    line twice: see the module docstring; the caller holds the root's writer lock).

    Args:
        ops: The filesystem operations of the write (tests inject faults through it).

    Raises:
        InputError: The file, the reviewer's name or a decision is refused (nothing is
            written).
        CommitError: An OS error stopped the write; the ledgers were restored.
    """
    bounds = bounds or Bounds()
    ops = ops or journal.FileOps()
    try:
        StatusChange.model_validate(
            {"item": "x", "status": "reviewed", "by": reviewer, "on": on, "bank_version": "v1"}
        )
    except ValidationError:
        raise InputError(f"--reviewer {reviewer!r} is not a name (1 to 200 characters)") from None
    journal.recover(layout.root)  # an interrupted apply (or publish) is rolled back first
    plan = check_review(layout, file, reviewer, on, bounds)
    notes = _appended(layout.private_review_notes, plan.notes)
    ledgers = {
        layout.rel(path): data
        for path, records in (
            (layout.disagreement_ledger, plan.disagreements),
            (layout.status_ledger, plan.climbs),
        )
        if (data := _appended(path, records)) is not None
    }
    _write(layout, notes, ledgers, ops)
    return Applied(tuple(plan.climbs), tuple(plan.disagreements), plan.skipped, plan.already)


def _write(
    layout: Layout, notes: bytes | None, ledgers: dict[str, bytes], ops: journal.FileOps
) -> None:
    """The private notes, then both public ledgers in one journal commit; on a failure the
    notes are restored as they were (a kill leaves them for the next apply to complete)."""
    path = layout.private_review_notes
    before = path.read_bytes() if os.path.lexists(path) else None
    try:
        if notes is not None:
            ops.step("write", path)
            write_bytes(path, notes, layout.private)
        if ledgers:
            _commit(layout.root, ledgers, ops)
    except journal.ROLLBACK_ON:
        # Past the journal's commit point (an interrupt during its clean-up) the ledgers
        # stand, and so must the notes of their climbs.
        if notes is not None and not _in_place(layout.root, ledgers):
            with suppress(OSError):
                if before is None:
                    path.unlink(missing_ok=True)
                else:
                    write_bytes(path, before, layout.private)
        raise


def _in_place(root: Path, ledgers: dict[str, bytes]) -> bool:
    """Whether every ledger holds its new bytes (an empty ``ledgers``: nothing to hold)."""
    if not ledgers:
        return False
    with suppress(OSError):
        return all((root / rel).read_bytes() == data for rel, data in ledgers.items())
    return False


def _commit(root: Path, ledgers: dict[str, bytes], ops: journal.FileOps) -> None:
    """Stage the ledgers inside the root and move them into place in one journal commit."""
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=root))
    try:
        for rel, data in ledgers.items():
            write_bytes(stage / rel, data, stage)
        journal.commit(root, stage, Plan(moves=sorted(ledgers)), ops, action="review apply")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
