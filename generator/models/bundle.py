"""A scan bundle's manifest (``bundle.json``)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from generator.models.base import Name, Part, Record, Sha256, Slug, VersionId, slugify
from generator.models.raters import Adjudication, ModelRater, Rater
from generator.models.volume import VOLUME_SCHEMA_VERSION, Protocol, Role

BUNDLE_FILES = ("draws.jsonl", "verdicts.jsonl", "panel.jsonl", "qualification.jsonl")


class Candidate(Part):
    """The model measured, exactly as reached."""

    api: Name
    """Exact API string."""
    family: Slug
    """Model family."""
    display_name: Name
    """The one display name (equal to the volume's)."""
    role: Role
    """``candidate``, ``anchor`` or ``baseline`` (since schema version 4)."""
    variant: Slug | None = None
    """The candidate's variant, as ``volume.yaml`` lists it (since schema version 3)."""

    @property
    def slug(self) -> str:
        """The bundle folder this manifest belongs in."""
        return slugify(self.api if self.variant is None else f"{self.api} {self.variant}")


class Endpoint(Part):
    """How a model (the candidate, or a seated grader or judge) was reached."""

    gateway: Name
    """Gateway or API the runner called."""
    serving_provider: Name
    """Pinned provider that served the model."""
    no_training: bool
    """The endpoint declares it does not train on prompts (required for held-out items)."""


class Runner(Part):
    """The program that produced the bundle."""

    name: Name
    """Runner name."""
    version: Name
    """Runner version."""


class Recusal(Part):
    """A judge stood down for a conflict, and who replaced them."""

    judge: Name
    """Key (API string or human id) of the recused grader or judge."""
    seat: Literal["grader", "panel", "adjudication"]
    """Which seat was vacated (``adjudication`` since schema version 3)."""
    reason: Literal["same_family", "is_candidate"]
    """Why the judge was conflicted."""
    reserve: Name
    """Key (API string or human id) of the reserve seated instead."""


class SeatedJury(Part):
    """The jury as actually seated for this candidate."""

    grader: Rater
    """Grader seated."""
    panel: list[Rater] = Field(min_length=2, max_length=10)
    """Independent panel seats (schema version 2 and older: three models)."""
    adjudication: Adjudication | None = None
    """The adjudication seat, when the volume declares one (since schema version 3)."""
    recusals: list[Recusal] = []
    """Recusals with their reserves."""
    endpoints: dict[Name, Endpoint] = {}
    """How each seated model grader and panel judge was reached, by API string: held-out
    prompts and responses are sent to them too, so they must be no-training as well
    (required since schema version 2). Humans are not reached through endpoints."""

    @model_validator(mode="after")
    def _endpoints_of_models(self) -> SeatedJury:
        humans = {r.key for r in self.seated() if not isinstance(r, ModelRater)}
        listed = sorted(humans & set(self.endpoints))
        if listed:
            raise ValueError(
                f"endpoints names human {'rater' if len(listed) == 1 else 'raters'} "
                f"{', '.join(listed)}; only models have endpoints"
            )
        return self

    def seated(self) -> list[Rater]:
        """Grader, panel seats and adjudicator, in that order."""
        adjudicator = [self.adjudication.rater] if self.adjudication is not None else []
        return [self.grader, *self.panel, *adjudicator]


class FileEntry(Part):
    """Hash and size of one bundle file."""

    sha256: Sha256
    """SHA-256 of the file's bytes."""
    size: int = Field(ge=0)
    """Size in bytes."""


class RunDates(Part):
    """When the run happened (either date omitted when unknown, since schema version 3:
    pages say "unknown" and the config gate notes it, never assumes it)."""

    started: dt.date | None = None
    """First draw's date."""
    finished: dt.date | None = None
    """Last draw's date."""

    @property
    def known(self) -> bool:
        """True when both dates are recorded."""
        return self.started is not None and self.finished is not None

    def shown(self) -> str:
        """``2026-11-01..2026-11-02``, with ``unknown`` for a date not recorded."""
        return f"{self.started or 'unknown'}..{self.finished or 'unknown'}"


class BundleManifest(Record):
    """``bundle.json``: what was run, how, by what, and the hash of every other file."""

    supported_schema_version: ClassVar[int] = VOLUME_SCHEMA_VERSION

    schema_version: int = Field(default=VOLUME_SCHEMA_VERSION, ge=1)
    """Version of this file format. Readers refuse versions newer than they know."""

    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume id."""
    candidate: Candidate
    """Model measured."""
    endpoint: Endpoint
    """How it was reached."""
    run: RunDates
    """Run dates."""
    conditions: Protocol
    """Conditions as actually used (must equal the volume's protocol, replaced where the
    candidate declares its own conditions)."""
    bank_version: VersionId
    """Bank version run."""
    runner: Runner
    """Runner name and version."""
    jury: SeatedJury
    """The jury as seated, with recusals."""
    demonstration: bool = False
    """True for demonstration data."""
    files: dict[Annotated[str, Field(min_length=1, max_length=255)], FileEntry]
    """SHA-256 and size of every other file of the bundle."""

    @model_validator(mode="after")
    def _role_known(self) -> BundleManifest:
        if self.candidate.role == "baseline" and self.schema_version < 4:
            raise ValueError("a baseline bundle needs schema_version 4 (write schema_version: 4)")
        return self
