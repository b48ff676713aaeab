"""The example's reviews after publication: the ledger lines ``probepress review apply``
appends (``bank/status.jsonl``, ``bank/disagreements.jsonl``), in its formats and bytes.

Each declared review is checked as ``review apply`` checks it: a sign-off climbs exactly
one rung of the ladder (``generator.ladder``), signed by someone new, resolving any
disagreement recorded since the item was reviewed; it is dated after the latest volume
published before it, and names the bank version current on its date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from generator import ladder
from generator.canonical import dumps_line
from generator.demo.spec import DemoSpec, ReviewSpec
from generator.models.bank import BankItem
from generator.models.base import Record
from generator.models.review import Disagreement, StatusChange

R = TypeVar("R", StatusChange, Disagreement)


@dataclass(frozen=True)
class Ledgers:
    """The two public ledgers, oldest line first."""

    climbs: tuple[StatusChange, ...]
    disagreements: tuple[Disagreement, ...]


def ledger_bytes(records: Sequence[Record]) -> bytes:
    """A ledger's bytes, line for line as ``review apply`` appends them."""
    return "".join(dumps_line(r.model_dump(mode="json")) for r in records).encode("utf-8")


def _date_problem(spec: DemoSpec, review: ReviewSpec) -> str | None:
    published = [v.publication_date for v in spec.volumes]
    if review.day in published:
        return f"dated {review.day}, a volume's publication date: the date must follow it"
    if review.day < spec.versions[0].released:
        return f"dated {review.day}, before the bank's first version"
    return None


def ledgers(spec: DemoSpec, items: dict[str, BankItem]) -> Ledgers:
    """The ledger lines of ``spec.reviews``, checked against the items' frozen histories.

    Raises:
        ValueError: A review names a held-out or unknown item, or breaks the ladder.
    """
    climbs: dict[str, list[StatusChange]] = {}
    disputes: dict[str, list[Disagreement]] = {}
    for review in sorted(spec.reviews, key=lambda r: r.day):
        item = items.get(review.item)
        problem = _date_problem(spec, review)
        if item is None:
            problem = "not a public item of the example (held-out notes are private)"
        if item is not None and problem is None:
            history: list[ladder.Step] = [*item.validation, *climbs.get(review.item, [])]
            fields = {
                "item": review.item,
                "by": review.by,
                "on": review.day,
                # The version a review page built on the day was for: the latest released.
                "bank_version": [v.id for v in spec.versions if v.released <= review.day][-1],
                "comment": review.comment,
            }
            if review.decision == "disagree":
                status = ladder.current_status(history)
                line = Disagreement.model_validate({**fields, "status": status})
                disputes.setdefault(review.item, []).append(line)
                continue
            rung = ladder.next_rung(ladder.current_status(history)) or "validated"
            change = StatusChange.model_validate(
                {**fields, "status": rung, "resolution": review.resolution}
            )
            days = [d.on for d in disputes.get(review.item, [])]
            problem = ladder.check_climb(history, change, days)
            climbs.setdefault(review.item, []).append(change)
        if problem is not None:
            raise ValueError(f"example review of {review.item} on {review.day}: {problem}")
    return Ledgers(_in_order(climbs), _in_order(disputes))


def _in_order(lines: dict[str, list[R]]) -> tuple[R, ...]:
    """Every item's lines, by date then item, the order ``review apply`` appended them."""
    return tuple(sorted((x for xs in lines.values() for x in xs), key=lambda r: (r.on, r.item)))
