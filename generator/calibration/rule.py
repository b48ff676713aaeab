"""The pre-registered acceptance rule of a calibrated judge.

Default (DESIGN §12): on pass/fail items and must-include lines the judge's Cohen's κ
against the human consensus reaches 0.6; on must-not lines the judge agrees with each
human at least as well, on average, as the humans agree with each other. A judge that
breaks any part on any criterion type is refused, with the type and the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from generator.calibration.agreement import CriterionAgreement, JudgeAgreement, Pair
from generator.models.calibration import CalibrationRule


@dataclass(frozen=True)
class Refusal:
    """Why one judge is refused on one criterion type."""

    judge: str
    criterion: str
    rule: str
    """``kappa-floor`` or ``not-worse-than-humans``."""
    message: str
    version: str | None = None
    """The bank version whose units broke the rule, when the sample spans several."""


@dataclass(frozen=True)
class Decision:
    """The rule applied to every judge: who is accepted, and every refusal."""

    accepted: tuple[str, ...]
    refused: tuple[str, ...]
    refusals: tuple[Refusal, ...]


def _n(x: float | None) -> str:
    return "undefined" if x is None else f"{x:.4f}"


def _kappa_floor(rule: CalibrationRule, c: CriterionAgreement, j: JudgeAgreement) -> str | None:
    floor = float(rule.kappa_floor)
    k = j.consensus
    if k is not None and k.value is not None and k.value >= floor:
        return None
    if k is None:
        return (
            f"judge {j.judge} on {c.criterion} units: no unit has both its grade and a human "
            f"consensus, so Cohen's κ cannot reach the pre-registered {rule.kappa_floor}"
        )
    level = f"{k.confidence:.0%}"
    ci = "" if k.ci_lo is None else f" ({level} CI {k.ci_lo:.4f}..{k.ci_hi:.4f})"
    return (
        f"judge {j.judge} on {c.criterion} units: Cohen's κ against the human consensus = "
        f"{_n(k.value)}{ci}, observed agreement {k.observed:.4f}, over {k.n} units, is below "
        f"the pre-registered {rule.kappa_floor}"
    )


def pair_statistic(pair: Pair, statistic: str) -> float | None:
    """κ or observed agreement of a pair (None when it has no units or κ is undefined)."""
    if pair.kappa is None:
        return None
    return pair.kappa.value if statistic == "kappa" else pair.kappa.observed


def mean_statistic(pairs: Sequence[Pair], statistic: str) -> float | None:
    """Mean over the pairs where the statistic is defined (None when it is nowhere)."""
    values = [v for v in (pair_statistic(p, statistic) for p in pairs) if v is not None]
    return fmean(values) if values else None


def _not_worse(rule: CalibrationRule, c: CriterionAgreement, j: JudgeAgreement) -> str | None:
    stat = rule.not_worse_statistic
    word = "Cohen's κ" if stat == "kappa" else "observed agreement"
    judge, humans = mean_statistic(j.humans, stat), mean_statistic(c.humans, stat)
    if judge is not None and humans is not None and judge >= humans:
        return None
    return (
        f"judge {j.judge} on {c.criterion} units: mean {word} with each human = {_n(judge)} "
        f"is below the humans' mean {word} with each other = {_n(humans)} "
        f"({c.units} units); the pre-registered rule asks at least as good"
    )


def decide(
    results: Sequence[CriterionAgreement], rule: CalibrationRule, judges: Sequence[str]
) -> Decision:
    """Apply ``rule`` to every judge on every criterion type it names."""
    refusals: list[Refusal] = []
    for c in results:
        for j in c.judges:
            if c.criterion in rule.kappa_floor_on:
                why = _kappa_floor(rule, c, j)
                if why is not None:
                    refusals.append(Refusal(j.judge, c.criterion, "kappa-floor", why))
            if c.criterion in rule.not_worse_on:
                why = _not_worse(rule, c, j)
                if why is not None:
                    refusals.append(Refusal(j.judge, c.criterion, "not-worse-than-humans", why))
    refused = {r.judge for r in refusals}
    return Decision(
        accepted=tuple(j for j in judges if j not in refused),
        refused=tuple(j for j in judges if j in refused),
        refusals=tuple(refusals),
    )
