"""Context of a volume's leaderboard (``templates/leaderboard.html``)."""

from __future__ import annotations

import math
from typing import Any

from generator.models.bank import Category
from generator.render.context import (
    Inputs,
    base_context,
    candidates_in_order,
    jury_card_path,
    leaderboard_path,
)
from generator.render.forest import forest_plots

CATEGORY_COLUMNS = 7
"""Most category columns in one table (13 categories make two tables of 7 and 6)."""


def _groups(categories: list[Category]) -> list[list[Category]]:
    """``categories`` in balanced consecutive groups of at most ``CATEGORY_COLUMNS``."""
    count = max(1, math.ceil(len(categories) / CATEGORY_COLUMNS))
    size = max(1, math.ceil(len(categories) / count))
    return [categories[i : i + size] for i in range(0, len(categories), size)]


def leaderboard_context(inputs: Inputs) -> dict[str, Any]:
    """Everything ``leaderboard.html`` prints, as figures and manifest facts.

    Candidates come in registered core-rate order with their figure prefix (baselines
    apart, in the same order, for their own table); the template
    looks every number up by id. Drift is listed for every anchor that has a drift
    figure, movement for every candidate that has a movement figure (the registry only
    computes movement once two anchors of independent families exist, and
    ``movement/anchors`` carries the statement either way).
    """
    vid = inputs.volume_id
    page = leaderboard_path(vid)
    context = base_context(inputs, page, f"{inputs.data.volume.title}: leaderboard")
    everyone = candidates_in_order(inputs)
    # Baselines have their own table: never ranked, never in a tie group or forest plot.
    ordered = [c for c in everyone if c.ref.ranked]
    baselines = [c for c in everyone if not c.ref.ranked]
    figures = inputs.figures

    def tie_group(prefix: str) -> int | None:
        group = figures.get(f"{prefix}/tie_group")
        return int(group.value) if group is not None else None

    plots = forest_plots(
        [
            (
                c.ref.display_name,
                c.anchor,
                tie_group(c.prefix),
                figures.get(f"{c.prefix}/core_rate"),
                figures.get(f"{c.prefix}/full_rate"),
            )
            for c in ordered
        ]
    )
    card_prefix = f"{leaderboard_path(vid).rsplit('/', 1)[0]}/"
    drift = [c for c in ordered if c.anchor and f"{vid}/drift/{c.slug}/core" in figures]
    movement = [c for c in ordered if f"{vid}/movement/{c.slug}/core" in figures]
    context.update(
        {
            "candidates": ordered,
            "baselines": baselines,
            "cards": {
                c.slug: jury_card_path(vid, c.slug).removeprefix(card_prefix) for c in everyone
            },
            "forest": plots,
            "category_groups": _groups(list(inputs.data.bank.manifest.categories)),
            "split_half": len(inputs.data.volume.protocol.halves) == 2,
            "has_unvalidated": any(f"{c.prefix}/unvalidated_rate" in figures for c in ordered),
            "has_rubric": any(f"{c.prefix}/rubric/score" in figures for c in ordered),
            "rubric_groups": inputs.data.volume.scoring_or_default().rubric_groups,
            "declared_conditions": [c for c in ordered if c.ref.conditions is not None],
            "drift": drift,
            "movement": movement,
        }
    )
    return context
