"""Shared base of every file format: strict, frozen, documented, versioned."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

SCHEMA_VERSION = 1

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""Lower-case hex SHA-256."""

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=80)]
"""Lower-case ASCII words joined by single hyphens."""

ItemId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=40)]
"""A probe's stable id."""

VersionId = Annotated[str, StringConstraints(pattern=r"^v[0-9]+(?:\.[0-9]+)*$")]
"""A bank version such as ``v1`` or ``v1.2``."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
"""A short human-readable name or API string (untrusted: always escaped on output)."""

_SLUG_DROP = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """Deterministic slug: lower-case ASCII alphanumerics joined by single hyphens."""
    return _SLUG_DROP.sub("-", text.lower()).strip("-")


def version_slug(version: str) -> str:
    """``v1.2`` -> ``v1_2`` (used in download file names)."""
    return version.replace(".", "_")


class Part(BaseModel):
    """Base of every part of a file format: unknown fields are rejected, instances frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    def dump(self) -> dict[str, Any]:
        """JSON-ready dict (decimals as strings, dates as ISO text)."""
        return self.model_dump(mode="json")


class Record(Part):
    """Base of every file format (a whole file, or one JSONL line): versioned."""

    supported_schema_version: ClassVar[int] = SCHEMA_VERSION

    schema_version: int = Field(default=SCHEMA_VERSION, ge=1)
    """Version of this file format. Readers refuse versions newer than they know."""

    @field_validator("schema_version")
    @classmethod
    def _not_newer(cls, value: int) -> int:
        if value > cls.supported_schema_version:
            raise ValueError(
                f"schema_version {value} is newer than this probepress reads "
                f"({cls.supported_schema_version}); upgrade probepress"
            )
        return value
