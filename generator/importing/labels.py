"""How a rater's own label becomes a pass or a fail, on import.

Today's verdict and panel formats hold ``pass``/``fail`` (and a refusal to grade), so the
importer maps each label through ``label_outcome`` with a ``LabelMap`` the maintainer
states on the command line (``--pass-label 0 --fail-label 1`` for 0/1 data). This is the
one place that mapping happens: it is meant to be replaced by the volume's declared,
pre-registered label rule, which keeps the rater's own label in the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from generator.errors import UsageError

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
