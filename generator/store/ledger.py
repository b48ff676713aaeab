"""Read the append-only ledgers of the bank: ``bank/status.jsonl`` (climbs after
publication) and ``bank/disagreements.jsonl`` (reviewers' disagreements).

A published bank file never changes, so an item's status after publication grows here,
one line per rung climbed. Each line is checked against the validation ladder
(``generator.ladder``) given the item's frozen history and its earlier lines, so the
ledger can only climb, one rung and one new person at a time. A held-out item's lines
carry no comment or resolution (``notes_private``: they stay in the private store).
Whether earlier lines were edited after publication is checked against the download
registry (``generator.bank_downloads``), not here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from generator import ladder
from generator.models.bank import ItemMeta
from generator.models.base import Record
from generator.models.review import Disagreement, StatusChange
from generator.models.validation import ValidationStep
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.paths import Layout

if TYPE_CHECKING:
    from generator.store.bank import Bank

R = TypeVar("R", bound=Record)
M = TypeVar("M", bound=ItemMeta)
FIX = "the ledger only grows through `probepress review apply`; restore the published lines"


def with_climbs(meta: M, climbs: list[StatusChange]) -> M:
    """``meta`` with ``climbs`` appended to its history and its status the last one's."""
    if not climbs:
        return meta
    steps = [
        ValidationStep(
            status=c.status,
            by=c.by,
            on=c.on,
            resolution=c.resolution,
            notes_private=c.notes_private,
        )
        for c in climbs
    ]
    return meta.model_copy(
        update={"status": climbs[-1].status, "validation": [*meta.validation, *steps]}
    )


def _lines(
    path: Path, model: type[R], shown: str, problems: Problems, bounds: Bounds
) -> Iterator[tuple[int, R]]:
    if not os.path.lexists(path):
        return iter(())
    return iter_jsonl(path, model, shown, problems, bounds)


def _known(
    bank: Bank, record: StatusChange | Disagreement, where: tuple[str, int], problems: Problems
) -> bool:
    """Whether the line's item and bank version exist and its privacy fits the item."""
    shown, line = where
    if record.item not in bank.public and record.item not in bank.heldout:
        problems.add(shown, line, "ledger-item", f"item {record.item} is not in the bank", FIX)
        return False
    if record.bank_version not in bank.manifest.version_ids():
        message = f"bank_version {record.bank_version} is not declared in bank/bank.yaml"
        problems.add(shown, line, "ledger-version", message, FIX)
        return False
    held = bank.is_heldout(record.item)
    if held != record.notes_private:
        message = (
            f"{record.item} is held out: its notes stay in the private store (notes_private: "
            "true, no comment or resolution)"
            if held
            else f"{record.item} is public: its notes are on the line (notes_private: false)"
        )
        problems.add(shown, line, "ledger-private", message, FIX)
        return False
    return True


def load_ledgers(layout: Layout, bank: Bank, bounds: Bounds, problems: Problems) -> None:
    """Read both ledgers into ``bank.ledger`` and ``bank.disputes``; report every line
    that names no item, breaks the ladder or would publish a held-out item's notes."""
    disputed = layout.rel(layout.disagreement_ledger)
    read = list(_lines(layout.disagreement_ledger, Disagreement, disputed, problems, bounds))
    read = [(n, d) for n, d in read if _known(bank, d, (disputed, n), problems)]
    for _, dispute in read:
        bank.disputes.setdefault(dispute.item, []).append(dispute)
    shown = layout.rel(layout.status_ledger)
    for line, change in _lines(layout.status_ledger, StatusChange, shown, problems, bounds):
        if not _known(bank, change, (shown, line), problems):
            continue
        earlier = bank.ledger.get(change.item, [])
        history = with_climbs(bank.frozen(change.item), earlier).validation
        days = [d.on for d in bank.disputes.get(change.item, [])]
        problem = ladder.check_climb(history, change, days)
        if problem is not None:
            problems.add(shown, line, "validation-ladder", f"{change.item}: {problem}", FIX)
            continue
        bank.ledger.setdefault(change.item, []).append(change)
    for line, dispute in read:
        problem = _dispute_problem(bank, dispute)
        if problem is not None:
            problems.add(disputed, line, "ledger-status", problem, FIX)


def _dispute_problem(bank: Bank, dispute: Disagreement) -> str | None:
    """Why a disagreement names a status its item did not have on its date, or None (on
    a day the item also climbed, either side of the climb will do)."""
    steps: list[ValidationStep | StatusChange] = [
        *bank.frozen(dispute.item).validation,
        *bank.ledger.get(dispute.item, []),
    ]
    before = [s.status for s in steps if s.on < dispute.on] or ["draft"]
    upto = [s.status for s in steps if s.on <= dispute.on] or ["draft"]
    if dispute.status in (before[-1], upto[-1]):
        return None
    return f"{dispute.item} was {upto[-1]!r} on {dispute.on}, not {dispute.status!r}"
