"""How a rater's own label becomes a pass or a fail, on import.

When the volume declares ``scoring`` (a label set and item groups with their rules), the
label is read by that pre-registered rule: the verdict or vote keeps the rater's label as
given and its pass/fail is what the rule of the item's group derives from it
(``generator.scoring.label_rules``), exactly as the preflight gate re-derives it. Without
a declared label set, the maintainer states on the command line which labels mean pass,
fail or a refusal (``--pass-label 0 --fail-label 1`` for 0/1 data) and the label is the
verdict. ``Scorer`` is the one place either happens; the two are never mixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, cast

from generator.errors import UsageError
from generator.models.bank import ItemMeta
from generator.models.volume import Volume
from generator.scoring import LabelRules, label_rules

Outcome = Literal["pass", "fail", "refused"]


@dataclass(frozen=True)
class LabelMap:
    """Which labels mean pass, fail, or that the rater declined to grade."""

    passing: frozenset[str] = frozenset({"pass"})
    """Labels that mean the draw passes."""
    failing: frozenset[str] = frozenset({"fail"})
    """Labels that mean the draw fails."""
    refused: frozenset[str] = frozenset({"refused", "grader_refused"})
    """Labels that mean the rater declined to grade (its safety filter refused)."""

    @classmethod
    def of(
        cls,
        passing: tuple[str, ...] = (),
        failing: tuple[str, ...] = (),
        refused: tuple[str, ...] = (),
    ) -> LabelMap:
        """From ``--pass-label``/``--fail-label``/``--refused-label`` options (each
        repeatable); an empty one keeps its default.

        Raises:
            UsageError: One label is given two meanings.
        """
        default = cls()
        chosen = cls(
            frozenset(passing) or default.passing,
            frozenset(failing) or default.failing,
            frozenset(refused) or default.refused,
        )
        both = (
            (chosen.passing & chosen.failing)
            | (chosen.passing & chosen.refused)
            | (chosen.failing & chosen.refused)
        )
        if both:
            raise UsageError(f"labels given two meanings: {', '.join(sorted(both))}")
        return chosen

    def describe(self) -> str:
        """The mapping in words, for messages."""
        return (
            f"pass: {', '.join(sorted(self.passing))}; fail: {', '.join(sorted(self.failing))}; "
            f"refused: {', '.join(sorted(self.refused))}"
        )


def label_outcome(label: str, labels: LabelMap) -> Outcome | None:
    """``pass``, ``fail`` or ``refused`` for a rater's ``label``; None when the map does
    not know it (the importer reports the row)."""
    text = label.strip()
    if text in labels.passing:
        return "pass"
    if text in labels.failing:
        return "fail"
    if text in labels.refused:
        return "refused"
    return None


class LabelError(ValueError):
    """A label the volume's rule or the command line's map cannot read (the message says
    which and why)."""


@dataclass(frozen=True)
class Reading:
    """What one rater's label on one draw stands for."""

    outcome: Outcome
    """``pass``, ``fail`` or ``refused`` (the rater declined)."""
    label: str | None
    """The label to keep in the verdict or vote (None: no label set declared, the
    outcome is the label)."""


@dataclass(frozen=True)
class Scorer:
    """Reads every rater's label of one import: by the volume's declared rule, or by the
    command line's map when the volume declares no label set."""

    rules: LabelRules | None
    """The volume's label rules over the bank's items (None: no label set declared)."""
    labels: LabelMap
    """The command line's map (used only without declared rules)."""

    @classmethod
    def of(cls, volume: Volume, items: Iterable[ItemMeta], labels: LabelMap | None) -> Scorer:
        """The scorer of ``volume``.

        Raises:
            UsageError: The volume declares its label rules and label options were given
                too (the pre-registered rule alone says what a label means).
        """
        scoring = volume.scoring
        if scoring is None or scoring.labels is None:
            return cls(None, labels or LabelMap())
        if labels is not None:
            raise UsageError(
                f"{volume.id} declares its label set and rules (scoring in volume.yaml): "
                "what a label means is pre-registered there; drop --pass-label, "
                "--fail-label and --refused-label"
            )
        return cls(label_rules(volume, items), LabelMap())

    def read(self, item: str, rater: str, label: str) -> Reading:
        """What ``rater``'s ``label`` on ``item`` stands for.

        Raises:
            LabelError: The label is not in the declared label set, the item is in no
                single item group, or its group's rule does not map the label; without
                declared rules, the map does not know the label.
        """
        rules = self.rules
        if rules is None:
            outcome = label_outcome(label, self.labels)
            if outcome is None:
                raise LabelError(
                    f"label:{rater} is {label!r}, which --pass-label/--fail-label/"
                    f"--refused-label do not map ({self.labels.describe()})"
                )
            return Reading(outcome, None)
        if label not in rules.labels:
            raise LabelError(
                f"label:{rater} is {label!r}, not in the volume's scoring.labels "
                f"({', '.join(rules.labels)})"
            )
        group = rules.group_of.get(item)
        if group is None:
            raise LabelError(
                f"item {item} is in no single item group of scoring.groups, so no "
                "pre-registered rule derives pass or fail from its labels"
            )
        derived = rules.outcome(item, label)
        if derived is None:
            raise LabelError(
                f"label:{rater} is {label!r}, which the rule of item group {group} does not map"
            )
        return Reading(cast(Outcome, derived), label)
