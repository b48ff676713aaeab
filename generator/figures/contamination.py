"""The contamination gap of every ranked candidate and anchor (DESIGN §14, issue 18).

``<volume>/<slug>/contamination/gap``: the candidate's failure rate on validated held-out
items minus its rate on validated public items of the same categories, stratified by
category (``generator.stats.gap``), with a narrow and a wide interval. Positive means it
does better on the items anyone could have trained on: a contamination *signal*, not
proof (held-out items may be harder; compare with the other models' gaps). Only counts
and rates reach the registry, never a held-out item's text or id.

A gap that cannot be computed is declared absent by ``<volume>/contamination/absent``, with
the reason every page prints: the bank holds no category with validated public and
held-out items that have decided draws, or the candidate is a baseline (a fixed rule or the
reference answers: it was trained on nothing, so it has no contamination to signal and its
gap would only say how the two halves of the bank differ in difficulty).
"""

from __future__ import annotations

from collections import defaultdict

from generator.figures.builder import RATE_PLACES, difference_interval, points_display
from generator.figures.calibration import HUMAN_REFERENCE, STATUS_KEY
from generator.figures.context import FigureContext
from generator.figures.tally import Tally
from generator.models.figures import Param
from generator.stats import to_decimal_str
from generator.stats.gap import Gap, Stratum, contamination_gaps, stratum

BASELINE_STATEMENT = (
    "Baselines have no contamination gap: they were trained on nothing, so the gap would "
    "only say how the public and held-out items differ in difficulty."
)
NO_STRATA_STATEMENT = (
    "No contamination gap: no category has validated public and held-out items with decided draws."
)


def gap_id(vid: str, slug: str) -> str:
    """``vol-001/acme-m1/contamination/gap``."""
    return f"{vid}/{slug}/contamination/gap"


def _strata(ctx: FigureContext, t: Tally) -> list[Stratum]:
    """The candidate's categories with decided validated items on both sides, in the
    bank's category order."""
    sides: dict[tuple[str, bool], list[int]] = defaultdict(list)
    bank = ctx.data.bank
    for pos, meta in enumerate(ctx.tally.items):
        if meta.status == "validated" and t.n[pos] > 0:
            sides[(meta.category, bank.is_heldout(meta.id))].append(pos)
    out = []
    for cat in [c.id for c in bank.manifest.categories]:
        held, public = sides.get((cat, True), []), sides.get((cat, False), [])
        if held and public:
            out.append(stratum(cat, t.k[held], t.n[held], t.k[public], t.n[public]))
    return out


def _judged(ctx: FigureContext, t: Tally, strata: list[Stratum]) -> bool:
    """Whether a judged (Tier 1) item counts toward the gap (it carries the judge status)."""
    cats = {s.category for s in strata}
    judged = ctx.tally.select(tier=1, status="validated") & (t.n > 0)
    return any(m.category in cats for m, j in zip(ctx.tally.items, judged, strict=True) if j)


def _register(ctx: FigureContext, slug: str, name: str, gap: Gap, judge_status: str) -> None:
    bundle = ctx.data.bundles[slug]
    detail: dict[str, Param | list[str]] = {
        "categories": list(gap.categories),
        # Counted here, not in the template: templates print, they never count.
        "category_count": len(gap.categories),
        "heldout_items": gap.heldout_items,
        "public_items": gap.public_items,
        "heldout_rate": to_decimal_str(gap.heldout_rate, RATE_PLACES),
        "public_rate": to_decimal_str(gap.public_rate, RATE_PLACES),
    }
    intervals = {"narrow": difference_interval(gap.narrow)}
    if gap.wide is not None:
        intervals["wide"] = difference_interval(gap.wide)
    else:
        detail["wide_absent"] = (
            "one item a side in every category: the spread between items, which the wide "
            "interval needs, cannot be estimated"
        )
    if judge_status != HUMAN_REFERENCE:
        detail[STATUS_KEY] = judge_status
    ctx.reg.add(
        gap_id(ctx.vid, slug),
        f"Contamination gap of {name}: failure rate on held-out minus public items of the "
        "same categories (positive: better on public items)",
        "difference",
        gap.estimate,
        precision=RATE_PLACES,
        display=points_display(gap.estimate),
        method="held-out minus public mean per-item fail fraction, stratified by category "
        "(weights: each category's share of the items counted); validated items only",
        sources=ctx.sources_for(bundle),
        intervals=intervals,
        detail=detail,
    )


def contamination_figures(ctx: FigureContext, judge_status: str) -> None:
    """Register each ranked candidate's gap, and declare every absent one with why."""
    no_strata: list[str] = []
    found = []
    for ref in ctx.data.volume.ranked():
        strata = _strata(ctx, ctx.tally.tallies[ref.slug])
        if strata:
            found.append((ref, strata))
        else:
            no_strata.append(gap_id(ctx.vid, ref.slug))
    gaps = contamination_gaps([strata for _, strata in found], ctx.level)  # one batch
    for (ref, strata), gap in zip(found, gaps, strict=True):
        judged = _judged(ctx, ctx.tally.tallies[ref.slug], strata)
        _register(ctx, ref.slug, ref.display_name, gap, judge_status if judged else HUMAN_REFERENCE)
    baselines = [gap_id(ctx.vid, ref.slug) for ref in ctx.data.volume.baselines()]
    for suffix, label, absent, statement in (
        ("absent", "Candidates without a contamination gap", no_strata, NO_STRATA_STATEMENT),
        ("baselines", "Baselines (no contamination gap)", baselines, BASELINE_STATEMENT),
    ):
        if absent:  # registered only then, so a volume without them keeps its registry
            ctx.reg.count(
                f"{ctx.vid}/contamination/{suffix}",
                label,
                len(absent),
                ctx.sources_for(*ctx.data.bundles.values()),
                detail={"statement": statement, "absent": sorted(absent)},
            )
