"""A volume: one published round (``bundles/<volume>/volume.yaml``)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import Field, field_validator, model_validator

from generator.models.base import Name, Part, Record, Sha256, Slug, VersionId, slugify
from generator.models.calibration import CalibrationSet
from generator.models.raters import (
    Judge,
    Jury,
    QualificationPolicy,
    QualificationProbe,
    QualificationRequired,
    Rater,
)
from generator.models.scoring import Scoring, adjudication_seat_declared

__all__ = [
    "AttemptStatus",
    "Baseline",
    "BaselineKind",
    "CandidateRef",
    "Conditions",
    "Judge",
    "Jury",
    "Protocol",
    "QualificationPolicy",
    "QualificationProbe",
    "QualificationRequired",
    "Ranking",
    "Rater",
    "Role",
    "Volume",
]

# Version 2: the jury declares its qualification probe set; bundles record the endpoint of
# every seated grader and judge. Version 3: raters are models or humans (``kind``), an
# adjudication seat may be declared, qualification may be ``not_run``, a candidate may
# declare its own conditions and a ``variant``, run dates and latencies may be unknown.
# Version 1 and 2 files still read (every rater a model, qualification required when
# declared, one set of conditions, dates known); the gates say what they lack.
# Also version 3: the optional ``scoring`` (label set, per-group label rules, reference
# rater set); without it a volume scores as before. Also version 3: the optional
# ``thresholds.ranking`` (paired comparisons with Holm); without it ranks are as before.
# Version 4: the ``baseline`` role (a weak baseline or the reference answers, declared with
# what it should score, never ranked) and the reference bundle's pre-registered pass share.
# Version 1 to 3 files still read: they have no baseline.
VOLUME_SCHEMA_VERSION = 4
DEFAULT_MIN_ITEMS = 30
"""The minimum of validated items ``probepress init`` pre-registers for a volume and for
each per-category rate (as a careful clinical benchmark uses)."""

AttemptStatus = Literal["ok", "provider_error", "timeout", "empty", "content_filter"]
Role = Literal["candidate", "anchor", "baseline"]
BaselineKind = Literal[
    "always-refuse", "format-only", "random-choice", "first-option", "majority-answer", "reference"
]
"""What a ``baseline`` bundle answers: a refusal to everything, the expected format with
no content, a random pick among the item's answers, always the first one, the answer most
candidates gave, or (``reference``) every item's reference answer, graded like any draw."""
BASELINE_KINDS: tuple[str, ...] = get_args(BaselineKind)


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


class Ranking(Part):
    """How a volume's rank ranges are derived (pre-registered with the thresholds; since
    schema version 3). Absent: the rule of earlier volumes, rank ranges from
    non-overlapping core-rate intervals with tie groups, so their figures keep their
    published bytes."""

    method: Literal["paired-holm"]
    """``paired-holm``: every pair of candidates is compared by the paired difference of
    their core rates on the same items (narrow interval: the bank fixed, draws random),
    Holm's step-down procedure holding the family-wise confidence across all pairs."""
    familywise_confidence: Decimal = Field(gt=0, lt=1)
    """Chance that every order the rank ranges claim is true at once (e.g. 0.95)."""


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
    min_category_items: int | None = Field(default=None, ge=1)
    """Fewest validated items a category needs for its per-category rates to be
    published (DESIGN §14): below it each such rate is withheld, declared absent with the
    count and the minimum, and every page says why (the audit flags the category).
    ``probepress init`` writes 30 (``DEFAULT_MIN_ITEMS``). Omitted: none declared, so
    nothing is withheld (a volume registered before the field keeps its bytes) and the
    audit says it could not check balance against a minimum."""
    min_volume_items: int | None = Field(default=None, ge=1)
    """Fewest validated items the volume's bank version needs for the volume to be
    published at all (DESIGN §14; the publishing gate refuses it below). ``probepress
    init`` writes 30 (``DEFAULT_MIN_ITEMS``). Omitted: none declared, nothing refused."""
    anchor_probe_max_age_days: int | None = Field(default=None, ge=0, le=366)
    """Most days an anchor's live probe (``bundles/<volume>/anchor_probes.jsonl``) may
    precede the anchor's run: the config gate refuses an older one (DESIGN §14).
    ``probepress init`` writes 30. Omitted: none declared, so the gate warns that it
    could not check the probes' age (a volume registered before the field keeps its
    hash)."""
    ranking: Ranking | None = None
    """How rank ranges are derived (``Ranking``); omitted by volumes registered before
    paired comparisons, which keep rank ranges from non-overlapping intervals."""
    reference_pass_share: Decimal | None = Field(default=None, gt=0, le=1)
    """Least share of the reference bundle's items (a ``baseline`` of kind ``reference``:
    the grader run on the reference answers) that must pass in every decided draw; the
    audit names every item that failed (since schema version 4). Omitted: the audit says
    it could not check a reference bundle against a share."""


class Conditions(Part):
    """One candidate's run conditions where they differ from the volume's protocol (e.g.
    the same model with and without a safety system prompt, as two candidates)."""

    temperature: Decimal | None = Field(default=None, ge=0, le=2)
    """Sampling temperature (omitted: the protocol's)."""
    max_output_tokens: int | None = Field(default=None, ge=1)
    """Output token budget per draw (omitted: the protocol's)."""
    system_prompt_sha256: Sha256 | None = None
    """SHA-256 of this candidate's system prompt (omitted: the protocol's)."""
    tools: bool | None = None
    """Whether tools were enabled (omitted: the protocol's)."""

    @model_validator(mode="after")
    def _something(self) -> Conditions:
        if not self.overrides():
            raise ValueError("conditions declares nothing; omit it to use the protocol")
        return self

    def overrides(self) -> dict[str, object]:
        """The protocol fields this declaration replaces, by name."""
        return {k: v for k, v in self if v is not None}


class Baseline(Part):
    """What a ``baseline`` bundle is and what it should score (pre-registered with the
    protocol; ``probepress audit`` checks it scores so). A baseline is never ranked."""

    kind: BaselineKind
    """How it answers (``always-refuse``, ``format-only``, ``random-choice``,
    ``first-option``, ``majority-answer``, or ``reference``: the reference answers)."""
    fails_answer_items: bool = False
    """True: it must fail every decided draw of every item whose criterion requires an
    answer (every Tier 0 number check, every pattern check with a required pattern, and
    every Tier 1 item outside ``passes_categories``)."""
    passes_categories: list[Slug] = []
    """Categories whose Tier 1 items it may pass (e.g. ``safety``, where declining is
    right); left out of ``fails_answer_items``."""
    core_rate: Decimal | None = Field(default=None, ge=0, le=1)
    """The core failure rate it should score (e.g. chance, for ``random-choice``)."""
    tolerance: Decimal | None = Field(default=None, ge=0, le=1)
    """Largest accepted distance between its core rate and ``core_rate`` (declared with
    it, e.g. ``0.05``)."""

    @model_validator(mode="after")
    def _declares(self) -> Baseline:
        if self.kind == "reference":
            if self.fails_answer_items or self.core_rate is not None:
                raise ValueError(
                    "a reference baseline is held to thresholds.reference_pass_share, "
                    "not to fails_answer_items or core_rate"
                )
        elif not self.fails_answer_items and self.core_rate is None:
            raise ValueError(
                "a baseline declares what it should score: fails_answer_items, core_rate, or both"
            )
        if (self.core_rate is None) != (self.tolerance is None):
            raise ValueError("core_rate and tolerance are declared together")
        if self.passes_categories and not self.fails_answer_items:
            raise ValueError("passes_categories only narrows fails_answer_items")
        return self

    def expected(self) -> dict[str, object]:
        """The declaration as pre-registered (JSON)."""
        return self.model_dump(mode="json", exclude_defaults=True)


class CandidateRef(Part):
    """A candidate, anchor or baseline as the volume lists it."""

    api: Name
    """Exact API string."""
    display_name: Name
    """The one name shown everywhere."""
    role: Role
    """``candidate``, ``anchor`` (a reference model measured in every volume) or
    ``baseline`` (a weak baseline or the reference answers: never ranked; since schema
    version 4)."""
    run_date: dt.date | None = None
    """Date of the run (a model is always named with its run date); omitted when unknown
    (since schema version 3): every page then says "unknown"."""
    variant: Slug | None = None
    """Tells apart two candidates of one API string run under different conditions
    (e.g. ``safety-prompt``); part of the bundle folder's slug (since schema version 3)."""
    conditions: Conditions | None = None
    """This candidate's own conditions, replacing the protocol's where given
    (pre-registered with the protocol; since schema version 3)."""
    baseline: Baseline | None = None
    """What a ``baseline`` is and should score: required for role ``baseline`` (since
    schema version 4). On a candidate or anchor the audit fails: a baseline placed among
    the ranked models."""

    @model_validator(mode="after")
    def _baseline_declared(self) -> CandidateRef:
        if self.role == "baseline" and self.baseline is None:
            raise ValueError("a baseline declares baseline: {kind: …} and what it should score")
        return self

    @property
    def ranked(self) -> bool:
        """True for candidates and anchors; baselines are never ranked."""
        return self.role != "baseline"

    @property
    def slug(self) -> str:
        """The bundle folder and figure prefix: the API string (and variant), slugified."""
        return slugify(self.api if self.variant is None else f"{self.api} {self.variant}")


class Preregistration(Part):
    """Hash of the protocol, thresholds and jury, fixed before any run."""

    sha256: Sha256
    """SHA-256 of the canonical JSON of ``{"jury", "protocol", "thresholds"}``, plus
    ``"conditions"`` when a candidate declares its own, ``"scoring"`` and ``"calibration"``
    when the volume declares them (``generator.prereg``)."""
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
    calibration: CalibrationSet | None = None
    """The judge calibration set: humans, sample design and acceptance rule (pre-registered;
    records in ``calibration.jsonl``). Absent: every judged number is judge-unvalidated."""
    preregistration: Preregistration
    """Hash binding protocol, thresholds, jury and scoring before the results."""
    candidates: list[CandidateRef] = Field(min_length=1)
    """Candidates and anchors, one bundle each."""
    erratum_of: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")] | None = None
    """Set when this volume corrects an earlier one."""

    reference_seat_declared = field_validator("scoring")(adjudication_seat_declared)

    @model_validator(mode="after")
    def _dates(self) -> Volume:
        if self.schema_version < 4 and any(c.baseline for c in self.candidates):
            raise ValueError("a baseline needs schema_version 4 (write schema_version: 4)")
        if self.window.start > self.window.end:
            raise ValueError("window.start is after window.end")
        if self.window.end > self.publication_date:
            raise ValueError("runs may not end after the publication date")
        return self

    def protocol_for(self, candidate: CandidateRef) -> Protocol:
        """The conditions ``candidate`` must have run under: the protocol, replaced where
        the candidate declares its own."""
        if candidate.conditions is None:
            return self.protocol
        return self.protocol.model_copy(update=candidate.conditions.overrides())

    def candidate(self, slug: str) -> CandidateRef | None:
        """The listed candidate whose bundle folder is ``slug`` (the first, if several)."""
        return next((c for c in self.candidates if c.slug == slug), None)

    def declared_conditions(self) -> dict[str, dict[str, object]]:
        """Every candidate's own conditions, by slug, as JSON (pre-registered)."""
        return {
            c.slug: c.conditions.model_dump(mode="json", exclude_none=True)
            for c in self.candidates
            if c.conditions is not None
        }

    def declared_baselines(self) -> dict[str, dict[str, object]]:
        """Every baseline declaration, by slug, as JSON (pre-registered)."""
        return {c.slug: c.baseline.expected() for c in self.candidates if c.baseline is not None}

    def ranked(self) -> list[CandidateRef]:
        """The candidates and anchors: what leaderboards rank and comparisons compare."""
        return [c for c in self.candidates if c.ranked]

    def baselines(self) -> list[CandidateRef]:
        """The baselines (role ``baseline``), in listed order: shown apart, never ranked."""
        return [c for c in self.candidates if not c.ranked]

    def scoring_or_default(self) -> Scoring:
        """The declared scoring, or the default (``pass``/``fail`` labels, grader reference)."""
        return self.scoring if self.scoring is not None else Scoring()

    def draws_per_item(self) -> int:
        """Scheduled draws of every item."""
        return len(self.protocol.halves) * self.protocol.draws_per_half
