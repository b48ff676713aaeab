"""Compute every figure of one volume (DESIGN §5) into registry entries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from generator.figures.builder import (
    PERCENT_PLACES,
    RATE_PLACES,
    Registry,
    SourceCache,
    difference_interval,
    interval,
    points_display,
    rate_display,
    rate_interval,
    signed,
)
from generator.figures.tally import Tally, VolumeTally, panel_majority, tally_volume
from generator.jury import qualification_outcomes
from generator.models.base import slugify
from generator.models.figures import Interval as RegInterval
from generator.models.figures import Source
from generator.panel import rated_draws
from generator.stats import Interval as StatsInterval
from generator.stats import (
    StatsError,
    gwet_ac1,
    leniency,
    rank_ranges,
    to_decimal_str,
)
from generator.stats import difference_interval as stats_difference
from generator.stats.intervals import narrow_differences, narrow_intervals, wide_intervals
from generator.store.bundle import BundleData
from generator.store.volume import VolumeData

Mask = npt.NDArray[np.bool_]
AC1_PLACES = 3
RANK_METHOD = "rank range from non-overlapping narrow core-rate intervals"


@dataclass(frozen=True)
class _RateJob:
    """A rate figure waiting for its intervals (computed for all rates in one batch)."""

    fid: str
    label: str
    k: npt.NDArray[np.int64]
    n: npt.NDArray[np.int64]
    wide: bool
    sources: list[Source]
    core_of: str | None


@dataclass(frozen=True)
class _SplitJob:
    """A split-half difference waiting for its interval."""

    fid: str
    label: str
    sides: tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
    ]
    sources: list[Source]


class VolumeFigures:
    """Computes the figures of one volume; ``previous`` enables drift and movement."""

    def __init__(self, data: VolumeData, previous: VolumeData | None = None) -> None:
        self.data = data
        self.previous = previous
        self.vid = data.volume.id
        self.level = float(data.volume.thresholds.confidence)
        self.cache = SourceCache(data.layout)
        self.reg = Registry()
        self.tally: VolumeTally = tally_volume(data)
        self._rates: list[_RateJob] = []
        self._splits: list[_SplitJob] = []

    # -- sources -------------------------------------------------------------------------

    def _common(self, data: VolumeData) -> list[Path]:
        layout = data.layout
        return [
            layout.bank_manifest,
            layout.public_items,
            layout.heldout_index,
            layout.volume_file(data.volume.id),
        ]

    def _bundle_paths(self, bundle: BundleData, *names: str) -> list[Path]:
        return [bundle.directory / "bundle.json", *(bundle.directory / n for n in names)]

    def sources_for(self, *bundles: BundleData, extra: Sequence[str] = ()) -> list[Source]:
        paths = self._common(self.data)
        for bundle in bundles:
            paths += self._bundle_paths(bundle, "verdicts.jsonl", "panel.jsonl", *extra)
        for bundle in bundles:
            for name, digest in bundle.file_sha256.items():
                self.cache.known.setdefault(self.data.layout.rel(bundle.directory / name), digest)
        return self.cache.sources(paths)

    # -- rates ---------------------------------------------------------------------------

    def _rate(
        self,
        fid: str,
        label: str,
        t: Tally,
        mask: Mask,
        sources: list[Source],
        wide: bool = True,
        k: npt.NDArray[np.int64] | None = None,
        n: npt.NDArray[np.int64] | None = None,
        core_of: str | None = None,
    ) -> None:
        """Queue a rate figure; ``_register_rates`` computes and registers the queue."""
        k_all = t.k if k is None else k
        n_all = t.n if n is None else n
        use = mask & (n_all > 0)
        if not use.any():
            return
        job = _RateJob(fid, label, k_all[use], n_all[use], wide, sources, core_of)
        self._rates.append(job)

    def _register_rates(self, core_rates: dict[str, tuple[float, float, float]]) -> None:
        """Intervals of every queued rate, batched, then one registry entry each."""
        jobs, self._rates = self._rates, []
        narrow = narrow_intervals([(j.k, j.n) for j in jobs], self.level)
        wide_jobs = [i for i, j in enumerate(jobs) if j.wide and len(j.k) >= 2]
        wide = dict(
            zip(
                wide_jobs,
                wide_intervals([(jobs[i].k, jobs[i].n) for i in wide_jobs], self.level),
                strict=True,
            )
        )
        for i, (job, iv) in enumerate(zip(jobs, narrow, strict=True)):
            intervals = {"narrow": rate_interval(iv)}
            if i in wide:
                intervals["wide"] = rate_interval(wide[i])
            self.reg.add(
                job.fid,
                job.label,
                "rate",
                iv.estimate,
                precision=RATE_PLACES,
                display=rate_display(iv.estimate),
                method="mean over items of the per-item fail fraction",
                sources=job.sources,
                intervals=intervals,
                detail={
                    "items": len(job.k),
                    "draws": int(job.n.sum()),
                    "failed": int(job.k.sum()),
                },
            )
            if job.core_of is not None:
                core_rates[job.core_of] = (iv.estimate, iv.lo, iv.hi)

    def candidates(self) -> dict[str, tuple[float, float, float]]:
        """Per-candidate figures; returns core rate estimates with narrow bounds."""
        vt = self.tally
        validated = vt.select(status="validated")
        core = validated & vt.select(core=True)
        unvalidated = ~validated
        categories = [c.id for c in self.data.bank.manifest.categories]
        halves = list(self.data.volume.protocol.halves)
        core_rates: dict[str, tuple[float, float, float]] = {}
        for ref in self.data.volume.candidates:
            slug = slugify(ref.api)
            bundle = self.data.bundles[slug]
            t = vt.tallies[slug]
            src = self.sources_for(bundle)
            name = ref.display_name
            p = f"{self.vid}/{slug}"
            self._rate(f"{p}/core_rate", f"Core failure rate of {name}", t, core, src, core_of=slug)
            self._rate(
                f"{p}/full_rate",
                f"Full-bank failure rate of {name} (bank {self.data.volume.bank_version})",
                t,
                validated,
                src,
            )
            if unvalidated.any():
                self._rate(
                    f"{p}/unvalidated_rate",
                    f"Failure rate of {name} on items not yet validated "
                    "(not part of any published rate)",
                    t,
                    unvalidated,
                    src,
                )
            for cat in categories:
                mask = validated & vt.select(category=cat)
                self._rate(
                    f"{p}/category/{cat}/rate",
                    f"Failure rate of {name} on {cat} items",
                    t,
                    mask,
                    src,
                )
            for tier, word in ((0, "tier0"), (1, "judged")):
                mask = validated & vt.select(tier=tier)
                what = "Tier 0 (mechanically checked)" if tier == 0 else "judged (Tier 1)"
                self._rate(
                    f"{p}/{word}_rate", f"Failure rate of {name} on {what} items", t, mask, src
                )
            for half in halves:
                self._rate(
                    f"{p}/half/{half.lower()}/rate",
                    f"Full-bank failure rate of {name}, half {half}",
                    t,
                    validated,
                    src,
                    wide=False,
                    k=t.k_half[half],
                    n=t.n_half[half],
                )
            if len(halves) == 2:
                self._split_half(p, name, t, validated, halves, src)
            self.reg.count(
                f"{p}/lost_draws",
                f"Draws of {name} lost to provider or transport failures",
                t.lost,
                src,
                detail={"draws": t.draws},
            )
            self.reg.count(
                f"{p}/grader_refusals",
                f"Draws of {name} the grader refused to grade (decided by the panel)",
                t.refused,
                src,
                detail={"undecided": t.refused_undecided},
            )
            self._leniency(f"{p}/leniency", f"Grader leniency on {name}", [bundle])
        self._register_rates(core_rates)
        self._register_splits()
        return core_rates

    def _split_half(
        self, p: str, name: str, t: Tally, mask: Mask, halves: list[str], src: list[Source]
    ) -> None:
        a, b = halves
        use = mask & (t.n_half[a] > 0) & (t.n_half[b] > 0)
        if not use.any():
            return
        sides = (t.k_half[a][use], t.n_half[a][use], t.k_half[b][use], t.n_half[b][use])
        label = f"Half {a} minus half {b} full-bank failure rate of {name}"
        self._splits.append(_SplitJob(f"{p}/split_half/difference", label, sides, src))

    def _register_splits(self) -> None:
        """Intervals of every queued split-half difference, batched, then their entries."""
        jobs, self._splits = self._splits, []
        found = narrow_differences([j.sides for j in jobs], paired=True, confidence=self.level)
        for job, iv in zip(jobs, found, strict=True):
            self.reg.add(
                job.fid,
                job.label,
                "difference",
                iv.estimate,
                precision=RATE_PLACES,
                display=points_display(iv.estimate),
                method="difference of item-mean fail fractions, paired by item",
                sources=job.sources,
                intervals={"narrow": difference_interval(iv)},
                detail={"items": len(job.sides[0])},
            )

    # -- jury ----------------------------------------------------------------------------

    def _leniency(self, fid: str, label: str, bundles: list[BundleData]) -> None:
        grader: list[bool] = []
        majority: list[bool] = []
        for bundle in bundles:
            verdicts = {v.key: v.verdict for v in bundle.verdicts}
            stratified = {v.key for v in bundle.panel if v.why == "stratified"}
            for key, decided in panel_majority(bundle).items():
                if (
                    key in stratified
                    and decided is not None
                    and verdicts.get(key) in ("pass", "fail")
                ):
                    grader.append(verdicts[key] == "pass")
                    majority.append(decided == "pass")
        if not grader:
            return
        result = leniency(grader, majority, self.level)
        lo, hi = result.lo, result.hi
        self.reg.add(
            fid,
            label,
            "points",
            result.points,
            precision=PERCENT_PLACES,
            display=f"{signed(result.points, PERCENT_PLACES)} pts",
            method="grader pass share minus panel-majority pass share, stratified panel sample",
            sources=self.sources_for(*bundles),
            intervals={"ci": _points_interval(lo, hi, result.method, self.level)},
            detail={
                "draws": result.n_draws,
                "grader_pass_share": to_decimal_str(result.grader_pass_share, RATE_PLACES),
                "majority_pass_share": to_decimal_str(result.majority_pass_share, RATE_PLACES),
            },
        )

    def jury(self) -> None:
        bundles = [self.data.bundles[slugify(r.api)] for r in self.data.volume.candidates]
        src = self.sources_for(*bundles, extra=("qualification.jsonl",))
        rated = [r for b in bundles for r in rated_draws(self.data, b)]
        floor = str(self.data.volume.thresholds.ac1_floor)
        self._ac1(
            f"{self.vid}/jury/ac1",
            "Panel agreement (Gwet's AC1) over all re-graded draws",
            [r.votes for r in rated],
            src,
            floor,
        )
        for cat in [c.id for c in self.data.bank.manifest.categories]:
            votes = [r.votes for r in rated if r.category == cat]
            self._ac1(
                f"{self.vid}/jury/ac1/category/{cat}",
                f"Panel agreement (AC1) on {cat} draws",
                votes,
                src,
                floor,
            )
        self._leniency(
            f"{self.vid}/jury/leniency", "Grader leniency versus the panel majority", bundles
        )
        whys = [r.why for r in rated]
        for why in ("stratified", "borderline", "grader_refused"):
            self.reg.count(
                f"{self.vid}/jury/sample/{why}",
                f"Draws re-graded by the panel ({why.replace('_', ' ')})",
                whys.count(why),
                src,
            )
        quals = qualification_outcomes(
            (q.record for b in bundles for q in b.qualification),
            self.data.volume.thresholds.max_qualification_refusals,
        )
        for judge, outcome in quals.items():
            self.reg.count(
                f"{self.vid}/jury/{slugify(judge)}/qualification",
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
        self,
        fid: str,
        label: str,
        ratings: list[tuple[str | None, ...]],
        src: list[Source],
        floor: str,
    ) -> None:
        usable = [r for r in ratings if sum(v is not None for v in r) >= 2]
        if len(usable) < 2:
            return
        try:
            result = gwet_ac1(ratings, ["pass", "fail"], self.level)
        except StatsError:
            return
        self.reg.add(
            fid,
            label,
            "agreement",
            result.value,
            precision=AC1_PLACES,
            display=to_decimal_str(result.value, AC1_PLACES),
            method=result.method,
            sources=src,
            intervals={
                "ci": _plain_interval(result.ci_lo, result.ci_hi, result.method, self.level)
            },
            detail={
                "draws": result.n_subjects,
                "raters": result.n_raters,
                "floor": floor,
                "percent_agreement": to_decimal_str(result.percent_agreement, AC1_PLACES),
            },
        )

    # -- ranks, bank health, drift -------------------------------------------------------

    def ranks(self, core: dict[str, tuple[float, float, float]]) -> None:
        slugs = sorted(core)
        if not slugs:
            return
        ranges = rank_ranges(
            [core[s][0] for s in slugs],
            [core[s][1] for s in slugs],
            [core[s][2] for s in slugs],
            slugs,
        )
        for rr in ranges:
            bundle = self.data.bundles[rr.name]
            src = self.sources_for(bundle)
            p = f"{self.vid}/{rr.name}"
            detail = {"of": len(slugs)}
            self.reg.count(
                f"{p}/rank_best",
                "Best rank the core-rate intervals allow",
                rr.best,
                src,
                method=RANK_METHOD,
                detail=detail,
                kind="rank",
            )
            self.reg.count(
                f"{p}/rank_worst",
                "Worst rank the core-rate intervals allow",
                rr.worst,
                src,
                method=RANK_METHOD,
                detail=detail,
                kind="rank",
            )
            self.reg.count(
                f"{p}/tie_group",
                "Tie group (candidates whose intervals overlap share one)",
                rr.tie_group,
                src,
                method=RANK_METHOD,
                kind="rank",
            )

    def bank_health(self) -> None:
        vt = self.tally
        bundles = list(self.data.bundles.values())
        src = self.sources_for(*bundles)
        k = np.sum([t.k for t in vt.tallies.values()], axis=0)
        n = np.sum([t.n for t in vt.tallies.values()], axis=0)
        solved = [m.id for m, ki, ni in zip(vt.items, k, n, strict=True) if ni > 0 and ki == 0]
        unsolved = [m.id for m, ki, ni in zip(vt.items, k, n, strict=True) if ni > 0 and ki == ni]
        self.reg.count(
            f"{self.vid}/bank/retirement_candidates",
            "Items every candidate passed in every draw",
            len(solved),
            src,
            detail={"items": solved},
        )
        self.reg.count(
            f"{self.vid}/bank/unsolved",
            "Items no candidate passed in any draw",
            len(unsolved),
            src,
            detail={"items": unsolved},
        )
        self.reg.count(
            f"{self.vid}/bank/items",
            f"Items of bank {self.data.volume.bank_version}",
            len(vt.items),
            src,
            detail={
                "core": sum(m.core for m in vt.items),
                "validated": sum(m.status == "validated" for m in vt.items),
                "held_out": sum(self.data.bank.is_heldout(m.id) for m in vt.items),
            },
        )

    def across_volumes(self) -> None:
        prev = self.previous
        src_now = self.sources_for(*self.data.bundles.values())
        if prev is None:
            self.reg.count(
                f"{self.vid}/movement/anchors",
                "Anchors of independent families measured in this and the previous volume",
                0,
                src_now,
                detail={"statement": "No previous volume: drift and movement are not defined."},
            )
            return
        prev_tally = tally_volume(prev)
        core_ids = [m.id for m in self.tally.items if m.core and m.status == "validated"]
        core_ids = [i for i in core_ids if i in prev_tally.index]
        now_idx = np.array([self.tally.index[i] for i in core_ids])
        then_idx = np.array([prev_tally.index[i] for i in core_ids])
        anchors = [
            r
            for r in self.data.volume.candidates
            if r.role == "anchor" and slugify(r.api) in prev_tally.tallies
        ]
        families = {self.data.bundles[slugify(r.api)].manifest.candidate.family for r in anchors}
        both = [r for r in self.data.volume.candidates if slugify(r.api) in prev_tally.tallies]
        for ref in anchors:
            self._change(
                f"{self.vid}/drift/{slugify(ref.api)}/core",
                f"Core-rate drift of anchor {ref.display_name} since {prev.volume.id}",
                ref.api,
                prev,
                prev_tally,
                now_idx,
                then_idx,
            )
        pair = f"{prev.volume.id} and {self.vid}"
        if len(families) >= 2:
            statement = (
                f"Movement is published: {len(families)} anchors of independent families "
                f"were measured in {pair}."
            )
        else:
            statement = (
                "Movement is not published: fewer than two anchors of independent families "
                f"were measured in both {pair}, so harness drift cannot be told apart from "
                "model drift."
            )
        self.reg.count(
            f"{self.vid}/movement/anchors",
            "Anchors of independent families measured in this and the previous volume",
            len(families),
            src_now,
            detail={"statement": statement, "previous": prev.volume.id},
        )
        if len(families) < 2:
            return
        for ref in both:
            if ref.role == "anchor":
                continue
            self._change(
                f"{self.vid}/movement/{slugify(ref.api)}/core",
                f"Core-rate movement of {ref.display_name} since {prev.volume.id}",
                ref.api,
                prev,
                prev_tally,
                now_idx,
                then_idx,
            )

    def _change(
        self,
        fid: str,
        label: str,
        api: str,
        prev: VolumeData,
        prev_tally: VolumeTally,
        now_idx: npt.NDArray[np.int64],
        then_idx: npt.NDArray[np.int64],
    ) -> None:
        slug = slugify(api)
        now, then = self.tally.tallies[slug], prev_tally.tallies[slug]
        kn, nn, kt, nt = now.k[now_idx], now.n[now_idx], then.k[then_idx], then.n[then_idx]
        use = (nn > 0) & (nt > 0)
        if use.sum() < 2:
            return
        iv = stats_difference(
            kn[use], nn[use], kt[use], nt[use], paired=True, kind="narrow", confidence=self.level
        )
        src = self.sources_for(self.data.bundles[slug]) + VolumeFigures(prev).sources_for(
            prev.bundles[slug]
        )
        self.reg.add(
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

    def compute(self) -> Registry:
        core = self.candidates()
        self.ranks(core)
        self.jury()
        self.bank_health()
        self.across_volumes()
        return self.reg


def _bounds(lo: float, hi: float, method: str, level: float, places: int, unit: str) -> RegInterval:
    iv = StatsInterval(estimate=(lo + hi) / 2, lo=lo, hi=hi, method=method, confidence=level)
    show = signed if unit else to_decimal_str
    text = f"{show(lo, places)}{unit} to {show(hi, places)}{unit}"
    return interval(iv, places, text)


def _plain_interval(lo: float, hi: float, method: str, level: float) -> RegInterval:
    return _bounds(lo, hi, method, level, AC1_PLACES, "")


def _points_interval(lo: float, hi: float, method: str, level: float) -> RegInterval:
    return _bounds(lo, hi, method, level, PERCENT_PLACES, " pts")
