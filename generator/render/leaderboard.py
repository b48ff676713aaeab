"""Context of a volume's leaderboard (``templates/leaderboard.html``)."""

from __future__ import annotations

import math
from typing import Any

from generator.models.bank import Category
from generator.models.figures import Figure
from generator.render.context import (
    Candidate,
    Inputs,
    base_context,
    candidates_in_order,
    jury_card_path,
    leaderboard_path,
    percent_label,
)
from generator.render.forest import forest_plots

CATEGORY_COLUMNS = 7
"""Most category columns in one table (13 categories make two tables of 7 and 6)."""


def _groups(categories: list[Category]) -> list[list[Category]]:
    """``categories`` in balanced consecutive groups of at most ``CATEGORY_COLUMNS``."""
    count = max(1, math.ceil(len(categories) / CATEGORY_COLUMNS))
    size = max(1, math.ceil(len(categories) / count))
    return [categories[i : i + size] for i in range(0, len(categories), size)]


def _ranking(inputs: Inputs, ordered: list[Candidate]) -> dict[str, Any]:
    """The rank rule the page states: paired comparisons (``thresholds.ranking``) or,
    absent, the overlap rule with tie groups (volumes registered before it keep their
    published wording)."""
    ranking = inputs.data.volume.thresholds.ranking
    ranked = sum(f"{c.prefix}/rank_best" in inputs.figures for c in ordered)
    return {
        "ranking": ranking,
        "ranking_pairs": ranked * (ranked - 1) // 2,
        "ranking_confidence": (
            percent_label(ranking.familywise_confidence) if ranking is not None else None
        ),
    }


def _withheld(inputs: Inputs) -> dict[str, Figure]:
    """Categories whose rates are withheld below the minimum, with the figure that says
    why (its ``statement``), by category id."""
    found = {
        c.id: inputs.figures.get(f"{inputs.volume_id}/category/{c.id}/withheld")
        for c in inputs.data.bank.manifest.categories
    }
    return {cat: f for cat, f in found.items() if f is not None}


def _forest(inputs: Inputs, ordered: list[Any]) -> Any:
    """The forest plots of the ranked candidates, each row with its tie group."""
    figures = inputs.figures

    def tie_group(prefix: str) -> int | None:
        group = figures.get(f"{prefix}/tie_group")
        return int(group.value) if group is not None else None

    return forest_plots(
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

    plots = _forest(inputs, ordered)
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
            "withheld": _withheld(inputs),
            "split_half": len(inputs.data.volume.protocol.halves) == 2,
            # Counted here, not in the template: templates print, they never count.
            "halves_count": len(inputs.data.volume.protocol.halves),
            "has_unvalidated": any(f"{c.prefix}/unvalidated_rate" in figures for c in ordered),
            "has_rubric": any(f"{c.prefix}/rubric/score" in figures for c in ordered),
            "rubric_groups": inputs.data.volume.scoring_or_default().rubric_groups,
            "declared_conditions": [c for c in ordered if c.ref.conditions is not None],
            "drift": drift,
            "movement": movement,
            **_ranking(inputs, ordered),
        }
    )
    return context
