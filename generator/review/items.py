"""Which items a review page shows, in which batches, and what it shows of each.

An item is up for review while it is still climbing the ladder: its current status (its
frozen history in the bank JSONL, then its climbs in the status ledger
``bank/status.jsonl``, as ``generator.store.bank`` reads them) is ``draft`` or
``reviewed``, and it is active in the current bank version. Items are batched in id
order, so the same bank and ledgers always give the same batches.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Final

from generator.models.bank import BankItem, ItemMeta, Status
from generator.models.review import ReviewNote
from generator.store.bank import Bank, load_bank, load_private_items, require
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.paths import Layout

REVIEWABLE: Final[tuple[Status, ...]] = ("draft", "reviewed")
"""Statuses an item can climb from."""
MAX_BATCH: Final = 500
"""Most items on one page (a page a reviewer can finish, and a bounded file)."""


@dataclass(frozen=True)
class Step:
    """One entry of an item's history as the page shows it: a rung, or a disagreement."""

    status: Status
    """The rung reached (for a disagreement: the item's status then, unchanged)."""
    by: str
    on: dt.date
    ledger: bool = False
    """True for an entry recorded in a ledger after the item's bank file was published."""
    disagreement: bool = False
    """True for a recorded disagreement (no climb)."""
    external: str | None = None
    """The source publication that validated the item outside the project."""
    comment: str = ""
    resolution: str = ""
    private_notes: bool = False
    """A held-out item's notes, kept in the private store's review notes."""


@dataclass(frozen=True)
class ReviewItem:
    """One item on a page: its text (public or held out), current status and history."""

    item: BankItem
    category: str
    """The category's display title."""
    status: Status
    history: tuple[Step, ...]
    heldout: bool
    disputed: bool = False
    """A disagreement is recorded since the item was reviewed: a sign-off to validated
    must say how it was resolved."""

    @property
    def next_status(self) -> Status:
        """The rung a sign-off climbs to."""
        return "reviewed" if self.status == "draft" else "validated"


@dataclass(frozen=True)
class Batch:
    """One page's items, with the batch id the saved review file carries."""

    id: str
    items: tuple[ReviewItem, ...]

    @property
    def heldout(self) -> int:
        """How many of its items are held out (their text makes the page private)."""
        return sum(entry.heldout for entry in self.items)


@dataclass(frozen=True)
class Plan:
    """Every page to build for one bank version."""

    bank: str
    bank_version: str
    demonstration: bool
    batches: tuple[Batch, ...]


def history(bank: Bank, item_id: str) -> tuple[Step, ...]:
    """The item's frozen history, then its ledger climbs, with its recorded disagreements
    in date order among them."""
    frozen = bank.frozen(item_id).validation
    steps = [
        Step(s.status, s.by, s.on, external=s.external, resolution=s.resolution) for s in frozen
    ]
    steps += [
        Step(
            c.status,
            c.by,
            c.on,
            ledger=True,
            comment=c.comment,
            resolution=c.resolution,
            private_notes=c.notes_private,
        )
        for c in bank.climbs(item_id)
    ]
    steps += [
        Step(
            d.status,
            d.by,
            d.on,
            ledger=True,
            disagreement=True,
            comment=d.comment,
            private_notes=d.notes_private,
        )
        for d in bank.disputes.get(item_id, [])
    ]
    return tuple(sorted(steps, key=lambda step: step.on))  # stable: rungs keep their order


Notes = dict[tuple[str, str, str, dt.date], ReviewNote]
"""Held-out items' review notes by (item, decision, reviewer, date)."""


def private_notes(layout: Layout, bounds: Bounds, problems: Problems) -> Notes:
    """The private store's review notes (``review_notes.jsonl``; empty when absent)."""
    path = layout.private_review_notes
    if not path.exists() and not path.is_symlink():
        return {}
    return {
        (n.item, n.decision, n.by, n.on): n
        for _line, n in iter_jsonl(path, ReviewNote, str(path), problems, bounds)
    }


def with_notes(item_id: str, steps: tuple[Step, ...], notes: Notes) -> tuple[Step, ...]:
    """A held-out item's history with the comments and resolutions its public ledger lines
    leave to the private store (the page holding them is private already)."""
    out = []
    for step in steps:
        decision = "disagree" if step.disagreement else "sign-off"
        note = notes.get((item_id, decision, step.by, step.on)) if step.private_notes else None
        out.append(
            step
            if note is None
            else replace(
                step, comment=note.comment, resolution=note.resolution, private_notes=False
            )
        )
    return tuple(out)


def disputed(entries: tuple[Step, ...]) -> bool:
    """Whether a disagreement is recorded on or after the item's ``reviewed`` rung (the
    ladder then wants the ``validated`` sign-off to carry a resolution)."""
    rungs = [e for e in entries if not e.disagreement and e.status == "reviewed"]
    return bool(rungs) and any(e.disagreement and e.on >= rungs[0].on for e in entries)


def batch_ids(version: str, status: Status | None, count: int) -> list[str]:
    """``v1.2-01``, ``v1.2-02`` … (``v1.2-draft-01`` … when only one status is asked for)."""
    stem = version if status is None else f"{version}-{status}"
    width = max(2, len(str(count)))
    return [f"{stem}-{n:0{width}d}" for n in range(1, count + 1)]


def plan(layout: Layout, bounds: Bounds, status: Status | None, batch_size: int) -> Plan:
    """The pages to build: every active item of the current bank version whose current
    status is ``status`` (default: ``draft`` or ``reviewed``), ``batch_size`` a page.

    Raises:
        InputError: The bank or the ledger does not read, or a held-out item is up for
            review and the private store does not hold its text.
    """
    problems = Problems()
    bank = load_bank(layout, bounds, problems, private=False)
    require(problems, "the bank")
    assert bank is not None  # require raised otherwise
    version = bank.manifest.version_ids()[-1]
    wanted = REVIEWABLE if status is None else (status,)
    chosen = [meta for meta in bank.active_items(version) if meta.status in wanted]
    notes: Notes = {}
    if any(bank.is_heldout(meta.id) for meta in chosen):
        load_private_items(layout, bank, bounds, problems)
        notes = private_notes(layout, bounds, problems)
        require(problems, "the held-out items to review from the private store")
    entries = [_entry(bank, meta, notes) for meta in chosen]
    groups = [entries[n : n + batch_size] for n in range(0, len(entries), batch_size)]
    ids = batch_ids(version, status, len(groups))
    return Plan(
        bank=bank.manifest.name,
        bank_version=version,
        demonstration=bank.manifest.demonstration,
        batches=tuple(Batch(i, tuple(g)) for i, g in zip(ids, groups, strict=True)),
    )


def _entry(bank: Bank, meta: ItemMeta, notes: Notes) -> ReviewItem:
    item = bank.full_item(meta.id)
    assert item is not None  # public, or held out and loaded (plan requires it)
    titles = {c.id: c.title for c in bank.manifest.categories}
    steps = with_notes(meta.id, history(bank, meta.id), notes)
    return ReviewItem(
        item=item,
        category=titles.get(meta.category, meta.category),
        status=meta.status,
        history=steps,
        heldout=bank.is_heldout(meta.id),
        disputed=meta.status == "reviewed" and disputed(steps),
    )
