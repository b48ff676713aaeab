"""A checked calibration as the ``agreement`` gate reports it: findings and notes."""

from __future__ import annotations

from generator.calibration.check import UNVALIDATED_WHY, Calibration
from generator.calibration.rule import mean_statistic
from generator.errors import Problem


def findings(cal: Calibration, volume_file: str) -> list[Problem]:
    """Every problem of the sample, then every refusal of a judge (located at the volume
    file, where the rule is declared)."""
    out = list(cal.problems)
    if cal.decision is None:
        return out
    for refusal in cal.decision.refusals:
        out.append(
            Problem(
                volume_file,
                None,
                f"calibration-{refusal.rule}",
                refusal.message,
                f"judge {refusal.judge} is refused on {refusal.criterion} units: improve its "
                "grading instructions and calibrate again under a new volume, or seat another",
            )
        )
    return out


def _fmt(x: float | None) -> str:
    return "undefined" if x is None else f"{x:.3f}"


def notes(cal: Calibration) -> list[str]:
    """One line per criterion type and judge, and the decision; or why there is none."""
    if cal.declared is None:
        return [UNVALIDATED_WHY]
    out: list[str] = []
    for c in cal.results:
        humans = _fmt(mean_statistic(c.humans, "kappa"))
        for j in c.judges:
            k = j.consensus
            out.append(
                f"calibration {c.criterion}: {j.judge} κ vs human consensus "
                f"{_fmt(k.value if k else None)}, agreement {_fmt(k.observed if k else None)}, "
                f"false-accept {_fmt(j.errors.false_accept.value)}, false-reject "
                f"{_fmt(j.errors.false_reject.value)}; mean κ with each human "
                f"{_fmt(mean_statistic(j.humans, 'kappa'))}, humans with each other {humans} "
                f"({c.units} units)"
            )
    if len(cal.versions) > 1:
        for v in cal.versions:
            accepted = ", ".join(v.decision.accepted) or "none"
            refused = ", ".join(v.decision.refused) or "none"
            out.append(
                f"calibration rule on bank {v.version} items ({v.units} units): accepted "
                f"{accepted}; refused {refused}"
            )
    if cal.decision is not None:
        accepted = ", ".join(cal.decision.accepted) or "none"
        refused = ", ".join(cal.decision.refused) or "none"
        out.append(f"calibration rule: accepted {accepted}; refused {refused}")
    return out
