"""The calibration figures: the judge against the humans, per criterion type (DESIGN §12).

``<volume>/calibration/draws`` is always registered: the calibrated draws, with the
volume's status (``judge-calibrated`` or ``judge-unvalidated`` and why) that every judged
number carries in its ``detail["judge"]``. With a calibration set, per criterion type and
judge: κ against the human consensus (``…/kappa``), the false-accept and false-reject
rates, the mean κ with each human; and the humans' mean κ with each other.
"""

from __future__ import annotations

from generator.calibration.agreement import CriterionAgreement, JudgeAgreement
from generator.calibration.check import UNVALIDATED_WHY, Calibration, calibrate
from generator.calibration.rule import mean_statistic
from generator.figures.builder import RATE_PLACES, interval, rate_display
from generator.figures.context import FigureContext
from generator.models.base import slugify
from generator.models.figures import Source
from generator.scoring import reference_is_human
from generator.stats import Interval as StatsInterval
from generator.stats import to_decimal_str
from generator.stats.kappa import Share

KAPPA_PLACES = 4
STATUS_KEY = "judge"
"""The ``detail`` key of every judged number that carries the calibration status."""
HUMAN_REFERENCE = "human-reference"
"""The status when only humans decide the judged draws the rates count
(``generator.scoring.reference_is_human``): no judged number then carries a judge status."""
HUMAN_REFERENCE_WHY = (
    "the published rates come from human raters (the volume's reference rater set), so no "
    "model judge decides them"
)
ABSENT_WHY = (
    "A judge's false-accept (false-reject) rate is absent when the human consensus rejected "
    "(accepted) no unit of its criterion type, so there is nothing to compare it on."
)
"""Why a calibration error rate is absent (stated on the pages that ask for it)."""


def calibration_sources(ctx: FigureContext, cal: Calibration) -> list[Source]:
    """The volume's files, every bundle's verdicts and the calibration records."""
    bundles = [ctx.data.bundles[c.slug] for c in ctx.data.volume.candidates]
    sources = ctx.sources_for(*bundles)
    records = ctx.data.layout.root / cal.path if cal.path else None
    if records is not None and records.is_file() and not records.is_symlink():
        # A missing or unsafe records file is the agreement gate's finding, not a source.
        sources = ctx.cache.sources([ctx.data.layout.root / s.path for s in sources] + [records])
    return sources


def _kappa(
    ctx: FigureContext,
    fid: str,
    label: str,
    c: CriterionAgreement,
    j: JudgeAgreement,
    cal: Calibration,
    src: list[Source],
) -> None:
    k = j.consensus
    if k is None or k.value is None or k.ci_lo is None or k.ci_hi is None:
        return
    iv = StatsInterval(
        estimate=k.value, lo=k.ci_lo, hi=k.ci_hi, method=k.method, confidence=ctx.level
    )
    shown = f"{to_decimal_str(k.ci_lo, KAPPA_PLACES)} to {to_decimal_str(k.ci_hi, KAPPA_PLACES)}"
    decision = cal.decision
    ctx.reg.add(
        fid,
        label,
        "agreement",
        k.value,
        precision=KAPPA_PLACES,
        display=to_decimal_str(k.value, KAPPA_PLACES),
        method=k.method,
        sources=src,
        intervals={"ci": interval(iv, KAPPA_PLACES, shown)},
        detail={
            "criterion": c.criterion,
            "judge": j.judge,
            "units": k.n,
            "no_consensus": c.no_consensus,
            "agreement": to_decimal_str(k.observed, KAPPA_PLACES),
            "ac1": "" if j.ac1 is None else to_decimal_str(j.ac1.value, KAPPA_PLACES),
            "judge_humans_kappa": _dec(mean_statistic(j.humans, "kappa")),
            "humans_kappa": _dec(mean_statistic(c.humans, "kappa")),
            "accepted": decision is not None and j.judge in decision.accepted,
        },
    )


def _dec(x: float | None) -> str:
    return "" if x is None else to_decimal_str(x, KAPPA_PLACES)


def _share(ctx: FigureContext, fid: str, label: str, s: Share, src: list[Source]) -> bool:
    """Register the share; False when it has no units (the figure is then absent)."""
    if s.value is None or s.lo is None or s.hi is None:
        return False
    iv = StatsInterval(estimate=s.value, lo=s.lo, hi=s.hi, method=s.method, confidence=ctx.level)
    ctx.reg.add(
        fid,
        label,
        "share",
        s.value,
        precision=RATE_PLACES,
        display=rate_display(s.value),
        method=f"{s.k} of {s.n} units the human consensus decided the other way",
        sources=src,
        intervals={"ci": interval(iv, RATE_PLACES, f"{rate_display(s.lo)}–{rate_display(s.hi)}")},
        detail={"errors": s.k, "units": s.n},
    )
    return True


def _criterion(
    ctx: FigureContext,
    c: CriterionAgreement,
    cal: Calibration,
    src: list[Source],
    absent: list[str],
) -> list[str]:
    """One criterion type's figures; returns the ids of its κ figures and adds the ids of
    error rates without units (no consensus the other way) to ``absent``."""
    ids: list[str] = []
    base = f"{ctx.vid}/calibration/{c.criterion}"
    for j in c.judges:
        p = f"{base}/{slugify(j.judge)}"
        what = f"{j.judge} on {c.criterion} units"
        label = f"Cohen's κ of {what} against the human consensus"
        _kappa(ctx, f"{p}/kappa", label, c, j, cal, src)
        if f"{p}/kappa" in ctx.reg.figures:
            ids.append(f"{p}/kappa")
        for name, rate in (
            ("false_accept", j.errors.false_accept),
            ("false_reject", j.errors.false_reject),
        ):
            words = name.replace("_", "-").capitalize()
            if not _share(ctx, f"{p}/{name}", f"{words} rate of {what}", rate, src):
                absent.append(f"{p}/{name}")
    return ids


def calibration_figures(ctx: FigureContext) -> str:
    """Register the calibration figures; return the status every judged number carries."""
    cal = calibrate(ctx.data)
    src = calibration_sources(ctx, cal)
    absent: list[str] = []
    ids = [fid for c in cal.results for fid in _criterion(ctx, c, cal, src, absent)]
    status = HUMAN_REFERENCE if reference_is_human(ctx.data.volume) else cal.label
    draws = {(r.candidate, r.item, r.half, r.draw) for _, r in cal.records}
    statement = (
        HUMAN_REFERENCE_WHY
        if status == HUMAN_REFERENCE and cal.declared is None
        else UNVALIDATED_WHY
        if cal.declared is None
        else f"{len(draws)} draws were graded independently by "
        f"{len(cal.declared.humans)} humans; the calibrated judges were "
        f"{'accepted' if status != 'judge-unvalidated' else 'not all accepted'} under the "
        "pre-registered rule"
    )
    ctx.reg.count(
        f"{ctx.vid}/calibration/draws",
        "Draws in the judge calibration set, graded independently by humans",
        len(draws),
        src,
        detail={
            "status": status,
            "statement": statement,
            "figures": ids,
            "absent": absent,
            **({"absent_statement": ABSENT_WHY} if absent else {}),
        },
    )
    return status
