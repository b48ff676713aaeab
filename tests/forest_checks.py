"""What the browser tests check of a forest plot on a page: axis fitted to the data,
text legible at a phone's width, no label drawn over another (issue 17)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from generator.models.figures import Figure
from generator.models.volume import Volume

MEASURE = """() => [...document.querySelectorAll('svg.forest')].map(svg => ({
  right: svg.getBoundingClientRect().right,
  viewport: document.documentElement.clientWidth,
  texts: [...svg.querySelectorAll('text')].map(t => {
    const r = t.getBoundingClientRect();
    return {cls: t.getAttribute('class'), text: t.textContent, left: r.left, right: r.right,
            top: r.top, bottom: r.bottom,
            px: svg.getScreenCTM().a * parseFloat(getComputedStyle(t).fontSize)};
  }),
}))"""

MIN_PX = 10.0


def plotted_rates(root: Path, volume: str, figures: dict[str, Figure]) -> list[Figure]:
    """The core and full rates a volume's forest plot draws: its ranked models' only (a
    baseline is scored, but never ranked, and is kept out of the plot)."""
    doc = yaml.safe_load((root / "bundles" / volume / "volume.yaml").read_text("utf-8"))
    ranked = Volume.model_validate(doc).ranked()
    assert len(ranked) < len(Volume.model_validate(doc).candidates)  # the example has baselines
    return [figures[f"{volume}/{ref.slug}/{rate}"] for ref in ranked for rate in RATES]


RATES = ("core_rate", "full_rate")


def data_range(figures: list[Figure]) -> tuple[Decimal, Decimal]:
    """Lowest and highest value a forest plot of these rate figures must show."""
    values = [Decimal(f.value) for f in figures]
    values += [Decimal(x) for f in figures for iv in f.intervals.values() for x in (iv.lo, iv.hi)]
    return max(min(values), Decimal(0)), min(max(values), Decimal(1))


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return not (
        a["right"] <= b["left"]
        or b["right"] <= a["left"]
        or a["bottom"] <= b["top"]
        or b["bottom"] <= a["top"]
    )


def check_plot(page: Any, figures: list[Figure], *, phone: bool) -> list[str]:
    """Problems of every forest plot on ``page`` (empty when all is well)."""
    problems = []
    plots = page.evaluate(MEASURE)
    if not plots:
        return ["no forest plot on the page"]
    low, high = data_range(figures)
    for plot in plots:
        if plot["right"] > plot["viewport"] + 0.5:
            problems.append(f"plot ends at {plot['right']}px, past the {plot['viewport']}px view")
        ticks = [t for t in plot["texts"] if t["cls"] == "forest-tick"]
        values = [Decimal(t["text"].rstrip("%")) / 100 for t in ticks]
        step = values[1] - values[0]
        if not (values[0] <= low < values[0] + step and values[-1] - step < high <= values[-1]):
            problems.append(f"axis {values[0]}–{values[-1]} is not fitted to {low}–{high}")
        small = [t["text"] for t in plot["texts"] if phone and t["px"] < MIN_PX]
        if small:
            problems.append(f"text under {MIN_PX}px: {small[:5]}")
        texts = plot["texts"]
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                if _overlap(a, b):
                    problems.append(f"{a['text']!r} is drawn over {b['text']!r}")
    return problems
