"""How pages read a contamination gap (``generator.figures.contamination``) in plain words:
the jury card and the site's jury page say the same thing, from the same figure."""

from __future__ import annotations

from decimal import Decimal

from generator.models.figures import Figure

EXPLAINED = (
    "The contamination gap is a model's failure rate on held-out items minus its "
    "failure rate on public items of the same categories, each category weighted by its "
    "share of the items counted (validated items only; categories without both kinds are "
    "left out). Public items are published and may end up in a model's training data; "
    "held-out items never are. A model that had seen the public items would tend to do "
    "better on them, which shows as a positive gap. A positive gap is a signal, not "
    "proof: the held-out items may simply be harder, so compare it with the other models' "
    "gaps (the volume's jury page lists them all). A gap every model shares points at the "
    "items; a gap one model shows points at that model. The narrow interval holds these "
    "items fixed; "
    "the wide interval treats them as a sample of probes like these and is the one to "
    "read for a contamination signal. No held-out text is used or shown: only counts and "
    "rates."
)


def _above_zero(figure: Figure, name: str) -> bool | None:
    """True when interval ``name`` lies above zero, False when it includes or lies below
    zero, None when the figure has no such interval."""
    iv = figure.intervals.get(name)
    return None if iv is None else Decimal(iv.lo) > 0


def reading(figure: Figure) -> str:
    """One sentence on what the gap's intervals say (no new number)."""
    wide, narrow = _above_zero(figure, "wide"), _above_zero(figure, "narrow")
    if wide:
        return (
            "The wide interval lies above zero: a contamination signal (the model does "
            "better on public items than on held-out items of the same categories)."
        )
    if narrow:
        return (
            "Only the narrow interval lies above zero: on these very items the model does "
            "better on public ones, but items like these could differ that much by chance "
            "(a weak signal)."
            if wide is not None
            else "The narrow interval lies above zero (no wide interval: one item a side "
            "in every category): on these very items the model does better on public ones."
        )
    if Decimal(figure.value) > 0:
        which = "its interval includes" if wide is None else "both its intervals include"
        return f"The gap is positive but {which} zero: no contamination signal."
    return "The gap is not positive: no contamination signal."
