"""Figures across candidates and volumes: rank ranges, bank health, drift and movement."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from generator.figures.builder import (
    RATE_PLACES,
    SourceCache,
    difference_interval,
    points_display,
)
from generator.figures.calibration import STATUS_KEY
from generator.figures.context import FigureContext, sources_of
from generator.figures.tally import VolumeTally, tally_volume
from generator.models.figures import Param
from generator.stats import (
    RankRange,
    Separation,
    holm_separations,
    paired_rank_ranges,
    rank_ranges,
)
from generator.stats import difference_interval as stats_difference
from generator.store.volume import VolumeData

RANK_METHOD = "rank range from non-overlapping narrow core-rate intervals"
PAIRED_RANK_METHOD = (
    "rank range from paired differences of narrow core rates on the same items, "
    "Holm-adjusted across all pairs; family-wise confidence {level}"
)

CoreCounts = dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]


def separations(
    ctx: FigureContext, slugs: list[str], counts: CoreCounts
) -> list[Separation] | None:
    """The paired comparisons of the ranked candidates ``slugs`` (sorted) on their core
    counts, Holm-adjusted (None: the volume ranks by overlapping intervals, or ranks
    nobody)."""
    ranking = ctx.data.volume.thresholds.ranking
    if ranking is None or not slugs:
        return None
    return holm_separations({s: counts[s] for s in slugs}, float(ranking.familywise_confidence))


def rank_figures(
    ctx: FigureContext,
    core: dict[str, tuple[float, float, float]],
    separated: Callable[[], list[Separation] | None],
    judge: str | None = None,
) -> None:
    """Best and worst rank of every candidate: from paired comparisons when the volume
    declares ``thresholds.ranking`` (``separated``: waits for ``separations`` of the
    candidates of ``core``), else (earlier volumes, whose figures stay as published) from
    overlapping core-rate intervals, with tie groups. ``judge`` is the calibration status
    the ranks carry when a model judge decides the core rates (``detail["judge"]``, as on
    the rates: ``judge-unvalidated`` says so)."""
    slugs = sorted(core)
    if not slugs:
        return
    ranking = ctx.data.volume.thresholds.ranking
    if ranking is None:
        ranges = rank_ranges(
            [core[s][0] for s in slugs],
            [core[s][1] for s in slugs],
            [core[s][2] for s in slugs],
            slugs,
        )
        _register_ranks(ctx, ranges, RANK_METHOD, {}, "the core-rate intervals allow", judge)
        return
    level = str(ranking.familywise_confidence)
    found = separated()
    if found is None:  # pragma: no cover - ``separations`` has the same ranking and slugs
        raise AssertionError("no paired comparisons for a paired ranking")
    ranges = paired_rank_ranges(slugs, found)
    # One pass over the separations (n(n-1)/2 of them at most), not one per candidate.
    better: dict[str, list[str]] = {s: [] for s in slugs}
    worse: dict[str, list[str]] = {s: [] for s in slugs}
    for x in found:
        better[x.better].append(x.worse)
        worse[x.worse].append(x.better)
    detail: dict[str, dict[str, Param | list[str]]] = {
        s: {
            "better_than": sorted(better[s]),
            "worse_than": sorted(worse[s]),
            "familywise_confidence": level,
        }
        for s in slugs
    }
    method = PAIRED_RANK_METHOD.format(level=level)
    _register_ranks(ctx, ranges, method, detail, "the paired comparisons allow", judge)


def _register_ranks(
    ctx: FigureContext,
    ranges: list[RankRange],
    method: str,
    extra: dict[str, dict[str, Param | list[str]]],
    allow: str,
    judge: str | None,
) -> None:
    """``rank_best`` and ``rank_worst`` of every candidate, and ``tie_group`` where the
    rule defines one."""
    for rr in ranges:
        src = ctx.sources_for(ctx.data.bundles[rr.name])
        p = f"{ctx.vid}/{rr.name}"
        status: dict[str, Param] = {STATUS_KEY: judge} if judge else {}
        detail: dict[str, Param | list[str]] = {
            "of": len(ranges),
            **extra.get(rr.name, {}),
            **status,
        }
        for end, rank in (("best", rr.best), ("worst", rr.worst)):
            ctx.reg.count(
                f"{p}/rank_{end}",
                f"{end.capitalize()} rank {allow}",
                rank,
                src,
                method=method,
                detail=detail,
                kind="rank",
            )
        if rr.tie_group is not None:
            ctx.reg.count(
                f"{p}/tie_group",
                "Tie group (candidates whose intervals overlap share one)",
                rr.tie_group,
                src,
                method=method,
                detail=dict(status),
                kind="rank",
            )


def bank_health_figures(ctx: FigureContext) -> None:
    """Counts of solved, unsolved and all items of the bank version (over the ranked
    models: a baseline that fails everything must not hide a solved item)."""
    vt = ctx.tally
    bundles = list(ctx.data.bundles.values())
    src = ctx.sources_for(*bundles)
    ranked = [vt.tallies[r.slug] for r in ctx.data.volume.ranked() if r.slug in vt.tallies]
    zero = np.zeros(len(vt.items), np.int64)  # a volume of baselines only ranks nothing
    k = np.sum([zero, *(t.k for t in ranked)], axis=0)
    n = np.sum([zero, *(t.n for t in ranked)], axis=0)
    solved = [m.id for m, ki, ni in zip(vt.items, k, n, strict=True) if ni > 0 and ki == 0]
    unsolved = [m.id for m, ki, ni in zip(vt.items, k, n, strict=True) if ni > 0 and ki == ni]
    ctx.reg.count(
        f"{ctx.vid}/bank/retirement_candidates",
        "Items every candidate passed in every draw",
        len(solved),
        src,
        detail={"items": solved},
    )
    ctx.reg.count(
        f"{ctx.vid}/bank/unsolved",
        "Items no candidate passed in any draw",
        len(unsolved),
        src,
        detail={"items": unsolved},
    )
    ctx.reg.count(
        f"{ctx.vid}/bank/items",
        f"Items of bank {ctx.data.volume.bank_version}",
        len(vt.items),
        src,
        detail={
            "core": sum(m.core for m in vt.items),
            "validated": sum(m.status == "validated" for m in vt.items),
            "held_out": sum(ctx.data.bank.is_heldout(m.id) for m in vt.items),
        },
    )


def _movement_statement(families: int, pair: str) -> str:
    """Whether movement is published between the two volumes, and why, in plain words."""
    if families >= 2:
        return (
            f"Movement is published: {families} anchors of independent families "
            f"were measured in {pair}."
        )
    return (
        "Movement is not published: fewer than two anchors of independent families "
        f"were measured in both {pair}, so harness drift cannot be told apart from "
        "model drift."
    )


def across_volume_figures(ctx: FigureContext) -> None:
    """Anchor drift since the previous volume, and movement when two independent anchors
    allow it."""
    prev = ctx.previous
    src_now = ctx.sources_for(*ctx.data.bundles.values())
    if prev is None:
        ctx.reg.count(
            f"{ctx.vid}/movement/anchors",
            "Anchors of independent families measured in this and the previous volume",
            0,
            src_now,
            detail={"statement": "No previous volume: drift and movement are not defined."},
        )
        return
    prev_tally = tally_volume(prev)
    core_ids = [m.id for m in ctx.tally.items if m.core and m.status == "validated"]
    core_ids = [i for i in core_ids if i in prev_tally.index]
    now_idx = np.array([ctx.tally.index[i] for i in core_ids])
    then_idx = np.array([prev_tally.index[i] for i in core_ids])
    anchors = [
        r for r in ctx.data.volume.candidates if r.role == "anchor" and r.slug in prev_tally.tallies
    ]
    families = {ctx.data.bundles[r.slug].manifest.candidate.family for r in anchors}
    both = [r for r in ctx.data.volume.candidates if r.slug in prev_tally.tallies]
    for ref in anchors:
        _change(
            ctx,
            f"{ctx.vid}/drift/{ref.slug}/core",
            f"Core-rate drift of anchor {ref.display_name} since {prev.volume.id}",
            ref.slug,
            prev,
            prev_tally,
            now_idx,
            then_idx,
        )
    statement = _movement_statement(len(families), f"{prev.volume.id} and {ctx.vid}")
    ctx.reg.count(
        f"{ctx.vid}/movement/anchors",
        "Anchors of independent families measured in this and the previous volume",
        len(families),
        src_now,
        detail={"statement": statement, "previous": prev.volume.id},
    )
    if len(families) < 2:
        return
    for ref in both:
        if ref.role != "candidate":  # anchors drift; baselines are never compared
            continue
        _change(
            ctx,
            f"{ctx.vid}/movement/{ref.slug}/core",
            f"Core-rate movement of {ref.display_name} since {prev.volume.id}",
            ref.slug,
            prev,
            prev_tally,
            now_idx,
            then_idx,
        )


def _change(
    ctx: FigureContext,
    fid: str,
    label: str,
    slug: str,
    prev: VolumeData,
    prev_tally: VolumeTally,
    now_idx: npt.NDArray[np.int64],
    then_idx: npt.NDArray[np.int64],
) -> None:
    now, then = ctx.tally.tallies[slug], prev_tally.tallies[slug]
    kn, nn, kt, nt = now.k[now_idx], now.n[now_idx], then.k[then_idx], then.n[then_idx]
    use = (nn > 0) & (nt > 0)
    if use.sum() < 2:
        return
    iv = stats_difference(
        kn[use], nn[use], kt[use], nt[use], paired=True, kind="narrow", confidence=ctx.level
    )
    # This volume's sources last: its bank cut (which holds the earlier one) is the one kept.
    src = sources_of(prev, SourceCache(prev.layout), [prev.bundles[slug]]) + ctx.sources_for(
        ctx.data.bundles[slug]
    )
    ctx.reg.add(
        fid,
        label,
        "difference",
        iv.estimate,
        precision=RATE_PLACES,
        display=points_display(iv.estimate),
        method="difference of core item-mean fail fractions between volumes, paired by item",
        sources=sorted({s.path: s for s in src}.values(), key=lambda s: s.path),
        intervals={"narrow": difference_interval(iv)},
        detail={"items": int(use.sum()), "previous": prev.volume.id},
    )
