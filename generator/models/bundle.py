"""A scan bundle's manifest (``bundle.json``)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, ClassVar, Literal

from pydantic import Field

from generator.models.base import Name, Part, Record, Sha256, Slug, VersionId
from generator.models.volume import VOLUME_SCHEMA_VERSION, Judge, Protocol, Role

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
    """``candidate`` or ``anchor``."""


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
    """API string of the recused grader or judge."""
    seat: Literal["grader", "panel"]
    """Which seat was vacated."""
    reason: Literal["same_family", "is_candidate"]
    """Why the judge was conflicted."""
    reserve: Name
    """API string of the reserve seated instead."""


class SeatedJury(Part):
    """The jury as actually seated for this candidate."""

    grader: Judge
    """Grader seated."""
    panel: list[Judge] = Field(min_length=3, max_length=3)
    """Panel seated."""
    recusals: list[Recusal] = []
    """Recusals with their reserves."""
    endpoints: dict[Name, Endpoint] = {}
    """How each seated grader and panel judge was reached, by API string: held-out
    prompts and responses are sent to them too, so they must be no-training as well
    (required since schema version 2)."""


class FileEntry(Part):
    """Hash and size of one bundle file."""

    sha256: Sha256
    """SHA-256 of the file's bytes."""
    size: int = Field(ge=0)
    """Size in bytes."""


class RunDates(Part):
    """When the run happened."""

    started: dt.date
    """First draw's date."""
    finished: dt.date
    """Last draw's date."""


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
    """Conditions as actually used (must equal the volume's protocol)."""
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
