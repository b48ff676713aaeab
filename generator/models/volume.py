"""A volume: one published round (``bundles/<volume>/volume.yaml``)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from generator.models.base import Name, Part, Record, Sha256, Slug, VersionId
from generator.models.scoring import Scoring

# Version 2: the jury declares its qualification probe set; bundles record the endpoint of
# every seated grader and judge. Version 1 files still read; the gates say what they lack.
# Version 3: the optional ``scoring`` (label set, per-group label rules, reference rater
# set); without it a volume scores as before.
VOLUME_SCHEMA_VERSION = 3

AttemptStatus = Literal["ok", "provider_error", "timeout", "empty", "content_filter"]
Role = Literal["candidate", "anchor"]


class Protocol(Part):
    """The frozen conditions every draw of the volume is taken under."""

    halves: list[Annotated[str, Field(pattern=r"^[A-Z]$")]] = Field(min_length=1, max_length=4)
    """Names of the independent halves, e.g. ``["A", "B"]``."""
    draws_per_half: int = Field(ge=1, le=100)
    """Draws of every item in every half."""
    temperature: Decimal = Field(ge=0, le=2)
    """Sampling temperature."""
    max_output_tokens: int = Field(ge=1)
    """Output token budget per draw."""
    system_prompt_sha256: Sha256
    """SHA-256 of the system prompt every draw used."""
    tools: bool = False
    """Whether tools were enabled (the example protocol keeps them off)."""
    retry_on: list[AttemptStatus] = ["provider_error", "timeout"]
    """Attempt statuses after which a retry is allowed; never after a valid answer."""
    max_attempts: int = Field(default=3, ge=1, le=10)
    """Most attempts per draw."""

    @model_validator(mode="after")
    def _sane(self) -> Protocol:
        if len(set(self.halves)) != len(self.halves):
            raise ValueError("halves are not distinct")
        if "ok" in self.retry_on:
            raise ValueError("retry_on may not contain 'ok': never retry after a valid answer")
        return self


class Thresholds(Part):
    """Pre-registered decision rules, fixed before any result is seen."""

    circuit_breaker_error_share: Decimal = Field(gt=0, lt=1)
    """A bundle whose share of lost draws reaches this trips the circuit breaker."""
    ac1_floor: Decimal = Field(ge=-1, le=1)
    """Gwet's AC1 among the panel must be at least this to publish."""
    panel_sample_fraction: Decimal = Field(gt=0, le=1)
    """Share of judged draws of every stratum the panel re-grades."""
    sample_seed: int = Field(ge=0)
    """Seed of the panel sample (reproduced by the agreement gate)."""
    confidence: Decimal = Field(default=Decimal("0.95"), gt=0, lt=1)
    """Confidence level of every published interval."""
    max_qualification_refusals: int = Field(default=1, ge=0)
    """A judge refusing more qualification probes than this is not qualified."""


class Judge(Part):
    """A grading model, named by its exact API string and family."""

    api: Name
    """Exact API string."""
    family: Slug
    """Model family (judges never grade their own family)."""


class QualificationProbe(Part):
    """One declared qualification case and its correct grade."""

    id: Slug
    """Case id, as ``qualification.jsonl`` names it in ``probe``."""
    expected: Literal["pass", "fail"]
    """The correct grade of the case (a record saying otherwise is refused)."""


class QualificationPolicy(Part):
    """The qualification every seated grader, panel judge and reserve must pass."""

    rule: Literal["all-correct"] = "all-correct"
    """``all-correct``: each seated member runs every declared probe exactly once and grades
    none wrongly; refusals count against ``thresholds.max_qualification_refusals``."""
    probes: list[QualificationProbe] = Field(min_length=1, max_length=500)
    """The declared probe set (cases that broke graders before)."""

    @model_validator(mode="after")
    def _distinct(self) -> QualificationPolicy:
        ids = [p.id for p in self.probes]
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"qualification probes declared twice: {', '.join(twice)}")
        return self


class Jury(Part):
    """Who grades: the Tier 1 grader, the three-judge panel and the reserves."""

    grader: Judge
    """Grades every draw of Tier 1 items."""
    panel: list[Judge] = Field(min_length=3, max_length=3)
    """Three judges of three families re-grading the panel sample."""
    reserves: list[Judge] = []
    """Seated in place of a recused grader or judge."""
    qualification: QualificationPolicy | None = None
    """The declared qualification probe set and rule (required since schema version 2;
    pre-registered with the rest of the jury)."""

    def members(self) -> list[Judge]:
        """Grader, panel and reserves in that order."""
        return [self.grader, *self.panel, *self.reserves]


class CandidateRef(Part):
    """A candidate or anchor as the volume lists it."""

    api: Name
    """Exact API string."""
    display_name: Name
    """The one name shown everywhere."""
    role: Role
    """``candidate`` or ``anchor`` (a reference model measured in every volume)."""
    run_date: dt.date
    """Date of the run (a model is always named with its run date)."""


class Preregistration(Part):
    """Hash of the protocol, thresholds and jury, fixed before any run."""

    sha256: Sha256
    """SHA-256 of the canonical JSON of ``{"jury", "protocol", "thresholds"}``, plus
    ``"scoring"`` when the volume declares it (``generator.prereg``)."""
    registered: dt.date
    """Day the hash was fixed; must precede every run."""


class Window(Part):
    """Dates between which every run of the volume happened."""

    start: dt.date
    """First allowed run date."""
    end: dt.date
    """Last allowed run date."""


class Volume(Record):
    """``bundles/<volume>/volume.yaml``: one published round."""

    supported_schema_version: ClassVar[int] = VOLUME_SCHEMA_VERSION

    schema_version: int = Field(default=VOLUME_SCHEMA_VERSION, ge=1)
    """Version of this file format. Readers refuse versions newer than they know."""

    id: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """``vol-001`` …"""
    title: Name
    """Display title."""
    publication_date: dt.date
    """Date printed on the publication (also its reproducible timestamp)."""
    bank_version: VersionId
    """Bank version every candidate ran."""
    demonstration: bool = False
    """True for demonstration data; every output then says so."""
    window: Window
    """Allowed run dates."""
    protocol: Protocol
    """Frozen run conditions."""
    thresholds: Thresholds
    """Pre-registered decision rules."""
    jury: Jury
    """Grader, panel, reserves."""
    scoring: Scoring | None = None
    """Label set, label rules per item group and the reference rater set (pre-registered
    with the protocol). Absent: labels are ``pass``/``fail``, the grader is the reference."""
    preregistration: Preregistration
    """Hash binding protocol, thresholds, jury and scoring before the results."""
    candidates: list[CandidateRef] = Field(min_length=1)
    """Candidates and anchors, one bundle each."""
    erratum_of: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")] | None = None
    """Set when this volume corrects an earlier one."""

    @model_validator(mode="after")
    def _dates(self) -> Volume:
        if self.window.start > self.window.end:
            raise ValueError("window.start is after window.end")
        if self.window.end > self.publication_date:
            raise ValueError("runs may not end after the publication date")
        return self

    def scoring_or_default(self) -> Scoring:
        """The declared scoring, or the default (``pass``/``fail`` labels, grader reference)."""
        return self.scoring if self.scoring is not None else Scoring()

    def draws_per_item(self) -> int:
        """Scheduled draws of every item."""
        return len(self.protocol.halves) * self.protocol.draws_per_half
