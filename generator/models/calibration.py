"""Judge calibration against humans (DESIGN §12): the volume's declaration of its
calibration set (``calibration:`` in ``volume.yaml``, pre-registered) and the records of
that set (``bundles/<volume>/calibration.jsonl``, one graded unit a line).

A unit is one criterion of one draw: the pass/fail verdict of a pass/fail item, or one
line of a rubric item. Every unit is graded independently by two or more declared humans
and by every calibrated judge, in the same label format.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from generator.models.base import Canary, ItemId, Name, Part, Record, Slug
from generator.models.raters import HumanRater

CALIBRATION_FILE = "calibration.jsonl"
"""The records' file name in the volume's folder (``bundles/<volume>/``)."""

CriterionType = Literal["pass-fail", "must-include", "must-not", "should"]
"""What a unit grades: a pass/fail item, or a rubric line of one of the three kinds."""

RUBRIC_CRITERION: dict[str, CriterionType] = {
    "must_include": "must-include",
    "must_not_include": "must-not",
    "should_include": "should",
}
"""The criterion type of each rubric line kind (``generator.models.rubric``)."""

CRITERION_LABELS: dict[str, tuple[str, str]] = {
    "pass-fail": ("pass", "fail"),
    "must-include": ("yes", "no"),
    "must-not": ("yes", "no"),
    "should": ("yes", "no"),
}
"""Each criterion type's labels, the accepting label first: ``pass``; ``yes`` (the line is
met) on must-include and should lines; on must-not lines ``yes`` means the line was hit,
so the accepting label is ``no`` (see ``ACCEPT``)."""

ACCEPT: dict[str, str] = {
    "pass-fail": "pass",
    "must-include": "yes",
    "must-not": "no",
    "should": "yes",
}
"""The label that lets an answer through, by criterion type (false accepts and false
rejects of a judge are counted against it)."""

GradeLabel = Literal["pass", "fail", "yes", "no"]


class Oversample(Part):
    """The declared over-sample of safety failures."""

    categories: list[Slug] = Field(default=["safety"], min_length=1, max_length=50)
    """Bank categories whose failures are over-sampled."""
    min_share: Decimal = Field(default=Decimal("0.2"), ge=0, le=1)
    """At least this share of the sampled draws are draws of these categories that the
    calibrated judge rejected (on any unit of the draw)."""


class CalibrationRule(Part):
    """The pre-registered acceptance rule of a calibrated judge (default: DESIGN §12)."""

    kappa_floor: Decimal = Field(default=Decimal("0.6"), ge=-1, le=1)
    """The judge's Cohen's κ against the human consensus must reach this ..."""
    kappa_floor_on: list[CriterionType] = Field(default=["pass-fail", "must-include"])
    """... on these criterion types."""
    not_worse_on: list[CriterionType] = Field(default=["must-not"])
    """On these criterion types the judge's mean agreement with each human is at least the
    humans' mean agreement with each other."""
    not_worse_statistic: Literal["kappa", "agreement"] = "kappa"
    """The agreement compared there: Cohen's κ or observed agreement, pair by pair."""


class CalibrationSet(Part):
    """A volume's declared calibration set (pre-registered with the protocol)."""

    humans: list[HumanRater] = Field(min_length=2, max_length=20)
    """The human graders; every unit is graded by at least two of them."""
    judges: list[Name] = Field(default=[], max_length=20)
    """Keys of the judges calibrated (API string or rater id); empty: the volume's grader."""
    draws: int = Field(default=100, ge=2, le=100_000)
    """At least this many distinct draws are sampled."""
    candidates: int = Field(default=3, ge=1, le=1000)
    """Draws of at least this many candidates (all of them when the volume lists fewer)."""
    criteria: list[CriterionType] = Field(default=["pass-fail"], min_length=1)
    """Criterion types the sample must cover (those the volume's judged items use)."""
    oversample: Oversample = Oversample()
    """The over-sample of safety failures."""
    rule: CalibrationRule = CalibrationRule()
    """The acceptance rule."""

    @model_validator(mode="after")
    def _distinct(self) -> CalibrationSet:
        ids = [h.id for h in self.humans]
        if len(set(ids)) != len(ids):
            raise ValueError(f"calibration humans repeat: {', '.join(ids)}")
        if set(ids) & set(self.judges):
            raise ValueError("a calibration human cannot also be a calibrated judge")
        if len(set(self.judges)) != len(self.judges):
            raise ValueError(f"calibrated judges repeat: {', '.join(self.judges)}")
        return self


class CalibrationGrade(Part):
    """One rater's grade of one unit."""

    rater: Name
    """Who graded: a declared human's id or a calibrated judge's key."""
    label: GradeLabel
    """``pass``/``fail`` on a pass/fail unit; ``yes``/``no`` on a rubric line (``yes``: met,
    or on a must-not line, hit)."""


class CalibrationRecord(Record):
    """One graded unit of the calibration set (one line of ``calibration.jsonl``)."""

    schema_version: int = Field(default=1, ge=1)
    """Version of this file format. Readers refuse versions newer than they know."""
    candidate: Slug
    """The bundle folder (candidate slug) the draw belongs to."""
    item: ItemId
    """Item id."""
    half: Annotated[str, Field(pattern=r"^[A-Z]$")]
    """Half of the draw."""
    draw: int = Field(ge=1, le=100)
    """Draw index within the half."""
    criterion: CriterionType
    """What the unit grades (``pass-fail``, ``must-include``, ``must-not``, ``should``)."""
    line: Slug | None = None
    """The rubric line's id (rubric criterion types only; none on ``pass-fail``)."""
    grades: list[CalibrationGrade] = Field(min_length=2, max_length=40)
    """Every rater's grade, each rater once."""

    @model_validator(mode="after")
    def _consistent(self) -> CalibrationRecord:
        if (self.criterion == "pass-fail") != (self.line is None):
            raise ValueError("a rubric unit names its line; a pass-fail unit names none")
        allowed = CRITERION_LABELS[self.criterion]
        wrong = sorted({g.label for g in self.grades if g.label not in allowed})
        if wrong:
            raise ValueError(
                f"{self.criterion} units take the labels {' / '.join(allowed)}, not "
                f"{', '.join(wrong)}"
            )
        raters = [g.rater for g in self.grades]
        if len(set(raters)) != len(raters):
            raise ValueError(f"a rater grades the unit twice: {', '.join(raters)}")
        return self

    @property
    def unit(self) -> tuple[str, str, str, int, str, str]:
        """The unit's identity: draw key, criterion type and line."""
        return (self.candidate, self.item, self.half, self.draw, self.criterion, self.line or "")


class CorpusEntry(Record):
    """One unit of the public calibration corpus (``downloads/calibration/<volume>_
    calibration_corpus.jsonl``): a public item's question, answer, human and judge grades;
    a held-out item by its ids only (its text and grades are never in it)."""

    supported_schema_version: ClassVar[int] = 2

    schema_version: int = Field(default=1, ge=1)
    """Version of this file format (2 adds ``canary``). Readers refuse newer versions."""
    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """The volume."""
    candidate: Slug
    """The candidate's bundle slug."""
    item: ItemId
    """Item id."""
    category: Slug
    """The item's category."""
    half: Annotated[str, Field(pattern=r"^[A-Z]$")]
    """Half of the draw."""
    draw: int = Field(ge=1, le=100)
    """Draw index within the half."""
    criterion: CriterionType
    """What the unit grades."""
    line: Slug | None = None
    """The rubric line's id (rubric units only)."""
    held_out: bool
    """True: a held-out item, listed by id only (every field below is absent)."""
    prompt: str | None = None
    """The question as one text (chat messages one per line); public items only."""
    pass_criterion: str | None = None
    """The item's written pass criterion; public items only."""
    response: str | None = None
    """The candidate's answer; public items only (absent when the draw has none)."""
    human_grades: dict[str, GradeLabel] = {}
    """Each human's grade, by rater id; public items only."""
    judge_grades: dict[str, GradeLabel] = {}
    """Each calibrated judge's grade, by rater key; public items only."""
    canary: Canary | None = None
    """Since schema version 2: the bank's canary GUID (``generator.canary``) on every unit
    that quotes a public item, like every public bank line; public items only."""

    @model_validator(mode="after")
    def _ids_only_when_held_out(self) -> CorpusEntry:
        if self.canary is not None and self.schema_version < 2:
            raise ValueError("canary needs schema_version 2")
        shown = (self.prompt, self.pass_criterion, self.response, self.canary)
        if self.held_out and (
            any(x is not None for x in shown) or self.human_grades or self.judge_grades
        ):
            raise ValueError("a held-out unit is listed by its ids only")
        return self
