"""Per-category rates withheld below the pre-registered minimum (``generator.minimums``).

A withheld rate is not computed as a publishable figure. In its place the volume registers
``<volume>/category/<category>/withheld``: the count of validated items, with the minimum,
the statement every page prints ("withheld: 5 validated items, minimum 30") and, under
``absent``, the id of every candidate's rate it replaces (so a page asking for one gets
None and states why, never a number).
"""

from __future__ import annotations

from generator.figures.context import FigureContext
from generator.minimums import Withheld, full_bank, withheld_categories


def withheld(ctx: FigureContext) -> list[Withheld]:
    """The categories of ``ctx``'s volume whose per-category rates are withheld."""
    categories = [c.id for c in ctx.data.bank.manifest.categories]
    # Per-category rates are full-bank rates: a retired core item counts in the core only.
    active = full_bank(ctx.tally.items, ctx.tally.retired)
    return withheld_categories(ctx.data.volume, active, categories)


def withheld_figures(ctx: FigureContext, found: list[Withheld]) -> None:
    """Register one ``category/<id>/withheld`` figure per withheld category."""
    slugs = [ref.slug for ref in ctx.data.volume.candidates]
    for w in found:
        ctx.reg.count(
            f"{ctx.vid}/category/{w.category}/withheld",
            f"Validated items of category {w.category}, below the pre-registered minimum "
            f"of {w.minimum}: its per-category rates are withheld",
            w.validated,
            ctx.sources_for(),
            method="count of validated items of the category in the volume's bank version, "
            "against thresholds.min_category_items",
            detail={
                "minimum": w.minimum,
                "statement": w.statement,
                "absent": [f"{ctx.vid}/{slug}/category/{w.category}/rate" for slug in slugs],
            },
        )
