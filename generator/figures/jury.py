"""The jury's figures: panel agreement (AC1), grader leniency, sample and qualification."""

from __future__ import annotations

from typing import NamedTuple

from generator.figures.builder import PERCENT_PLACES, RATE_PLACES, signed
from generator.figures.context import AC1_PLACES, FigureContext, plain_interval, points_interval
from generator.jury import qualification_outcomes
from generator.models.base import slugify
from generator.models.figures import Source
from generator.panel import rated_draws
from generator.stats import StatsError, gwet_ac1, to_decimal_str
from generator.stats.agreement import leniencies
from generator.store.rowtypes import BundleData


class LeniencyAsk(NamedTuple):
    """A leniency figure to compute: its id, its label and the bundles it is over."""

    fid: str
    label: str
    bundles: list[BundleData]


def leniency_figure(ctx: FigureContext, fid: str, label: str, bundles: list[BundleData]) -> None:
    """Grader pass share minus panel-majority pass share on the stratified sample."""
    leniency_figures(ctx, [LeniencyAsk(fid, label, bundles)])


def leniency_figures(ctx: FigureContext, asks: list[LeniencyAsk]) -> None:
    """``leniency_figure`` of each ask, their intervals in one batch (bit for bit one
    call each), registered in order; an ask without a sampled draw registers nothing."""
    samples = [(ask, _leniency_sample(ctx, ask.bundles)) for ask in asks]
    kept = [(ask, sample) for ask, sample in samples if sample[0]]
    found = leniencies([sample for _, sample in kept], ctx.level)
    for (ask, _), result in zip(kept, found, strict=True):
        ctx.reg.add(
            ask.fid,
            ask.label,
            "points",
            result.points,
            precision=PERCENT_PLACES,
            display=f"{signed(result.points, PERCENT_PLACES)} pts",
            method="grader pass share minus panel-majority pass share, stratified panel sample",
            sources=ctx.sources_for(*ask.bundles),
            intervals={"ci": points_interval(result.lo, result.hi, result.method, ctx.level)},
            detail={
                "draws": result.n_draws,
                "grader_pass_share": to_decimal_str(result.grader_pass_share, RATE_PLACES),
                "majority_pass_share": to_decimal_str(result.majority_pass_share, RATE_PLACES),
            },
        )


def _leniency_sample(
    ctx: FigureContext, bundles: list[BundleData]
) -> tuple[list[bool], list[bool]]:
    """Grader and panel-majority passes on the stratified draws both decided."""
    grader: list[bool] = []
    majority: list[bool] = []
    for bundle in bundles:
        verdicts = {v.key: v.verdict for v in bundle.verdicts}
        stratified = {v.key for v in bundle.panel if v.why == "stratified"}
        # The independent panel's (without the adjudication seat), counted once.
        for key, decided in ctx.tally.majority[bundle.slug].items():
            if key in stratified and decided is not None and verdicts.get(key) in ("pass", "fail"):
                grader.append(verdicts[key] == "pass")
                majority.append(decided == "pass")
    return grader, majority


def jury_figures(ctx: FigureContext) -> None:
    """Panel AC1 overall and per category, leniency, sample sizes and qualification."""
    bundles = [ctx.data.bundles[r.slug] for r in ctx.data.volume.candidates]
    src = ctx.sources_for(*bundles, extra=("qualification.jsonl",))
    rated = [r for b in bundles for r in rated_draws(ctx.data, b)]
    floor = str(ctx.data.volume.thresholds.ac1_floor)
    _ac1(
        ctx,
        f"{ctx.vid}/jury/ac1",
        "Panel agreement (Gwet's AC1) over all re-graded draws",
        [r.votes for r in rated],
        src,
        floor,
    )
    absent = []
    for cat in [c.id for c in ctx.data.bank.manifest.categories]:
        votes = [r.votes for r in rated if r.category == cat]
        fid = f"{ctx.vid}/jury/ac1/category/{cat}"
        if not _ac1(ctx, fid, f"Panel agreement (AC1) on {cat} draws", votes, src, floor):
            absent.append(fid)
    if absent:  # e.g. a category of Tier 0 items only: the panel re-grades none of it
        ctx.reg.count(
            f"{ctx.vid}/jury/ac1/absent_categories",
            "Categories without a panel AC1 (fewer than two draws the panel re-graded)",
            len(absent),
            src,
            detail={
                "statement": "A category with fewer than two re-graded draws has no AC1.",
                "absent": absent,
            },
        )
    leniency_figure(
        ctx, f"{ctx.vid}/jury/leniency", "Grader leniency versus the panel majority", bundles
    )
    whys = [r.why for r in rated]
    for why in ("stratified", "borderline", "grader_refused"):
        ctx.reg.count(
            f"{ctx.vid}/jury/sample/{why}",
            f"Draws re-graded by the panel ({why.replace('_', ' ')})",
            whys.count(why),
            src,
        )
    quals = qualification_outcomes(
        (q.record for b in bundles for q in b.qualification),
        ctx.data.volume.thresholds.max_qualification_refusals,
    )
    for judge, outcome in quals.items():
        ctx.reg.count(
            f"{ctx.vid}/jury/{slugify(judge)}/qualification",
            f"Qualification probes {judge} graded correctly",
            outcome.correct,
            src,
            detail={
                "probes": outcome.probes,
                "refused": list(outcome.refused),
                "wrong": list(outcome.wrong),
                "qualified": outcome.qualified,
            },
        )


def _ac1(
    ctx: FigureContext,
    fid: str,
    label: str,
    ratings: list[tuple[str | None, ...]],
    src: list[Source],
    floor: str,
) -> bool:
    """Register the AC1 of ``ratings``; False (nothing registered) when it is undefined."""
    usable = [r for r in ratings if sum(v is not None for v in r) >= 2]
    if len(usable) < 2:
        return False
    try:
        result = gwet_ac1(ratings, ["pass", "fail"], ctx.level)
    except StatsError:
        return False
    ctx.reg.add(
        fid,
        label,
        "agreement",
        result.value,
        precision=AC1_PLACES,
        display=to_decimal_str(result.value, AC1_PLACES),
        method=result.method,
        sources=src,
        intervals={"ci": plain_interval(result.ci_lo, result.ci_hi, result.method, ctx.level)},
        detail={
            "draws": result.n_subjects,
            "raters": result.n_raters,
            "floor": floor,
            "percent_agreement": to_decimal_str(result.percent_agreement, AC1_PLACES),
        },
    )
    return True
