"""Geometry of the forest plot (drawn by ``templates/forest.svg``).

Hand-built rather than matplotlib: a few dozen shapes whose coordinates depend only on
registered figure values, so the SVG is small, byte-stable and needs no metadata
scrubbing. Every value drawn is a registered figure. Coordinates are printed with one
decimal, so the bytes never depend on float repr.

Legible on a phone: the two panels (core rate, full-bank rate) are stacked, not side by
side, so the drawing is ``WIDTH`` units wide; scaled to a 390 px screen (about 360 px of
content) its smallest text stays above 10 px. The axis is fitted to the data: it runs
between the nice ticks (steps of 1, 2, 5, 10, 20 or 25 points) just around every limit
drawn, shared by both panels and every part of one plot, and the page states its range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from generator.models.figures import Figure

LABEL_WIDTH = 190
PANEL_WIDTH = 230
RIGHT = 24
"""Room right of the axis for half of its last tick label."""
WIDTH = LABEL_WIDTH + PANEL_WIDTH + RIGHT
ROW_HEIGHT = 24
TITLE = 26
"""Height of a panel's title band, above its first row."""
TICK_BAND = 24
"""Height of the tick labels under a panel."""
PANEL_GAP = 14
LABEL_CHARS = 26
"""Most characters of a row's label, " (anchor)" included (about 7 units each)."""
MAX_ROWS = 10
"""Rows of one part: both stacked panels of ten rows fit one PDF page (an SVG never
splits across pages)."""
FONT_SIZE = 13
TICK_FONT_SIZE = 13
STEPS = tuple(Decimal(s) for s in ("0.01", "0.02", "0.05", "0.1", "0.2", "0.25"))
MAX_TICK_GAPS = 6
"""Most intervals between ticks: seven labels of at most 4 characters fit one panel."""


def _fmt(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.1")))


@dataclass(frozen=True)
class Axis:
    """The shared rate axis: its ends, its ticks (value, label) and its range in words."""

    lo: Decimal
    hi: Decimal
    ticks: tuple[tuple[Decimal, str], ...]
    text: str


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
    """One candidate's row in one panel."""

    y: str
    mid: str
    bar_y: str
    text_y: str
    band: bool
    label: str
    anchor: bool
    bar: Bar | None


@dataclass(frozen=True)
class Panel:
    """One panel: title, rows, ticks and where its axis lines run."""

    title: str
    title_y: str
    rows: tuple[Row, ...]
    ticks: tuple[tuple[str, str], ...]
    axis_top: str
    axis_bottom: str
    tick_label_y: str


@dataclass(frozen=True)
class ForestPlot:
    """Everything ``forest.svg`` draws."""

    index: int
    """1-based number of this plot among the parts of one forest plot."""
    width: int
    height: int
    row_height: int
    label_width: int
    font_size: int
    tick_font_size: int
    panels: tuple[Panel, ...]
    axis: Axis


Entry = tuple[str, bool, int | None, Figure | None, Figure | None]
"""``(display name, is anchor, tie group, core-rate figure, full-bank-rate figure)``."""


def _limits(figure: Figure | None) -> list[Decimal]:
    """Every value a figure puts on the axis: the rate and both intervals' limits."""
    if figure is None or "narrow" not in figure.intervals:
        return []
    found = [Decimal(figure.value)]
    for iv in figure.intervals.values():
        found += [Decimal(iv.lo), Decimal(iv.hi)]
    return [min(max(v, Decimal(0)), Decimal(1)) for v in found]


def percent(value: Decimal) -> str:
    """``0.25`` -> ``25%``, ``0.05`` -> ``5%``."""
    return f"{(value * 100).normalize():f}%"


def fit_axis(entries: list[Entry]) -> Axis:
    """The axis between the nice ticks around every limit drawn (0–100 % when none)."""
    values = [v for e in entries for f in (e[3], e[4]) for v in _limits(f)]
    low, high = (min(values), max(values)) if values else (Decimal(0), Decimal(1))
    for step in STEPS:
        lo = (low / step).to_integral_value(ROUND_FLOOR) * step
        hi = (high / step).to_integral_value(ROUND_CEILING) * step
        if hi == lo:  # every limit on one tick: one step of room, inside 0-100 %
            lo, hi = (lo, lo + step) if lo + step <= 1 else (hi - step, hi)
        if (hi - lo) / step <= MAX_TICK_GAPS:
            break
    lo, hi = max(lo, Decimal(0)), min(hi, Decimal(1))
    count = int((hi - lo) / step)
    ticks = tuple((lo + i * step, percent(lo + i * step)) for i in range(count + 1))
    return Axis(lo, hi, ticks, f"{percent(lo)}–{percent(hi)}")


def _x(axis: Axis, value: Decimal) -> Decimal:
    share = (min(max(value, axis.lo), axis.hi) - axis.lo) / (axis.hi - axis.lo)
    return Decimal(LABEL_WIDTH) + share * PANEL_WIDTH


def _bar(axis: Axis, figure: Figure | None) -> Bar | None:
    if figure is None or "narrow" not in figure.intervals:
        return None
    narrow = figure.intervals["narrow"]
    wide = figure.intervals.get("wide")
    lo, hi = _x(axis, Decimal(narrow.lo)), _x(axis, Decimal(narrow.hi))
    return Bar(
        x=_fmt(_x(axis, Decimal(figure.value))),
        narrow_lo=_fmt(lo),
        narrow_w=_fmt(max(hi - lo, Decimal("1"))),
        wide_lo=_fmt(_x(axis, Decimal(wide.lo))) if wide else None,
        wide_hi=_fmt(_x(axis, Decimal(wide.hi))) if wide else None,
    )


def _label(name: str, anchor: bool) -> str:
    """The row's label: the name (cut with "…" to fit) and " (anchor)" for an anchor."""
    suffix = " (anchor)" if anchor else ""
    room = LABEL_CHARS - len(suffix)
    return (name if len(name) <= room else name[: room - 1] + "…") + suffix


def forest_plots(candidates: list[Entry], per_part: int = MAX_ROWS) -> list[ForestPlot]:
    """The plot in parts of at most ``per_part`` rows (an SVG never splits across PDF
    pages, so a long leaderboard gets several plots), in balanced consecutive chunks,
    all on one axis fitted to every candidate."""
    axis = fit_axis(candidates)
    parts = max(1, math.ceil(len(candidates) / per_part))
    size = max(1, math.ceil(len(candidates) / parts))
    return [
        forest_plot(candidates[start : start + size], index, axis)
        for index, start in enumerate(range(0, max(len(candidates), 1), size), start=1)
    ]


def _panel(title: str, top: int, candidates: list[Entry], core: bool, axis: Axis) -> Panel:
    """One panel (``core`` or full-bank rates) whose title band starts at ``top``."""
    rows = []
    for number, (name, anchor, group, core_rate, full_rate) in enumerate(candidates):
        y = top + TITLE + number * ROW_HEIGHT
        rows.append(
            Row(
                y=str(y),
                mid=str(y + ROW_HEIGHT // 2),
                bar_y=str(Decimal(y + ROW_HEIGHT // 2) - Decimal("3.5")),
                text_y=str(y + ROW_HEIGHT // 2 + 5),
                band=group is not None and group % 2 == 0,
                label=_label(name, anchor),
                anchor=anchor,
                bar=_bar(axis, core_rate if core else full_rate),
            )
        )
    bottom = top + TITLE + len(candidates) * ROW_HEIGHT
    return Panel(
        title=title,
        title_y=str(top + 17),
        rows=tuple(rows),
        ticks=tuple((_fmt(_x(axis, value)), text) for value, text in axis.ticks),
        axis_top=str(top + TITLE - 4),
        axis_bottom=str(bottom),
        tick_label_y=str(bottom + 17),
    )


def forest_plot(candidates: list[Entry], index: int = 1, axis: Axis | None = None) -> ForestPlot:
    """Lay out one plot: the core-rate panel above the full-bank one.

    Args:
        candidates: In display order, ``(display name, is anchor, tie group,
            core-rate figure, full-bank-rate figure)``.
        index: Number of this part of the plot.
        axis: The axis (default: fitted to ``candidates``).
    """
    axis = axis or fit_axis(candidates)
    height = TITLE + len(candidates) * ROW_HEIGHT + TICK_BAND
    panels = tuple(
        _panel(title, number * (height + PANEL_GAP), candidates, core, axis)
        for number, (title, core) in enumerate((("Core rate", True), ("Full-bank rate", False)))
    )
    return ForestPlot(
        index=index,
        width=WIDTH,
        height=2 * height + PANEL_GAP,
        row_height=ROW_HEIGHT,
        label_width=LABEL_WIDTH,
        font_size=FONT_SIZE,
        tick_font_size=TICK_FONT_SIZE,
        panels=panels,
        axis=axis,
    )
