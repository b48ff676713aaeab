"""Compute every figure of one volume (DESIGN §5) into registry entries."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from generator.figures.absence import rate_absence, split_half_absence
from generator.figures.across import (
    across_volume_figures,
    bank_health_figures,
    rank_figures,
    separations,
)
from generator.figures.anchors import anchor_probe_figures
from generator.figures.builder import (
    RATE_PLACES,
    FigureSet,
    difference_interval,
    points_display,
    rate_display,
    rate_interval,
)
from generator.figures.calibration import HUMAN_REFERENCE, STATUS_KEY, calibration_figures
from generator.figures.computed import Made
from generator.figures.contamination import contamination_figures
from generator.figures.context import FigureContext
from generator.figures.coverage import coverage_figures
from generator.figures.jury import LeniencyAsk, jury_figures, leniency_figures
from generator.figures.rubric import rubric_figures
from generator.figures.tally import Tally
from generator.figures.withheld import withheld, withheld_figures
from generator.figures.wrong import wrong_figures
from generator.forked import Beside, inline
from generator.models.figures import Param, Source
from generator.models.volume import CandidateRef
from generator.stats.differences import narrow_differences
from generator.stats.intervals import narrow_intervals, wide_intervals
from generator.store.volume import VolumeData

Mask = npt.NDArray[np.bool_]


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
    judged: bool = False
    """Whether a judged (Tier 1) item counts toward the rate: it carries the judge status."""


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
    judged: bool = False
    """Whether a judged (Tier 1) item counts toward it: it carries the judge status."""


def _decided(mask: Mask, n: npt.NDArray[np.int64]) -> Mask:
    """The items of ``mask`` with a decided draw: those a rate averages over."""
    return mask & (n > 0)


class VolumeFigures:
    """Computes the figures of one volume; ``previous`` enables drift and movement."""

    def __init__(
        self,
        data: VolumeData,
        previous: VolumeData | None = None,
        cut: Mapping[str, str] | None = None,
    ) -> None:
        self.ctx = FigureContext(data, previous, cut=cut)
        self.data = data
        self.vid = self.ctx.vid
        self.level = self.ctx.level
        self.reg = self.ctx.reg
        self.tally = self.ctx.tally
        self.sources_for = self.ctx.sources_for
        self._rates: list[_RateJob] = []
        self._splits: list[_SplitJob] = []
        self._lenient: list[LeniencyAsk] = []  # each candidate's, computed in one batch
        self._withheld: set[str] = set()
        """Categories whose per-category rates are withheld (below the minimum)."""
        self._absent: list[str] = []
        """Rates with no item to average over (e.g. Tier 0 of a bank without Tier 0 items)."""
        self.judge_status = ""
        """``judge-calibrated`` or ``judge-unvalidated`` (set by ``compute``)."""
        self.core_counts: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}
        """Per candidate slug, fail counts and usable draws of every validated core item
        (one shared item list): the paired comparisons of the rank ranges use them."""

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
        use = _decided(mask, n_all)
        if not use.any():
            self._absent.append(fid)
            return
        judged = bool((use & self.tally.select(tier=1)).any())
        job = _RateJob(fid, label, k_all[use], n_all[use], wide, sources, core_of, judged)
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
            detail: dict[str, Param] = {
                "items": len(job.k),
                "draws": int(job.n.sum()),
                "failed": int(job.k.sum()),
            }
            if job.judged and self.judge_status != HUMAN_REFERENCE:
                detail[STATUS_KEY] = self.judge_status
            if i in wide:
                intervals["wide"] = rate_interval(wide[i])
            elif job.wide:  # said only where a wide interval was wanted but cannot be given
                detail["wide_absent"] = (
                    "one item: the spread between items, which the wide interval needs, "
                    "cannot be estimated"
                )
            self.reg.add(
                job.fid,
                job.label,
                "rate",
                iv.estimate,
                precision=RATE_PLACES,
                display=rate_display(iv.estimate),
                method="mean over items of the per-item fail fraction; reference rater set: "
                + self.data.volume.scoring_or_default().reference,
                sources=job.sources,
                intervals=intervals,
                detail=detail,
            )
            if job.core_of is not None:
                core_rates[job.core_of] = (iv.estimate, iv.lo, iv.hi)

    def _core_counts(self, ranked: set[str]) -> list[str]:
        """Every candidate's counts on the validated core items (``core_counts``); the
        ranked candidates that have a core rate (an item with a decided draw), sorted."""
        vt = self.tally
        core = vt.select(status="validated") & vt.select(core=True)
        for ref in self.data.volume.candidates:
            t = vt.tallies[ref.slug]
            self.core_counts[ref.slug] = (t.k[core], t.n[core])
        return sorted(s for s in ranked if _decided(core, vt.tallies[s].n).any())

    def _queue_candidates(self) -> None:
        """Per-candidate counts registered, their rates queued (``_register_candidates``)."""
        found = withheld(self.ctx)
        self._withheld = {w.category for w in found}
        withheld_figures(self.ctx, found)
        for ref in self.data.volume.candidates:
            self._candidate(ref)
        leniency_figures(self.ctx, self._lenient)

    def _register_candidates(self) -> dict[str, tuple[float, float, float]]:
        """The queued per-candidate figures; returns core rate estimates with narrow
        bounds."""
        core_rates: dict[str, tuple[float, float, float]] = {}
        self._register_rates(core_rates)
        self._register_splits()
        split_half_absence(self.ctx)
        rate_absence(self.ctx, self._absent)
        return core_rates

    def _candidate(self, ref: CandidateRef) -> None:
        """Queue the rates of one candidate and register its counts."""
        vt = self.tally
        validated = vt.select(status="validated")
        full = validated & vt.in_full_bank()  # a retired core item stays in the core rate only
        slug = ref.slug
        bundle = self.data.bundles[slug]
        t = vt.tallies[slug]
        src = self.sources_for(bundle)
        name = ref.display_name
        p = f"{self.vid}/{slug}"
        core = validated & vt.select(core=True)
        self._rate(f"{p}/core_rate", f"Core failure rate of {name}", t, core, src, core_of=slug)
        self._rate(
            f"{p}/full_rate",
            f"Full-bank failure rate of {name} (bank {self.data.volume.bank_version})",
            t,
            full,
            src,
        )
        unvalidated = ~validated & vt.in_full_bank()
        if unvalidated.any():
            self._rate(
                f"{p}/unvalidated_rate",
                f"Failure rate of {name} on items not yet validated "
                "(not part of any published rate)",
                t,
                unvalidated,
                src,
            )
        self._breakdowns(p, name, t, full, src)
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
        coverage_figures(self.ctx, p, name, bundle)
        self._reference_counts(p, name, t, src)
        self._lenient.append(LeniencyAsk(f"{p}/leniency", f"Grader leniency on {name}", [bundle]))

    def _reference_counts(self, p: str, name: str, t: Tally, src: list[Source]) -> None:
        """Judged draws the reference rater set left undecided (registered only when the
        reference is not the grader, whose undecided draws ``grader_refusals`` counts)."""
        scoring = self.data.volume.scoring_or_default()
        if scoring.reference == "grader":
            return
        self.reg.count(
            f"{p}/reference_undecided",
            f"Judged draws of {name} the reference rater set ({scoring.reference}) did not "
            "decide (counted toward no rate)",
            t.undecided,
            src,
            detail={"reference": scoring.reference, "draws": t.draws},
        )

    def _breakdowns(self, p: str, name: str, t: Tally, validated: Mask, src: list[Source]) -> None:
        """Queue one candidate's rates per category, per tier and per half."""
        vt = self.tally
        for cat in [c.id for c in self.data.bank.manifest.categories]:
            if cat in self._withheld:  # below the minimum: declared absent, with why
                continue
            mask = validated & vt.select(category=cat)
            self._rate(
                f"{p}/category/{cat}/rate", f"Failure rate of {name} on {cat} items", t, mask, src
            )
        for tier, word in ((0, "tier0"), (1, "judged")):
            mask = validated & vt.select(tier=tier)
            what = "Tier 0 (mechanically checked)" if tier == 0 else "judged (Tier 1)"
            self._rate(f"{p}/{word}_rate", f"Failure rate of {name} on {what} items", t, mask, src)
        halves = list(self.data.volume.protocol.halves)
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

    def _split_half(
        self, p: str, name: str, t: Tally, mask: Mask, halves: list[str], src: list[Source]
    ) -> None:
        a, b = halves
        use = mask & (t.n_half[a] > 0) & (t.n_half[b] > 0)
        if not use.any():
            return
        sides = (t.k_half[a][use], t.n_half[a][use], t.k_half[b][use], t.n_half[b][use])
        label = f"Half {a} minus half {b} full-bank failure rate of {name}"
        judged = bool((use & self.tally.select(tier=1)).any())
        job = _SplitJob(f"{p}/split_half/difference", label, sides, src, judged)
        self._splits.append(job)

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
                detail={
                    "items": len(job.sides[0]),
                    **(
                        {STATUS_KEY: self.judge_status}
                        if job.judged and self.judge_status != HUMAN_REFERENCE
                        else {}
                    ),
                },
            )

    def _core_judge(self, core: dict[str, tuple[float, float, float]]) -> str | None:
        """The calibration status the core rates carry (None: no model judge decides any)."""
        for slug in sorted(core):
            figure = self.reg.figures.get(f"{self.ctx.vid}/{slug}/core_rate")
            status = figure.detail.get(STATUS_KEY) if figure is not None else None
            if isinstance(status, str):
                return status
        return None

    def compute(self, beside: Beside = inline) -> FigureSet:
        """Every figure of the volume (in id order once sorted).

        The per-candidate figures and the ranks are registered here; ``beside``
        (``generator.forked.forked``: in other processes) the paired comparisons of the
        ranks, which need the core counts only, and the other figures, which need only
        the tallies and the calibration status. Each figure is computed once, then added
        to the registry as if registered here."""
        self.judge_status = calibration_figures(self.ctx)
        with beside(self._others, "the jury, wrong-answer and contamination figures") as others:
            # Baselines get every figure but a rank: they are never ranked (issue 16).
            ranked = {ref.slug for ref in self.data.volume.ranked()}
            rated = self._core_counts(ranked)
            paired = partial(separations, self.ctx, rated, self.core_counts)
            with beside(paired, "the paired rank comparisons") as separated:
                self._queue_candidates()
                core = self._register_candidates()
                ranked_core = {s: v for s, v in core.items() if s in ranked}
                if sorted(ranked_core) != rated:  # the same rule decided both
                    raise AssertionError(f"ranked {sorted(ranked_core)}, compared {rated}")
                judge = self._core_judge(ranked_core)
                rank_figures(self.ctx, ranked_core, separated.result, judge)
            made = others.result()
        self.reg.extend(made)
        return self.reg

    def _others(self) -> list[Made]:
        """The figures that need no per-candidate rate, in a registry of their own."""
        ctx = copy.copy(self.ctx)  # the same data, tallies and sources
        ctx.reg = FigureSet()
        rubric_figures(ctx)
        wrong_figures(ctx, self.judge_status)
        contamination_figures(ctx, self.judge_status)
        jury_figures(ctx)
        anchor_probe_figures(ctx)
        bank_health_figures(ctx)
        across_volume_figures(ctx)
        return ctx.reg.made()
