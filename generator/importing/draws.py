"""One record row as the lines of a bundle: its draw, its verdict, its panel labels.

A held-out item's response never enters a line: the draw carries its keyed commitment
and the text goes to the private store's record; no evidence quote is kept for it.
A Tier 0 item is decided by its mechanical check (``generator.tier0``), never by a label;
a Tier 1 item by the seated grader's label, mapped by ``labels.label_outcome``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator import commitments
from generator.importing.labels import LabelMap, label_outcome
from generator.importing.rows import RecordRow
from generator.models.bank import BankItem, ItemMeta
from generator.models.records import LOST_STATUSES
from generator.tier0 import run_check


class RowError(ValueError):
    """A row that cannot become bundle lines (the message says why)."""


@dataclass(frozen=True)
class Seats:
    """The jury seated for one candidate, as the importer reads labels."""

    grader: str
    panel: dict[str, str | None]
    """Panel rater key (API string or human id) -> family (None for a human)."""

    def describe(self) -> str:
        return f"grader {self.grader}; panel {', '.join(self.panel)}"


@dataclass
class Lines:
    """A bundle's lines, in memory, plus what the import reports."""

    draws: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    panel: list[dict[str, Any]] = field(default_factory=list)
    private: list[dict[str, Any]] = field(default_factory=list)
    unused_tier0_labels: int = 0
    """Grader labels on Tier 0 draws (their check decides; the labels are not used)."""


@dataclass(frozen=True)
class Bound:
    """Where a row's lines belong: the volume and the candidate's bundle."""

    volume: str
    slug: str
    key: bytes | None
    """The item's commitment key when the item is held out, else None."""


def _attempts(row: RecordRow) -> list[dict[str, Any]]:
    final: dict[str, Any] = {"status": row.status, "error_class": row.error_class}
    if row.attempts == 1:
        final["latency_ms"] = row.latency_ms
        return [final]
    # Only the total is recorded: each attempt's own time is unknown, never split.
    return [{"status": row.retried_after} for _ in range(row.attempts - 1)] + [final]


def draw_line(row: RecordRow, where: Bound) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The draw's line and, for a held-out item with a response, its private record."""
    if (row.input_tokens is None) != (row.output_tokens is None):
        raise RowError("input_tokens and output_tokens are given together or not at all")
    line: dict[str, Any] = {
        "item": row.item,
        "half": row.half,
        "draw": row.draw,
        "attempts": _attempts(row),
        "finish_reason": row.finish_reason,
        "latency_ms": row.latency_ms,
    }
    if row.input_tokens is not None:
        line["usage"] = {"input_tokens": row.input_tokens, "output_tokens": row.output_tokens}
    private = None
    if where.key is None:
        line["response"] = row.response
    elif row.response is not None:
        line["response_commitment"] = commitments.response_commitment(
            where.key, where.volume, where.slug, row.item, row.half, row.draw, row.response
        )
        private = {
            "volume": where.volume,
            "candidate": where.slug,
            "item": row.item,
            "half": row.half,
            "draw": row.draw,
            "text": row.response,
        }
    return line, private


def verdict_line(
    row: RecordRow, meta: ItemMeta, full: BankItem | None, seats: Seats, labels: LabelMap
) -> dict[str, Any]:
    # ``full`` is None for a held-out item whose text is not loaded; ``meta`` is then its
    # index entry (a held-out item's evidence quote is never kept).
    """The verdict's line: lost, the Tier 0 check's outcome, or the grader's label."""
    line: dict[str, Any] = {
        "item": row.item,
        "half": row.half,
        "draw": row.draw,
        "tier": meta.tier,
        "borderline": row.borderline,
    }
    if row.status in LOST_STATUSES:
        return {**line, "verdict": "lost"}
    if meta.tier == 0:
        if full is None or full.check is None:
            raise RowError(f"the check of Tier 0 item {row.item} is not available")
        return {**line, "verdict": "pass" if run_check(full.check, row.response or "") else "fail"}
    label = row.labels.get(seats.grader)
    if label is None:
        raise RowError(f"no label from the grader {seats.grader} (column label:{seats.grader})")
    outcome = label_outcome(label, labels)
    if outcome is None:
        raise RowError(unmapped(seats.grader, label, labels))
    line["grader"] = seats.grader
    line["verdict"] = "grader_refused" if outcome == "refused" else outcome
    evidence = row.evidence.get(seats.grader)
    if evidence is not None and isinstance(meta, BankItem):
        line["evidence"] = evidence
    return line


def panel_labels(row: RecordRow, seats: Seats, labels: LabelMap) -> dict[str, str]:
    """Each seated panel judge's vote on the row (``pass``/``fail``/``refused``).

    Raises:
        RowError: A label comes from nobody seated, or the map does not know it.
    """
    votes: dict[str, str] = {}
    for rater, label in sorted(row.labels.items()):
        if rater == seats.grader:
            continue
        if rater not in seats.panel:
            message = f"label:{rater} comes from nobody seated on this candidate's jury"
            raise RowError(f"{message} ({seats.describe()})")
        outcome = label_outcome(label, labels)
        if outcome is None:
            raise RowError(unmapped(rater, label, labels))
        votes[rater] = outcome
    return votes


def unmapped(rater: str, label: str, labels: LabelMap) -> str:
    """The message for a label the map does not know."""
    return (
        f"label:{rater} is {label!r}, which --pass-label/--fail-label/--refused-label do not "
        f"map ({labels.describe()})"
    )
