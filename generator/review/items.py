"""Which items a review page shows, in which batches, and what it shows of each.

An item is up for review while it is still climbing the ladder: its current status (its
frozen history in the bank JSONL, then its lines in the status ledger
``bank/status.jsonl``) is ``draft`` or ``reviewed``, and it is active in the current bank
version (retired items are not reviewed). Items are batched in id order, so the same bank
and ledger always give the same batches.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from generator.models.bank import BankItem, ItemMeta, Status
from generator.models.review import StatusChange
from generator.store.bank import Bank, load_bank, load_private_items, require
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.paths import Layout

REVIEWABLE: Final[tuple[Status, ...]] = ("draft", "reviewed")
"""Statuses an item can climb from."""
MAX_BATCH: Final = 500
"""Most items on one page (a page a reviewer can finish, and a bounded file)."""
LEDGER: Final = "status.jsonl"
"""The status ledger, in ``bank/``."""


@dataclass(frozen=True)
class Step:
    """One rung of an item's history as the page shows it."""

    status: Status
    by: str
    on: dt.date
    ledger: bool = False
    """True for a climb recorded in the ledger after publication."""
    comment: str = ""
    resolution: str = ""


@dataclass(frozen=True)
class ReviewItem:
    """One item on a page: its text (public or held out), current status and history."""

    item: BankItem
    category: str
    """The category's display title."""
    status: Status
    history: tuple[Step, ...]
    heldout: bool

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


def ledger_lines(
    layout: Layout, bounds: Bounds, problems: Problems
) -> dict[str, list[StatusChange]]:
    """The status ledger's lines per item, oldest first (empty when there is no ledger)."""
    path = layout.bank_dir / LEDGER
    found: dict[str, list[StatusChange]] = {}
    if not path.exists() and not path.is_symlink():
        return found
    for _line, change in iter_jsonl(path, StatusChange, layout.rel(path), problems, bounds):
        found.setdefault(change.item, []).append(change)
    return found


def history(meta: ItemMeta, changes: Iterable[StatusChange]) -> tuple[Step, ...]:
    """``meta``'s frozen history followed by its ledger climbs."""
    frozen = [Step(step.status, step.by, step.on) for step in meta.validation]
    later = [
        Step(c.status, c.by, c.on, ledger=True, comment=c.comment, resolution=c.resolution)
        for c in changes
    ]
    return (*frozen, *later)


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
    changes = ledger_lines(layout, bounds, problems)
    require(problems, "the bank")
    assert bank is not None  # require raised otherwise
    version = bank.manifest.version_ids()[-1]
    wanted = REVIEWABLE if status is None else (status,)
    chosen = [
        (meta, steps)
        for meta in bank.active_items(version)
        if (steps := history(meta, changes.get(meta.id, ())))[-1].status in wanted
    ]
    if any(bank.is_heldout(meta.id) for meta, _ in chosen):
        load_private_items(layout, bank, bounds, problems)
        require(problems, "the held-out items to review from the private store")
    entries = [_entry(bank, meta, steps) for meta, steps in chosen]
    groups = [entries[n : n + batch_size] for n in range(0, len(entries), batch_size)]
    ids = batch_ids(version, status, len(groups))
    return Plan(
        bank=bank.manifest.name,
        bank_version=version,
        demonstration=bank.manifest.demonstration,
        batches=tuple(Batch(i, tuple(g)) for i, g in zip(ids, groups, strict=True)),
    )


def _entry(bank: Bank, meta: ItemMeta, steps: Sequence[Step]) -> ReviewItem:
    item = bank.full_item(meta.id)
    assert item is not None  # public, or held out and loaded (plan requires it)
    titles = {c.id: c.title for c in bank.manifest.categories}
    return ReviewItem(
        item=item,
        category=titles.get(meta.category, meta.category),
        status=steps[-1].status,
        history=tuple(steps),
        heldout=bank.is_heldout(meta.id),
    )
