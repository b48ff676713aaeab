"""Contexts of "What models get wrong" (the leaderboard's ``templates/wrong.html``) and
of the jury card's rubric lines (``templates/rubric_lines.html``).

Both list figures of ``generator.figures.wrong`` and add texts only for public items:
the item's pass criterion or rubric line, and a short excerpt of the failing draw the
figure names. Held-out items appear by id and category (and a rubric line by id and
kind): the volume is read without the private store, ``read_responses`` never returns a
held-out draw, and nothing here looks a held-out text up.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from generator.models.bank import BankItem
from generator.models.figures import Figure
from generator.render.context import Candidate, Inputs
from generator.render.text import Clipped, clip
from generator.store.rowtypes import DrawKey
from generator.store.texts import read_responses

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


def _failing(inputs: Inputs, c: Candidate) -> Failing:
    items = _under(inputs, f"{c.prefix}/wrong/item/")
    lines = _under(inputs, f"{c.prefix}/wrong/line/")
    keys = set()
    for f in (*items, *lines) if inputs.texts else ():
        example, item = f.detail.get("example"), str(f.detail["item"])
        if isinstance(example, str) and item in inputs.data.bank.public:
            keys.add(DrawKey(item, example[0], int(example[1:])))
    texts = read_responses(inputs.data.layout, c.bundle, inputs.data.bank, keys) if keys else {}
    responses = {k: clip(t.response, EXCERPT) for k, t in texts.items() if t.response}
    return Failing(
        c,
        tuple(_entry(inputs, f, responses) for f in items),
        tuple(_entry(inputs, f, responses) for f in lines),
    )


def wrong_context(inputs: Inputs, candidates: list[Candidate]) -> list[Failing]:
    """Each candidate's most-failed items and rubric lines, in the leaderboard's order."""
    return [_failing(inputs, c) for c in candidates]


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
