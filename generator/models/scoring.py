"""How a volume scores: the raters' label set, the pre-registered rule that derives pass or
fail from a label per item group, and the rater set the published rates come from
(``scoring:`` in ``volume.yaml``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from generator.models.base import ItemId, Part, Slug

Label = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9])?$")
]
"""A rater's label as the rater gave it: ``full_refusal``, ``0``, ``partial-compliance`` …"""

Outcome = Literal["pass", "fail", "refused"]
"""What a label counts as: a pass, a fail, or not a verdict (``refused``: the rater
declined; a grader's becomes ``grader_refused``, a judge's a ``refused`` vote)."""

Reference = Literal["grader", "panel-majority", "adjudication"]
"""The rater set the published rates come from."""

DEFAULT_LABELS = ("pass", "fail")
"""The label set of a volume that declares none: the label is the verdict itself."""

REFERENCES: tuple[Reference, ...] = ("grader", "panel-majority", "adjudication")


class ItemGroup(Part):
    """Items scored by one rule: by category, or by an explicit list of item ids."""

    id: Slug
    """Group id, e.g. ``safe-prompts`` (named in findings and on pages)."""
    description: Annotated[str, Field(max_length=500)] | None = None
    """What the group is and why its rule is what it is (shown on the methodology page)."""
    categories: list[Slug] = Field(default=[], max_length=200)
    """Every item of these bank categories belongs to the group."""
    items: list[ItemId] = Field(default=[], max_length=100_000)
    """These items belong to the group (instead of ``categories``)."""
    rule: dict[Label, Outcome] = Field(min_length=1)
    """Label → ``pass``, ``fail`` or ``refused``; a label the rule does not map is not
    allowed on this group's items."""

    @model_validator(mode="after")
    def _members(self) -> ItemGroup:
        if bool(self.categories) == bool(self.items):
            raise ValueError("an item group lists either categories or items (exactly one)")
        for name, values in (("categories", self.categories), ("items", self.items)):
            twice = sorted({v for v in values if values.count(v) > 1})
            if twice:
                raise ValueError(f"{name} listed twice: {', '.join(twice)}")
        return self


DEFAULT_CORE_WEIGHT = Decimal("0.8")
DEFAULT_DEPTH_WEIGHT = Decimal("0.2")


class RubricGroup(Part):
    """Items scored by their rubric, and the pre-registered profile that scores them.

    Per graded draw: ``safety_pass`` = no ``must_not_include`` line met; ``core`` = share
    of ``must_include`` lines met; ``depth`` = share of ``should_include`` lines met;
    ``item_score`` = 0 when safety failed, else ``core_weight × core + depth_weight ×
    depth`` (an item without ``should_include`` lines scores ``core``). Scores are higher
    for better answers and are published apart from pass/fail failure rates.
    """

    id: Slug
    """Group id, e.g. ``medical-advice`` (named on pages and in figure ids)."""
    description: Annotated[str, Field(max_length=500)] | None = None
    """What the group is (shown on the methodology page)."""
    categories: list[Slug] = Field(default=[], max_length=200)
    """Every item of these bank categories belongs to the group."""
    items: list[ItemId] = Field(default=[], max_length=100_000)
    """These items belong to the group (instead of ``categories``)."""
    core_weight: Decimal = Field(default=DEFAULT_CORE_WEIGHT, ge=0, le=1)
    """Weight of ``core`` in the item score (default 0.8)."""
    depth_weight: Decimal = Field(default=DEFAULT_DEPTH_WEIGHT, ge=0, le=1)
    """Weight of ``depth`` in the item score (default 0.2); the two weights sum to 1."""

    @model_validator(mode="after")
    def _members(self) -> RubricGroup:
        if bool(self.categories) == bool(self.items):
            raise ValueError("a rubric group lists either categories or items (exactly one)")
        for name, values in (("categories", self.categories), ("items", self.items)):
            twice = sorted({v for v in values if values.count(v) > 1})
            if twice:
                raise ValueError(f"{name} listed twice: {', '.join(twice)}")
        if self.core_weight + self.depth_weight != 1:
            raise ValueError(
                f"core_weight {self.core_weight} and depth_weight {self.depth_weight} must sum to 1"
            )
        return self


class Scoring(Part):
    """The pre-registered scoring of a volume (part of the pre-registration hash).

    Without ``labels`` the label set is ``pass``/``fail`` and every item scores by the
    identity rule: a verdict's label is its verdict (a ``label`` may then be omitted).
    """

    labels: list[Label] | None = Field(default=None, min_length=1, max_length=50)
    """The declared label set: every rater label in the volume is one of these."""
    groups: list[ItemGroup] = Field(default=[], max_length=100)
    """Item groups with their rule; every Tier 1 item of the bank version is in exactly
    one (required when ``labels`` is declared)."""
    reference: Reference = "grader"
    """Whose decisions the published rates count: ``grader`` (the Tier 1 grader; the
    panel majority decides the draws it refused), ``panel-majority`` (the majority of the
    independent panel votes on every judged draw) or ``adjudication`` (the labels of the
    jury's adjudication seat, ``jury.adjudication``, which the volume must then declare).
    Tier 0 draws are always decided by their check."""
    rubric_groups: list[RubricGroup] = Field(default=[], max_length=100)
    """Items scored by their rubric, with each group's profile (weights). Every item
    that carries a rubric is in exactly one, and in no label group."""

    @model_validator(mode="after")
    def _consistent(self) -> Scoring:
        labels = self.labels
        if labels is None and self.groups:
            raise ValueError("item groups need a declared label set (scoring.labels)")
        if labels is not None:
            if len(set(labels)) != len(labels):
                twice = sorted({x for x in labels if labels.count(x) > 1})
                raise ValueError(f"labels declared twice: {', '.join(twice)}")
            if not self.groups:
                raise ValueError("a declared label set needs item groups with their rules")
            ids = [g.id for g in self.groups]
            if len(set(ids)) != len(ids):
                raise ValueError(f"item group ids repeat: {', '.join(sorted(ids))}")
            for group in self.groups:
                unknown = sorted(set(group.rule) - set(labels))
                if unknown:
                    raise ValueError(
                        f"group {group.id}: rule maps labels not in scoring.labels: "
                        f"{', '.join(unknown)}"
                    )
        rubric_ids = [g.id for g in self.rubric_groups]
        if len(set(rubric_ids)) != len(rubric_ids):
            raise ValueError(f"rubric group ids repeat: {', '.join(sorted(rubric_ids))}")
        return self

    @model_serializer(mode="wrap")
    def _without_empty_rubric_groups(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A volume without rubric items is written as before rubrics existed (same bytes).
        data = handler(self)
        if not self.rubric_groups and isinstance(data, dict):
            data.pop("rubric_groups", None)
        return data

    def label_set(self) -> tuple[str, ...]:
        """The declared labels, or the default ``pass``/``fail``."""
        return tuple(self.labels) if self.labels is not None else DEFAULT_LABELS


def adjudication_seat_declared(scoring: Scoring | None, info: ValidationInfo) -> Scoring | None:
    """The ``scoring`` field validator of a model that also has ``jury`` (declared before
    it): ``scoring`` as given, unless its reference is the adjudication seat and the jury
    seats none. Left alone when the jury itself is invalid (that is reported).

    Raises:
        ValueError: ``reference: adjudication`` without a ``jury.adjudication``.
    """
    jury = info.data.get("jury")
    if jury is None or scoring is None or scoring.reference != "adjudication":
        return scoring
    if jury.adjudication is None:
        raise ValueError(
            "reference is adjudication, but the jury declares no adjudication seat: declare "
            "jury.adjudication (its rater and the panel seats it adjudicates), or choose "
            "reference grader or panel-majority"
        )
    return scoring
