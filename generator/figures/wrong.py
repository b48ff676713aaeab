"""What each candidate gets wrong: its most-failed items and rubric lines, and the
grader's met-rate of every rubric line (issue 15).

Per candidate:

- ``<p>/rubric/line/<item>/<line>/met``: the share of the candidate's graded draws of a
  rubric item on which the grader found the line met (the jury card's rubric table);
- ``<p>/wrong/item/<item>``: the share of an item's decided draws that failed, for the
  ``TOP`` pass/fail items the candidate fails most often (ties: more failed draws, then
  item id), decided exactly as the failure rates decide them (``generator.figures.tally``);
- ``<p>/wrong/line/<item>/<line>``: the share of a rubric item's graded draws that failed
  a line (a ``must_include`` or ``should_include`` line not met, a ``must_not_include``
  line met), for the ``TOP`` lines failed most often.

Each share has a Wilson interval over the draws. Only validated items count, as in the
rates. A figure names items and lines by id only (labels and details never carry an
item's text); for a public item its first failing draw, in draw order, is named in
``detail["example"]`` so the page can quote that response. Held-out items are listed by
id and category, and their draws are never named: their responses are never published.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from generator.figures.builder import RATE_PLACES, rate_display, rate_interval
from generator.figures.calibration import HUMAN_REFERENCE, STATUS_KEY
from generator.figures.context import FigureContext
from generator.models.figures import Param, Source
from generator.models.scoring import RubricGroup
from generator.models.volume import CandidateRef
from generator.rubric import rubric_group_of
from generator.stats.intervals import Interval, wilson_intervals
from generator.store.rowtypes import BundleData, DrawKey

TOP = 10
"""Items, and rubric lines, listed per candidate."""
WILSON = "Wilson score interval over the draws"


@dataclass
class Count:
    """Draws of one item (or one rubric line of it) for one candidate."""

    failed: int = 0
    draws: int = 0
    first: DrawKey | None = None
    """The first failing draw, in draw order."""

    def add(self, key: DrawKey, failed: bool) -> None:
        """Count one draw (draws come in draw order)."""
        self.draws += 1
        if failed:
            self.failed += 1
            if self.first is None:
                self.first = key


@dataclass
class LineCount(Count):
    """A rubric line's draws: ``failed`` counts failures, ``met`` the grader's yes."""

    kind: str = ""
    met: int = 0


@dataclass
class Wrong:
    """One candidate's counts: pass/fail items, and rubric lines by (item, line)."""

    items: dict[str, Count] = field(default_factory=dict)
    lines: dict[tuple[str, str], LineCount] = field(default_factory=dict)


def count_wrong(bundle: BundleData, ctx: FigureContext, groups: Mapping[str, RubricGroup]) -> Wrong:
    """Every validated item's failed and decided draws, and every graded rubric line's."""
    out = Wrong()
    validated = {m.id for m in ctx.tally.items if m.status == "validated"}
    decide = ctx.tally.deciders[bundle.slug]  # the rates' rule, made once per bundle
    for v in sorted(bundle.verdicts, key=lambda row: row.key):
        item = v.key.item
        if item not in validated:
            continue
        if item in groups:
            for mark in v.rubric.lines if v.rubric is not None else ():
                line = out.lines.setdefault((item, mark.line), LineCount(kind=mark.kind))
                failed = mark.met if mark.kind == "must_not_include" else not mark.met
                line.add(v.key, failed)
                line.met += mark.met
            continue
        outcome = decide.outcome(v)
        if outcome is not None:
            out.items.setdefault(item, Count()).add(v.key, outcome == "fail")
    return out


def _most(counts: Mapping[str, Count] | Mapping[tuple[str, str], LineCount]) -> list[object]:
    """Keys of the ``TOP`` most-failed entries (share, then failed draws, then key)."""
    failing = [(k, c) for k, c in counts.items() if c.failed]
    failing.sort(key=lambda kc: (-kc[1].failed / kc[1].draws, -kc[1].failed, kc[0]))
    return [k for k, _ in failing[:TOP]]


class WrongFigures:
    """The figures of this module for one volume."""

    def __init__(self, ctx: FigureContext, judge_status: str) -> None:
        self.ctx = ctx
        validated = [m for m in ctx.tally.items if m.status == "validated"]
        self.groups = rubric_group_of(ctx.data.volume, validated)
        self.meta = {m.id: m for m in validated}
        self.status = judge_status
        self.pending: list[_Share] = []

    def register(self) -> None:
        for ref in self.ctx.data.volume.candidates:
            self._candidate(ref)
        # Every share's interval in one batch (bit for bit one call each), then each
        # figure in the order its candidate asked for it.
        counts = [(s.counted, s.found.draws) for s in self.pending]
        for share, iv in zip(self.pending, wilson_intervals(counts, self.ctx.level), strict=True):
            self._add(share, iv)

    def _candidate(self, ref: CandidateRef) -> None:
        bundle = self.ctx.data.bundles[ref.slug]
        found = count_wrong(bundle, self.ctx, self.groups)
        src = self.ctx.sources_for(bundle)
        p = f"{self.ctx.vid}/{ref.slug}"
        name = ref.display_name
        for (item, line), c in sorted(found.lines.items()):
            label = (
                f"Share of {name}'s graded draws of rubric item {item} on which the grader "
                f"found line {line} ({c.kind.replace('_', ' ')}) met"
            )
            self._share(f"{p}/rubric/line/{item}/{line}/met", label, c.met, c, src, (item, line))
        if not ref.ranked:
            return  # a baseline's jury card shows its line met-rates; no page shows its failures
        for key in _most(found.items):
            assert isinstance(key, str)
            label = f"Share of {name}'s decided draws of item {key} that failed"
            judged = self.meta[key].tier == 1
            fid = f"{p}/wrong/item/{key}"
            self._share(fid, label, None, found.items[key], src, (key, None), judged)
        for key in _most(found.lines):
            assert isinstance(key, tuple)
            item, line = key
            label = f"Share of {name}'s graded draws of rubric item {item} that failed line {line}"
            fid = f"{p}/wrong/line/{item}/{line}"
            self._share(fid, label, None, found.lines[key], src, (item, line))

    def _share(
        self,
        fid: str,
        label: str,
        met: int | None,
        c: Count,
        src: list[Source],
        where: tuple[str, str | None],
        judged: bool = True,
    ) -> None:
        """Ask for ``met`` (or, when None, the failed draws) of ``c``'s draws as a share;
        ``where``: the item and (for a rubric line) the line."""
        counted = c.failed if met is None else met
        self.pending.append(_Share(fid, label, met, counted, c, src, where, judged))

    def _add(self, share: _Share, iv: Interval) -> None:
        """Register ``share`` with its Wilson interval ``iv``."""
        (item, line), c, k = share.where, share.found, share.counted
        meta = self.meta[item]
        heldout = self.ctx.data.bank.is_heldout(item)
        detail: dict[str, Param | list[str]] = {
            "item": item,
            "category": meta.category,
            "heldout": heldout,
            "counted": k,
            "draws": c.draws,
        }
        if line is not None:
            detail["line"] = line
            detail["line_kind"] = c.kind if isinstance(c, LineCount) else ""
            if isinstance(c, LineCount) and self.groups.get(item) is not None:
                detail["group"] = self.groups[item].id
        if share.met is None and not heldout and c.first is not None:
            detail["example"] = f"{c.first.half}{c.first.draw}"
        if share.judged and self.status and self.status != HUMAN_REFERENCE:
            detail[STATUS_KEY] = self.status
        self.ctx.reg.add(
            share.fid,
            share.label,
            "share",
            iv.estimate,
            precision=RATE_PLACES,
            display=rate_display(iv.estimate),
            method=f"{k} of {c.draws} draws; {WILSON}",
            sources=share.src,
            intervals={"ci": rate_interval(iv)},
            detail=detail,
        )


class _Share(NamedTuple):
    """A share figure asked for, registered once every share's interval is computed."""

    fid: str
    label: str
    met: int | None
    counted: int
    found: Count
    """The draws of the item or rubric line the share is of."""
    src: list[Source]
    where: tuple[str, str | None]
    judged: bool


def wrong_figures(ctx: FigureContext, judge_status: str) -> None:
    """Register this module's figures for ``ctx``'s volume."""
    WrongFigures(ctx, judge_status).register()
