"""Geometry of the leaderboard's forest plot (drawn by ``templates/forest.svg``).

Hand-built rather than matplotlib: a few dozen shapes whose coordinates depend only on
registered figure values, so the SVG is small, byte-stable and needs no metadata
scrubbing. Every value drawn is a registered figure; the axis is fixed at 0–100 %.
Coordinates are printed with one decimal, so the bytes never depend on float repr.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from generator.models.figures import Figure

LABEL_WIDTH = 230
PANEL_WIDTH = 300
PANEL_GAP = 40
ROW_HEIGHT = 24
TOP = 34
BOTTOM = 30
LABEL_CHARS = 32
MAX_ROWS = 20
COVERAGE_WIDTH = 80
"""Width of the column that prints each candidate's answered share (when given)."""
TICKS = (("0", "0%"), ("0.25", "25%"), ("0.5", "50%"), ("0.75", "75%"), ("1", "100%"))


def _fmt(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.1")))


@dataclass(frozen=True)
class Bar:
    """One rate in one panel: the point and both intervals, in SVG units (text)."""

    x: str
    narrow_lo: str
    narrow_w: str
    wide_lo: str | None
    wide_hi: str | None


@dataclass(frozen=True)
class Row:
    """One candidate's row."""

    y: str
    mid: str
    bar_y: str
    text_y: str
    band: bool
    label: str
    anchor: bool
    core: Bar | None
    full: Bar | None
    answered: str | None = None
    """The candidate's answered share of its scheduled draws (registered display text)."""


@dataclass(frozen=True)
class Panel:
    """One panel's frame: title, left edge and ticks."""

    title: str
    x: str
    ticks: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ForestPlot:
    """Everything ``forest.svg`` draws."""

    index: int
    """1-based number of this plot among the parts of one forest plot."""
    width: int
    height: int
    row_height: int
    rows: tuple[Row, ...]
    panels: tuple[Panel, ...]
    axis_top: str
    axis_bottom: str
    tick_label_y: str
    coverage_x: str | None = None
    """Right edge of the answered-share column (None: the plot has none)."""


def _x(panel_left: int, value: str) -> Decimal:
    share = min(max(Decimal(value), Decimal(0)), Decimal(1))
    return Decimal(panel_left) + share * PANEL_WIDTH


def _bar(panel_left: int, figure: Figure | None) -> Bar | None:
    if figure is None or "narrow" not in figure.intervals:
        return None
    narrow = figure.intervals["narrow"]
    wide = figure.intervals.get("wide")
    lo, hi = _x(panel_left, narrow.lo), _x(panel_left, narrow.hi)
    return Bar(
        x=_fmt(_x(panel_left, figure.value)),
        narrow_lo=_fmt(lo),
        narrow_w=_fmt(max(hi - lo, Decimal("1"))),
        wide_lo=_fmt(_x(panel_left, wide.lo)) if wide else None,
        wide_hi=_fmt(_x(panel_left, wide.hi)) if wide else None,
    )


def _label(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


Entry = tuple[str, bool, int | None, Figure | None, Figure | None]


def forest_plots(
    candidates: list[Entry], per_part: int = MAX_ROWS, answered: list[str] | None = None
) -> list[ForestPlot]:
    """The plot in parts of at most ``per_part`` rows (an SVG never splits across PDF
    pages, so a long leaderboard gets several plots), in balanced consecutive chunks;
    ``answered``: each candidate's answered share, printed in a column of its own."""
    parts = max(1, math.ceil(len(candidates) / per_part))
    size = max(1, math.ceil(len(candidates) / parts))
    return [
        forest_plot(
            candidates[start : start + size],
            index,
            None if answered is None else answered[start : start + size],
        )
        for index, start in enumerate(range(0, max(len(candidates), 1), size), start=1)
    ]


def forest_plot(
    candidates: list[Entry], index: int = 1, answered: list[str] | None = None
) -> ForestPlot:
    """Lay out one plot.

    Args:
        candidates: In display order, ``(display name, is anchor, tie group,
            core-rate figure, full-bank-rate figure)``.
        index: Number of this part of the plot.
        answered: Each candidate's answered share of its scheduled draws (display text),
            printed right of the panels; None for no such column.
    """
    core_left = LABEL_WIDTH
    full_left = LABEL_WIDTH + PANEL_WIDTH + PANEL_GAP
    rows = []
    for number, (name, anchor, group, core, full) in enumerate(candidates):
        y = TOP + number * ROW_HEIGHT
        rows.append(
            Row(
                y=str(y),
                mid=str(y + ROW_HEIGHT // 2),
                bar_y=str(Decimal(y + ROW_HEIGHT // 2) - Decimal("3.5")),
                text_y=str(y + ROW_HEIGHT // 2 + 4),
                band=group is not None and group % 2 == 0,
                label=_label(name),
                anchor=anchor,
                core=_bar(core_left, core),
                full=_bar(full_left, full),
                answered=None if answered is None else answered[number],
            )
        )
    bottom = TOP + len(candidates) * ROW_HEIGHT
    panels = tuple(
        Panel(
            title=title,
            x=str(left),
            ticks=tuple((_fmt(_x(left, value)), text) for value, text in TICKS),
        )
        for title, left in (("Core rate", core_left), ("Full-bank rate", full_left))
    )
    width = full_left + PANEL_WIDTH + 20
    return ForestPlot(
        index=index,
        width=width + (COVERAGE_WIDTH if answered is not None else 0),
        height=bottom + BOTTOM,
        row_height=ROW_HEIGHT,
        rows=tuple(rows),
        panels=panels,
        axis_top=str(TOP - 4),
        axis_bottom=str(bottom),
        tick_label_y=str(bottom + 16),
        coverage_x=None if answered is None else str(width + COVERAGE_WIDTH - 4),
    )
