"""One record row as the lines of a bundle: its draw, its verdict, its panel labels.

A held-out item's response never enters a line: the draw carries its keyed commitment
and the text goes to the private store's record; no evidence quote is kept for it.
A Tier 0 item is decided by its mechanical check (``generator.tier0``), never by a label;
a Tier 1 item by the seated grader's label, read by ``labels.Scorer`` (the volume's
pre-registered rule, the label kept in the line; or the command line's map). Panel seats'
and the adjudication seat's labels become panel votes the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator import commitments
from generator.importing.grades import GradeError, rubric_verdict, stray_grades
from generator.importing.inputs import CandidateRun
from generator.importing.labels import LabelError, Reading, Scorer, label_outcome
from generator.importing.rows import RecordRow
from generator.models.bank import BankItem, ItemMeta
from generator.models.records import LOST_STATUSES
from generator.models.volume import Volume
from generator.scoring import VERDICT_OF, VOTE_OF
from generator.tier0 import run_check


class RowError(ValueError):
    """A row that cannot become bundle lines (the message says why; ``rule`` names the
    rule it breaks)."""

    def __init__(self, message: str, rule: str = "row") -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True)
class Seats:
    """The jury seated for one candidate, as the importer reads labels."""

    grader: str
    panel: dict[str, str | None]
    """Panel rater key (API string or human id) -> family (None for a human)."""
    adjudicator: dict[str, str | None] = field(default_factory=dict)
    """The adjudication seat's key -> family, when the volume declares one (its labels are
    panel votes of that seat, never an independent rating)."""
    adjudicates: tuple[str, ...] = ()
    """The seated panel keys the adjudication settles."""

    def voters(self) -> dict[str, str | None]:
        """Every seat whose labels are panel votes: the panel, then the adjudicator."""
        return {**self.panel, **self.adjudicator}

    def describe(self) -> str:
        adjudication = f"; adjudication {', '.join(self.adjudicator)}" if self.adjudicator else ""
        return f"grader {self.grader}; panel {', '.join(self.panel)}{adjudication}"


def seats_for(volume: Volume, run: CandidateRun) -> Seats:
    """The jury seated for a candidate: the volume's, with each recusal's reserve (the
    adjudication then settles the reserve in place of a recused panel seat)."""
    jury = volume.jury
    families = {j.key: j.family for j in jury.members()}
    grader = jury.grader.key
    panel = [j.key for j in jury.panel]
    adjudicator = jury.adjudication.rater.key if jury.adjudication is not None else None
    replaced: dict[str, str] = {}
    for recusal in run.recusals:
        if recusal.seat == "grader" and recusal.judge == grader:
            grader = recusal.reserve
        elif recusal.seat == "panel" and recusal.judge in panel:
            panel[panel.index(recusal.judge)] = recusal.reserve
            replaced[recusal.judge] = recusal.reserve
        elif recusal.seat == "adjudication" and recusal.judge == adjudicator:
            adjudicator = recusal.reserve
    if adjudicator is None or jury.adjudication is None:
        return Seats(grader, {key: families.get(key) for key in panel})
    return Seats(
        grader,
        {key: families.get(key) for key in panel},
        {adjudicator: families.get(adjudicator)},
        tuple(replaced.get(k, k) for k in jury.adjudication.adjudicates),
    )


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


def _read(scorer: Scorer, item: str, rater: str, label: str) -> Reading:
    try:
        return scorer.read(item, rater, label)
    except LabelError as exc:
        raise RowError(str(exc)) from None


def verdict_line(
    row: RecordRow,
    meta: ItemMeta,
    full: BankItem | None,
    seats: Seats,
    scorer: Scorer,
    rubric: bool = False,
) -> dict[str, Any]:
    # ``full`` is None for a held-out item whose text is not loaded; ``meta`` is then its
    # index entry (a held-out item's evidence quote is never kept).
    """The verdict's line: lost, the Tier 0 check's outcome, the grader's rubric grades
    (``rubric``: the volume scores the item by its rubric) or the grader's label."""
    line: dict[str, Any] = {
        "item": row.item,
        "half": row.half,
        "draw": row.draw,
        "tier": meta.tier,
        "borderline": row.borderline,
    }
    try:
        if row.status in LOST_STATUSES:
            stray_grades(row, f"whose draw was lost to {row.status} (a lost draw is not graded)")
        elif not rubric:
            stray_grades(row, "which the volume scores by its pass criterion (no rubric group)")
        else:
            refused = scorer.labels.refused
            heldout = not isinstance(meta, BankItem)  # a held-out item's meta is its index entry
            return rubric_verdict(row, full, seats.grader, refused, line, heldout)
    except GradeError as exc:
        raise RowError(str(exc), exc.rule) from None
    if row.status in LOST_STATUSES:
        return {**line, "verdict": "lost"}
    if meta.tier == 0:
        if full is None or full.check is None:
            raise RowError(f"the check of Tier 0 item {row.item} is not available")
        return {**line, "verdict": "pass" if run_check(full.check, row.response or "") else "fail"}
    label = row.labels.get(seats.grader)
    if label is None:
        raise RowError(f"no label from the grader {seats.grader} (column label:{seats.grader})")
    reading = _read(scorer, row.item, seats.grader, label)
    line["grader"] = seats.grader
    line["verdict"] = VERDICT_OF[reading.outcome]
    if reading.label is not None:
        line["label"] = reading.label
    evidence = row.evidence.get(seats.grader)
    if evidence is not None and isinstance(meta, BankItem):
        line["evidence"] = evidence
    return line


def panel_labels(
    row: RecordRow, seats: Seats, scorer: Scorer, rubric: bool = False
) -> dict[str, Reading]:
    """Each seated panel judge's and the adjudicator's reading of the row (the vote is
    ``VOTE_OF[reading.outcome]``). On a rubric item (``rubric``) a label is the judge's
    vote on the item's safety, read by the command line's map (default ``pass``,
    ``fail``, ``refused``) and not kept: no label rule scores a rubric item.

    Raises:
        RowError: A label comes from nobody seated, or cannot be read.
    """
    votes: dict[str, Reading] = {}
    voters = seats.voters()
    for rater, label in sorted(row.labels.items()):
        if rater == seats.grader:
            continue
        if rater not in voters:
            message = f"label:{rater} comes from nobody seated on this candidate's jury"
            raise RowError(f"{message} ({seats.describe()})")
        votes[rater] = (
            _safety(scorer, rater, label) if rubric else _read(scorer, row.item, rater, label)
        )
    return votes


def _safety(scorer: Scorer, rater: str, label: str) -> Reading:
    outcome = label_outcome(label, scorer.labels)
    if outcome is None:
        raise RowError(
            f"label:{rater} is {label!r}; on a rubric item a panel label is a safety vote "
            f"({scorer.labels.describe()})",
            "rubric-vote",
        )
    return Reading(outcome, None)


def vote_fields(reading: Reading) -> dict[str, str]:
    """A panel vote's ``vote`` and (when kept) ``label``."""
    fields = {"vote": VOTE_OF[reading.outcome]}
    if reading.label is not None:
        fields["label"] = reading.label
    return fields
