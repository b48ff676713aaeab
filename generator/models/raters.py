"""Who grades: raters (models or humans), the adjudication seat, the qualification policy.

A rater is a model (exact API string and family: the family rules apply) or a human (an
identifier and an optional affiliation: no family, so no family rule can apply). Files
name a rater by its ``key``: the API string of a model, the id of a human (verdicts'
``grader``, panel votes' ``judge``, qualification records' ``judge``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from generator.models.base import Name, Part, Slug
from generator.models.receipts import GraderSettings


class ModelRater(Part):
    """A grading model, named by its exact API string and family."""

    kind: Literal["model"] = "model"
    """``model`` (the default: files of schema version 2 and older name no kind)."""
    api: Name
    """Exact API string."""
    family: Slug
    """Model family (a model never grades its own family)."""

    @property
    def key(self) -> str:
        """How records name this rater: its API string."""
        return self.api

    @property
    def label(self) -> str:
        """The rater as a message names it."""
        return f"{self.api} ({self.family})"


class HumanRater(Part):
    """A human annotator or adjudicator: an identifier, never a family."""

    kind: Literal["human"]
    """``human``."""
    id: Name
    """The annotator's identifier, as records name them (e.g. ``annotator-1``)."""
    affiliation: Name | None = None
    """Optional affiliation shown beside the id (omitted: none stated)."""

    @property
    def key(self) -> str:
        """How records name this rater: its id."""
        return self.id

    @property
    def family(self) -> None:
        """A human has no model family: no family rule applies."""
        return None

    @property
    def label(self) -> str:
        """The rater as a message names it."""
        return f"{self.id} (human)"


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("kind", "model"))
    return str(getattr(value, "kind", "model"))


Rater = Annotated[
    Annotated[ModelRater, Tag("model")] | Annotated[HumanRater, Tag("human")],
    Discriminator(_kind),
]
"""A model or a human rater (``kind``; a rater without one is a model)."""

Judge = ModelRater
"""The name earlier versions used for a model rater."""


class Adjudication(Part):
    """A seat that adjudicates other seats: its label is derived from theirs, so it is
    never independent of them and no agreement statistic counts it."""

    rater: Rater
    """Who adjudicates (a human or a model)."""
    adjudicates: list[Name] = Field(min_length=2, max_length=10)
    """Keys of the panel seats it adjudicates (every one an independent panel seat)."""


class QualificationProbe(Part):
    """One declared qualification case and its correct grade."""

    id: Slug
    """Case id, as ``qualification.jsonl`` names it in ``probe``."""
    expected: Literal["pass", "fail"]
    """The correct grade of the case (a record saying otherwise is refused)."""


class QualificationRequired(Part):
    """Qualification is required: every seated rater passes the declared probe set."""

    status: Literal["required"] = "required"
    """``required`` (the default: files of schema version 2 name no status)."""
    rule: Literal["all-correct"] = "all-correct"
    """``all-correct``: each seated member runs every declared probe exactly once and grades
    none wrongly; refusals count against ``thresholds.max_qualification_refusals``."""
    probes: list[QualificationProbe] = Field(min_length=1, max_length=500)
    """The declared probe set (cases that broke graders before)."""

    @model_validator(mode="after")
    def _distinct(self) -> QualificationRequired:
        ids = [p.id for p in self.probes]
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"qualification probes declared twice: {', '.join(twice)}")
        return self


class QualificationNotRun(Part):
    """Qualification was not run, for a stated reason every page repeats."""

    status: Literal["not_run"]
    """``not_run``."""
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    """Why no rater was qualified (printed on every page)."""


def _status(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("status", "required"))
    return str(getattr(value, "status", "required"))


QualificationPolicy = Annotated[
    Annotated[QualificationRequired, Tag("required")]
    | Annotated[QualificationNotRun, Tag("not_run")],
    Discriminator(_status),
]
"""``required`` with its probe set, or ``not_run`` with its reason."""


class Jury(Part):
    """Who grades: the Tier 1 grader, the panel, an optional adjudication and reserves."""

    grader: Rater
    """Grades every draw of Tier 1 items (a model or a human)."""
    panel: list[Rater] = Field(min_length=2, max_length=10)
    """Independent raters re-grading the panel sample: humans, models or both. The models
    of one panel have distinct families; a panel of models only has three (three
    families). Schema version 2 and older: exactly three models."""
    adjudication: Adjudication | None = None
    """A seat adjudicating named panel seats (not independent of them: agreement
    statistics leave it out; since schema version 3). Its labels are the reference of the
    published rates when ``scoring.reference`` is ``adjudication``."""
    reserves: list[Rater] = []
    """Seated in place of a recused grader or judge."""
    qualification: QualificationPolicy | None = None
    """``required`` with the declared probe set, or ``not_run`` with its reason (declared
    since schema version 2, ``not_run`` since 3; pre-registered with the jury)."""
    grading: GraderSettings | None = None
    """The grader's prompt hash and settings (optional; pre-registered with the jury and
    recorded in every figure's and release's receipt)."""

    @model_validator(mode="after")
    def _panel_shape(self) -> Jury:
        keys = [r.key for r in self.panel]
        if len(set(keys)) != len(keys):
            raise ValueError(f"the panel seats a rater twice: {', '.join(keys)}")
        families = [r.family for r in self.panel if isinstance(r, ModelRater)]
        if len(set(families)) != len(families):
            raise ValueError(f"the panel's models repeat a family: {', '.join(families)}")
        if len(families) == len(self.panel) != 3:
            raise ValueError(
                f"a panel of models only has three judges of three families, not {len(keys)}"
            )
        if self.adjudication is not None:
            adjudicator = self.adjudication.rater.key
            if adjudicator in keys:
                raise ValueError(f"adjudicator {adjudicator} is also an independent panel seat")
            unknown = [k for k in self.adjudication.adjudicates if k not in keys]
            if unknown:
                raise ValueError(f"the adjudication names no panel seat {', '.join(unknown)}")
        return self

    def members(self) -> list[ModelRater | HumanRater]:
        """Grader, panel, adjudicator and reserves in that order."""
        adjudicator = [self.adjudication.rater] if self.adjudication is not None else []
        return [self.grader, *self.panel, *adjudicator, *self.reserves]

    @property
    def required(self) -> QualificationRequired | None:
        """The required qualification policy with its probes, or None (not run or not
        declared)."""
        q = self.qualification
        return q if isinstance(q, QualificationRequired) else None

    @property
    def not_run(self) -> QualificationNotRun | None:
        """The declaration that qualification was not run, or None."""
        q = self.qualification
        return q if isinstance(q, QualificationNotRun) else None
