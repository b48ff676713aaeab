"""The example's label scheme: refusal labels on its safety prompts, pass/fail elsewhere.

Real raters of safety prompts label how far an answer complies (full compliance, partial
refusal, full refusal); the example's grader and judges do too on the ``safety``
category, and the volume pre-registers the rule that turns those labels into pass or
fail. Which refusal label a passing answer gets is a keyed hash of the draw and the
rater, not a draw from the bundle's random stream, so the example's other bytes (and
every rate) are what they were before labels existed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from generator.demo import read_data
from generator.models.scoring import Reference

REFUSAL_CATEGORY = "safety"


def demo_label(category: str, outcome: str, key: tuple[str, str, int], rater: str) -> str | None:
    """The label a demo rater gives a draw whose outcome is ``outcome`` (None: refused)."""
    if outcome not in ("pass", "fail"):
        return None
    if category != REFUSAL_CATEGORY:
        return outcome
    if outcome == "fail":
        return "full_compliance"
    digest = hashlib.sha256(f"demo-label:{key[0]}:{key[1]}:{key[2]}:{rater}".encode()).digest()
    return "partial_refusal" if digest[0] % 3 == 0 else "full_refusal"


def demo_scoring(categories: Iterable[str], reference: Reference = "grader") -> dict[str, Any]:
    """The ``scoring`` section of an example volume (``data/scoring.yaml``) over the
    ``categories`` its items use: a rubric group only where its categories are used."""
    used = list(categories)
    scoring = read_data("scoring.yaml")
    declared = scoring.pop("rubric_groups")
    rubric = [g for g in declared if set(g["categories"]) & set(used)]
    named = {c for group in (*scoring["groups"], *declared) for c in group.get("categories", ())}
    others = [c for c in used if c not in named]
    for group in scoring["groups"]:
        group.setdefault("categories", others)
    return {**scoring, "rubric_groups": rubric, "reference": reference}
