"""The bank manifest (``bank/bank.yaml``): the bank's name, licences, categories, versions
and canary."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field, model_validator

from generator.models.base import Canary, ItemId, Name, Part, Record, Slug, VersionId


class Category(Part):
    """A category of probes, declared by the bank."""

    id: Slug
    """Stable id used by items."""
    title: Name
    """Display title."""
    description: Annotated[str, Field(max_length=2_000)] = ""
    """What failures in this category look like."""


class BankVersion(Part):
    """One version of the bank."""

    id: VersionId
    """Version id (``v1``, ``v1.1`` …); the first listed version is the core."""
    released: dt.date
    """Release date."""
    notes: Annotated[str, Field(max_length=4_000)] = ""
    """Changelog entry in a sentence or two."""
    retired: list[ItemId] = []
    """Items retired from the active bank from this version on (core items stay core)."""


class BankManifest(Record):
    """``bank/bank.yaml``: the bank's name, categories and versions."""

    name: Name
    """Name of the bank."""
    license: Name = "CC-BY-4.0"
    """Licence of the public items (an SPDX id)."""
    results_license: Name | None = None
    """Licence of the published results data (an SPDX id): the public bundles (responses
    to public items, verdicts, panel votes), the figures and the tidy leaderboards.
    Absent: the public items' licence."""
    demonstration: bool = False
    """True when the bank is demonstration data, labelled so wherever shown."""
    categories: list[Category] = Field(min_length=1)
    """Declared categories, in display order."""
    versions: list[BankVersion] = Field(min_length=1)
    """Versions in release order."""
    canary: Canary | None = None
    """A fixed GUID, declared once, never changed, carried by every public bank file so
    training data can be searched for it (``generator.canary``, which refuses to build
    anything public without it; ``probepress init`` writes one)."""

    @model_validator(mode="after")
    def _unique(self) -> BankManifest:
        for label, ids in (
            ("category", [c.id for c in self.categories]),
            ("version", [v.id for v in self.versions]),
        ):
            seen: set[str] = set()
            for ident in ids:
                if ident in seen:
                    raise ValueError(f"{label} {ident!r} is declared twice")
                seen.add(ident)
        dates = [v.released for v in self.versions]
        if dates != sorted(dates):
            raise ValueError("versions are not in release-date order")
        return self

    def results_licence(self) -> str:
        """The results data's licence: ``results_license``, else the public items'."""
        return self.results_license or self.license

    def version_ids(self) -> list[str]:
        """Version ids in release order."""
        return [v.id for v in self.versions]

    def versions_up_to(self, version: str) -> list[str]:
        """Version ids from the core up to and including ``version``."""
        ids = self.version_ids()
        return ids[: ids.index(version) + 1]
