"""Contexts of a jury card's "What it gets wrong" (``templates/wrong.html``) and of its
rubric lines (``templates/rubric_lines.html``).

Both list figures of ``generator.figures.wrong`` and add texts only for public items:
the item's pass criterion or rubric line, and a short excerpt of the failing draw the
figure names. Held-out items appear by id and category (and a rubric line by id and
kind): the volume is read without the private store, the jury card's one
``read_responses`` pass never returns a held-out draw, and nothing here looks a held-out
text up.

"What it gets wrong" is on each ranked candidate's jury card, not the leaderboard: the
leaderboard links to it, so no frozen page (and no PDF document) grows with the number of
candidates by more than a line each (issue 19: the PDF worker's memory is one document's
pages).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from generator.models.bank import BankItem
from generator.models.figures import Figure
from generator.render.context import Candidate, Inputs
from generator.render.text import Clipped, clip
from generator.store.rowtypes import DrawKey
from generator.store.texts import DrawTexts

EXCERPT = 240
"""Characters of a failing response quoted (the rest is in the bundle download)."""


@dataclass(frozen=True)
class Entry:
    """One most-failed item or rubric line of a candidate."""

    fid: str
    item: str
    category: str
    heldout: bool
    line: str | None = None
    kind: str | None = None
    criterion: str | None = None
    """The pass criterion or the rubric line's text (public items only)."""
    excerpt: Clipped | None = None
    """The start of the first failing response (public items only)."""


@dataclass(frozen=True)
class Failing:
    """What one candidate fails most often."""

    candidate: Candidate
    items: tuple[Entry, ...]
    lines: tuple[Entry, ...]


@dataclass(frozen=True)
class LineRow:
    """One rubric line on the jury card, with its met-rate figure."""

    fid: str
    line: str
    kind: str
    text: str | None
    """The line's text (public items only)."""


@dataclass(frozen=True)
class RubricItem:
    """A rubric item's lines as the jury card lists them."""

    item: str
    category: str
    heldout: bool
    lines: tuple[LineRow, ...]


def _under(inputs: Inputs, prefix: str) -> list[Figure]:
    """Figures under ``prefix``, most-failed first (share, then failed draws, then id)."""

    def order(f: Figure) -> tuple[Decimal, int, str]:
        counted = f.detail.get("counted", 0)
        return (-Decimal(f.value), -int(counted) if isinstance(counted, int) else 0, f.id)

    return sorted((inputs.figures[fid] for fid in inputs.ids_under(prefix)), key=order)


def _line_text(item: BankItem | None, line: str) -> str | None:
    if item is None or item.rubric is None:
        return None
    return next((x.text for x in item.rubric.lines if x.id == line), None)


def _entry(inputs: Inputs, f: Figure, responses: dict[DrawKey, Clipped]) -> Entry:
    """The figure's item (or line) with its public texts."""
    item = str(f.detail["item"])
    line = f.detail.get("line")
    public = inputs.data.bank.public.get(item)
    excerpt = None
    example = f.detail.get("example")
    if public is not None and isinstance(example, str):
        excerpt = responses.get(DrawKey(item, example[0], int(example[1:])))
    criterion = None
    if public is not None:
        criterion = public.pass_criterion if line is None else _line_text(public, str(line))
    return Entry(
        fid=f.id,
        item=item,
        category=str(f.detail["category"]),
        heldout=bool(f.detail["heldout"]),
        line=None if line is None else str(line),
        kind=None if line is None else str(f.detail.get("line_kind", "")),
        criterion=criterion,
        excerpt=excerpt,
    )


@dataclass(frozen=True)
class Failures:
    """A ranked candidate's most-failed figures, and the draws whose responses they quote."""

    candidate: Candidate
    items: list[Figure]
    lines: list[Figure]
    quoted: set[DrawKey]
    """The first failing draw of each public item listed (none of a held-out item)."""

    def context(self, inputs: Inputs, texts: Mapping[DrawKey, DrawTexts]) -> Failing:
        """The figures with their public texts (``texts``: the quoted draws' responses)."""
        responses = {
            k: clip(t.response, EXCERPT)
            for k, t in texts.items()
            if k in self.quoted and t.response
        }
        return Failing(
            self.candidate,
            tuple(_entry(inputs, f, responses) for f in self.items),
            tuple(_entry(inputs, f, responses) for f in self.lines),
        )


def failures(inputs: Inputs, c: Candidate) -> Failures | None:
    """``c``'s most-failed items and rubric lines (None for a baseline, which is never
    ranked or compared: no page lists its failures)."""
    if not c.ref.ranked:
        return None
    items = _under(inputs, f"{c.prefix}/wrong/item/")
    lines = _under(inputs, f"{c.prefix}/wrong/line/")
    quoted = set()
    for f in (*items, *lines) if inputs.texts else ():
        example, item = f.detail.get("example"), str(f.detail["item"])
        if isinstance(example, str) and item in inputs.data.bank.public:
            quoted.add(DrawKey(item, example[0], int(example[1:])))
    return Failures(c, items, lines, quoted)


def rubric_lines_context(inputs: Inputs, c: Candidate) -> dict[str, list[RubricItem]]:
    """Rubric group id → its items' lines with the grader's met-rate figures on ``c``."""
    prefix = f"{c.prefix}/rubric/line/"
    by_item: dict[str, list[Figure]] = defaultdict(list)
    for fid in inputs.ids_under(prefix):
        by_item[str(inputs.figures[fid].detail["item"])].append(inputs.figures[fid])
    bank = inputs.data.bank
    groups: dict[str, list[RubricItem]] = defaultdict(list)
    for item, found in sorted(by_item.items()):
        public = bank.public.get(item)
        order = [x.id for x in public.rubric.lines] if public and public.rubric else []
        lines = [(str(f.detail["line"]), f) for f in found]
        # The rubric's order for a public item; a held-out item's lines by id.
        lines.sort(key=lambda lf: (order.index(lf[0]) if lf[0] in order else len(order), lf[0]))
        rows = tuple(
            LineRow(f.id, line, str(f.detail["line_kind"]), _line_text(public, line))
            for line, f in lines
        )
        first = found[0].detail
        groups[str(first.get("group", ""))].append(
            RubricItem(item, str(first["category"]), bool(first["heldout"]), rows)
        )
    return dict(sorted(groups.items()))
