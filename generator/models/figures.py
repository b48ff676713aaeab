"""The figures registry (``figures/figures.json``): every publishable number with receipts."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field

from generator.models.base import Part, Record, Sha256
from generator.models.receipts import Receipt

Decimal = Annotated[str, Field(pattern=r"^-?[0-9]+(\.[0-9]+)?$")]
"""A number as a decimal string with its declared precision (never a float repr)."""
Param = str | int | bool


class Source(Part):
    """A file a figure was computed from."""

    path: str
    """Path relative to the publication root."""
    sha256: Sha256
    """SHA-256 of the file when the figure was computed."""


class Interval(Part):
    """An interval around a figure."""

    lo: Decimal
    """Lower bound."""
    hi: Decimal
    """Upper bound."""
    display: str
    """How pages print the interval."""
    method: str
    """Method name (see the methodology)."""
    confidence: Decimal
    """Nominal coverage."""
    params: dict[str, Param] = {}
    """Method parameters (seed, resamples …)."""


class Figure(Part):
    """One publishable number."""

    id: str
    """Stable id, e.g. ``vol-001/<candidate-slug>/core_rate``."""
    label: str
    """What the number is, in a sentence."""
    kind: Literal["rate", "difference", "count", "agreement", "points", "rank", "share", "score"]
    """What sort of number it is (``score``: a mean rubric item score in [0, 1], higher is
    better, never a failure rate)."""
    value: Decimal
    """The number."""
    precision: int = Field(ge=0, le=12)
    """Decimal places of ``value`` and interval bounds."""
    display: str
    """How pages print it."""
    intervals: dict[str, Interval] = {}
    """Intervals by name (``narrow``, ``wide``, ``ci``)."""
    method: str
    """How the number was computed."""
    params: dict[str, Param] = {}
    """Parameters of the computation."""
    detail: dict[str, Param | list[str]] = {}
    """Supporting facts (counts, item ids) a page may show."""
    sources: list[Source]
    """Every file the number was computed from."""


REGISTRY_SCHEMA_VERSION = 2


class FiguresRegistry(Record):
    """``figures/figures.json``."""

    # The published schema (a download, which never changes) keeps its first title.
    model_config = ConfigDict(title="Registry")
    supported_schema_version: ClassVar[int] = REGISTRY_SCHEMA_VERSION

    schema_version: int = Field(default=REGISTRY_SCHEMA_VERSION, ge=1)
    """Version of this file format (2: ``receipts``). Version 1 files still read; the
    audit says their figures carry no receipt."""
    generator: str
    """Name and version of the generator that computed the figures."""
    figures: dict[str, Figure]
    """Every figure by id."""
    receipts: dict[str, Receipt] = {}
    """What scored each volume's figures, by volume id (since schema version 2)."""
