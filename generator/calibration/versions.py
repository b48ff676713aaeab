"""The acceptance rule for each dataset version (issue 15: "the default, for each dataset
version").

A unit belongs to the bank version that added its item (``added_in``). When a sample
spans several versions, each version's units are judged on their own: a judge that grades
the old items well and the items a new version added badly must not pass on numbers
pooled over both. A judge refused in any version is refused, and the refusal names the
version. A sample of one version is judged as a whole, exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from generator.calibration.agreement import CriterionAgreement, by_criterion
from generator.calibration.rule import Decision, Refusal, decide
from generator.models.calibration import CalibrationRecord, CalibrationRule


@dataclass(frozen=True)
class VersionResult:
    """The rule applied to the units of the items one bank version added.

    Attributes:
        version: The bank version.
        units: Its units.
        results: Agreement per criterion type on those units.
        decision: The rule applied to every judge on them.
    """

    version: str
    units: int
    results: tuple[CriterionAgreement, ...]
    decision: Decision


def split(
    records: Sequence[CalibrationRecord], version_of: Mapping[str, str], order: Sequence[str]
) -> dict[str, list[CalibrationRecord]]:
    """The units by the version that added their item, versions in ``order`` (an item of
    no known version goes with the last: the design check names it)."""
    groups: dict[str, list[CalibrationRecord]] = {}
    for record in records:
        groups.setdefault(version_of.get(record.item, order[-1]), []).append(record)
    rank = {v: n for n, v in enumerate(order)}
    return {v: groups[v] for v in sorted(groups, key=lambda v: rank.get(v, len(rank)))}


def by_version(
    records: Sequence[CalibrationRecord],
    version_of: Mapping[str, str],
    order: Sequence[str],
    rule: CalibrationRule,
    humans: Sequence[str],
    judges: Sequence[str],
    confidence: float = 0.95,
) -> tuple[VersionResult, ...]:
    """The rule applied to each version's units (one result for a one-version sample)."""
    out = []
    for version, units in split(records, version_of, order).items():
        results = tuple(by_criterion(units, humans, judges, confidence))
        out.append(VersionResult(version, len(units), results, decide(results, rule, judges)))
    return tuple(out)


def _named(refusal: Refusal, version: VersionResult) -> Refusal:
    message = f"bank {version.version} items ({version.units} units): {refusal.message}"
    return replace(refusal, version=version.version, message=message)


def combined(versions: Sequence[VersionResult], judges: Sequence[str]) -> Decision:
    """Every version's refusals (each naming its version when there are several); a judge
    refused in any version is refused."""
    if len(versions) == 1:
        return versions[0].decision
    refusals = tuple(_named(r, v) for v in versions for r in v.decision.refusals)
    refused = {r.judge for r in refusals}
    return Decision(
        accepted=tuple(j for j in judges if j not in refused),
        refused=tuple(j for j in judges if j in refused),
        refusals=refusals,
    )
