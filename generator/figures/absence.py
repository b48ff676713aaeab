"""Counts that say why figures a volume could have are absent (registered only then, so
a volume where every figure exists keeps the registry it had)."""

from __future__ import annotations

from generator.figures.context import FigureContext


def rate_absence(ctx: FigureContext, absent: list[str]) -> None:
    """Say which rates are absent because no item of theirs has a decided draw (a bank
    without Tier 0 items has no Tier 0 rate)."""
    if not absent:
        return
    ctx.reg.count(
        f"{ctx.vid}/rates/absent",
        "Rates absent because none of their items has a decided draw",
        len(absent),
        ctx.sources_for(*ctx.data.bundles.values()),
        detail={
            "statement": (
                "Some rates are absent: none of their items has a decided draw (the "
                "bank has no such items, or the reference rater set decided none)."
            ),
            "absent": sorted(absent),
        },
    )


def split_half_absence(ctx: FigureContext) -> None:
    """Say why split-half figures are absent when the protocol has not two halves (like
    ``movement/anchors``, a count with its statement)."""
    halves = list(ctx.data.volume.protocol.halves)
    if len(halves) == 2:
        return
    if len(halves) == 1:
        why = (
            f"the protocol has one half ({halves[0]}), so there is no second, "
            "independent half to compare it with"
        )
    else:
        why = (
            f"the protocol has {len(halves)} halves ({', '.join(halves)}); the "
            "split-half comparison is defined for exactly two"
        )
    slugs = [ref.slug for ref in ctx.data.volume.candidates]
    ctx.reg.count(
        f"{ctx.vid}/split_half/halves",
        "Halves in the volume's protocol (split-half figures need exactly two)",
        len(halves),
        ctx.sources_for(*ctx.data.bundles.values()),
        detail={
            "statement": f"Split-half figures are absent: {why}.",
            "absent": [f"{ctx.vid}/{slug}/split_half/difference" for slug in slugs],
        },
    )
