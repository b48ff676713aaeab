"""Coverage beside every rate: what happened to each candidate's scheduled draws.

A rate only counts the draws that were decided, so a candidate that answered half its
schedule can show the same rate as one that answered all of it. Every candidate therefore
gets three figures that travel with its rates (DESIGN §13):

- ``coverage/answered``: the share of the *scheduled* draws (every item of the bank
  version × half × draw of the protocol) whose last attempt returned an answer (status
  ``ok``). The denominator is the schedule, never the records, so a draw missing from the
  records lowers coverage instead of vanishing (the audit's removed-draw property).
- ``coverage/retried``: scheduled draws that needed more than one attempt.
- ``coverage/refused``: scheduled draws refused — the last attempt ended in
  ``content_filter`` (the provider or the model declined to answer). A refusal is its own
  category: neither an answer, nor a draw lost to the provider or transport
  (``provider_error``, ``timeout``), nor an empty answer.

A refusal written as text inside an answer is graded like any other answer: telling it
apart would need the response text, which held-out draws keep in the private store, and
every public figure recomputes from public files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from generator.figures.builder import RATE_PLACES, rate_display
from generator.figures.context import FigureContext
from generator.models.volume import Protocol
from generator.store.rowtypes import BundleData

ANSWERED = "ok"
REFUSED = "content_filter"
EMPTY = "empty"
LOST = ("provider_error", "timeout")


@dataclass(frozen=True)
class Coverage:
    """What became of one candidate's scheduled draws (every scheduled draw is in
    exactly one of answered, refused, empty, lost and unrecorded)."""

    scheduled: int
    answered: int
    refused: int
    empty: int
    lost: int
    unrecorded: int
    """Scheduled draws with no record (the preflight gate refuses a volume with any)."""
    retried: int
    """Scheduled draws that needed more than one attempt."""


def answered_share(c: Coverage) -> float:
    """Share of the scheduled draws that produced an answer (0 when nothing is scheduled)."""
    return c.answered / c.scheduled if c.scheduled else 0.0


def coverage_of(bundle: BundleData, items: Collection[str], protocol: Protocol) -> Coverage:
    """The coverage of ``bundle`` on the schedule ``items`` × ``protocol``'s halves × draws.

    Records outside the schedule (unknown items, off-schedule draws) and repeats of a
    draw count toward nothing here; the preflight gate names them.
    """
    halves = set(protocol.halves)
    seen: set[tuple[str, str, int]] = set()
    last: Counter[str] = Counter()
    retried = 0
    for row in bundle.draws:
        key = row.key
        if key.item not in items or key.half not in halves or key in seen:
            continue
        if not 1 <= key.draw <= protocol.draws_per_half:
            continue
        seen.add(key)
        last[row.statuses[-1]] += 1
        retried += len(row.statuses) > 1
    scheduled = len(items) * len(protocol.halves) * protocol.draws_per_half
    return Coverage(
        scheduled=scheduled,
        answered=last[ANSWERED],
        refused=last[REFUSED],
        empty=last[EMPTY],
        lost=sum(last[s] for s in LOST),
        unrecorded=scheduled - len(seen),
        retried=retried,
    )


def coverage_figures(ctx: FigureContext, prefix: str, name: str, bundle: BundleData) -> None:
    """Register ``<prefix>/coverage/{answered,retried,refused}`` for one candidate."""
    items = ctx.tally.index
    c = coverage_of(bundle, items, ctx.data.volume.protocol)
    src = ctx.sources_for(bundle, extra=("draws.jsonl",))
    ctx.reg.add(
        f"{prefix}/coverage/answered",
        f"Share of the scheduled draws of {name} that produced an answer",
        "share",
        answered_share(c),
        precision=RATE_PLACES,
        display=rate_display(answered_share(c)),
        method="draws whose last attempt returned an answer (status ok), over the scheduled "
        "draws (every item of the bank version × half × draw of the protocol)",
        sources=src,
        detail={
            "scheduled": c.scheduled,
            "answered": c.answered,
            "refused": c.refused,
            "empty": c.empty,
            "lost": c.lost,
            "unrecorded": c.unrecorded,
        },
    )
    ctx.reg.count(
        f"{prefix}/coverage/retried",
        f"Scheduled draws of {name} that needed a retry (more than one attempt)",
        c.retried,
        src,
        method="count of scheduled draws with more than one attempt",
        detail={"scheduled": c.scheduled},
    )
    ctx.reg.count(
        f"{prefix}/coverage/refused",
        f"Scheduled draws of {name} refused (the last attempt ended in content_filter: "
        "the provider or the model declined to answer)",
        c.refused,
        src,
        method="count of scheduled draws whose last attempt is content_filter",
        detail={"scheduled": c.scheduled},
    )
