"""The tidy leaderboard download (``downloads/leaderboards/<volume>_leaderboard.json``).

One row per candidate × metric, taken from the figures registry as registered (never
recomputed): the value, every interval, the sample size and the method. The CSV beside it
has the same rows and the columns of :data:`CSV_COLUMNS`.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from generator.models.base import Name, Part, Record, Slug
from generator.models.figures import Decimal
from generator.models.volume import Role

LEADERBOARD_SCHEMA_VERSION = 1


class RowInterval(Part):
    """One interval of a row's figure, as registered."""

    lo: Decimal
    """Lower bound (a decimal string, same precision as the value)."""
    hi: Decimal
    """Upper bound."""
    confidence: Decimal
    """Nominal coverage (``0.95``)."""
    method: str
    """Method name, as the methodology page names it."""


class LeaderboardRow(Part):
    """One metric of one candidate or anchor."""

    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume id."""
    candidate: Slug
    """The candidate's slug (its bundle folder and figure prefix)."""
    api: Name
    """Exact API string of the model."""
    display_name: Name
    """The name the pages show."""
    role: Role
    """``candidate`` or ``anchor`` (a reference model measured in every volume)."""
    metric: str
    """The figure id after ``<volume>/<candidate>/`` (``core_rate``, ``half/a/rate`` …)."""
    figure_id: str
    """The full figure id in ``figures.json``."""
    kind: str
    """What sort of number it is (``rate``, ``count``, ``points``, ``rank`` …)."""
    label: str
    """What the number is, in a sentence."""
    value: Decimal
    """The number as a decimal string (rates are shares in [0, 1], not percentages)."""
    precision: int = Field(ge=0, le=12)
    """Decimal places of the value and the interval bounds."""
    display: str
    """How the pages print it."""
    intervals: dict[str, RowInterval] = {}
    """Intervals by name: ``narrow`` (the bank held fixed), ``wide`` (the probes as a
    sample of probes like these), ``ci`` (other metrics' single interval)."""
    n: int | None = None
    """Draws the figure is computed over (null, an empty CSV cell, when it records none)."""
    items: int | None = None
    """Items the figure is computed over (null, an empty CSV cell, when it records none)."""
    method: str
    """How the number was computed."""


class Leaderboard(Record):
    """``<volume>_leaderboard.json``: every registered figure of every candidate."""

    supported_schema_version: ClassVar[int] = LEADERBOARD_SCHEMA_VERSION

    schema_version: int = Field(default=LEADERBOARD_SCHEMA_VERSION, ge=1)
    """Version of this file format. Readers refuse versions newer than they know."""
    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume id."""
    title: Name
    """The volume's title."""
    demonstration: bool
    """True for demonstration data: no number here describes a real model."""
    rows: list[LeaderboardRow]
    """Candidates in leaderboard order, each candidate's metrics sorted by name."""
