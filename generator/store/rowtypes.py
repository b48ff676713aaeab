"""The compact rows a loaded bundle is kept as (tuples, never model objects), so memory
stays bounded at 60 candidates × 103 items × 10 draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import NamedTuple

from generator.models.bundle import BundleManifest
from generator.models.records import Draw, PanelVote, PrivateResponse, Qualification, Verdict
from generator.rubric import Marks
from generator.store.paths import Layout


class DrawKey(NamedTuple):
    """Identifies a draw within a bundle."""

    item: str
    half: str
    draw: int


class DrawRow(NamedTuple):
    """What gates and figures need of a draw."""

    line: int
    key: DrawKey
    statuses: tuple[str, ...]
    lost: bool
    has_text: bool
    tier0_pass: bool | None


class VerdictRow(NamedTuple):
    """What gates and figures need of a verdict."""

    line: int
    key: DrawKey
    tier: int
    grader: str | None
    verdict: str
    borderline: bool
    has_evidence: bool
    label: str | None
    """The grader's own label (None: none recorded)."""
    rubric: Marks | None
    """A rubric verdict's line grades and deflection flag (None: not a rubric verdict)."""


class PanelRow(NamedTuple):
    """One panel vote."""

    line: int
    key: DrawKey
    judge: str
    family: str
    vote: str
    why: str
    label: str | None
    """The judge's own label (None: none recorded)."""


class QualificationRow(NamedTuple):
    """One qualification record."""

    line: int
    record: Qualification


@dataclass
class BundleData:
    """One bundle, validated and summarised."""

    slug: str
    directory: Path
    manifest: BundleManifest
    draws: list[DrawRow] = field(default_factory=list)
    verdicts: list[VerdictRow] = field(default_factory=list)
    panel: list[PanelRow] = field(default_factory=list)
    qualification: list[QualificationRow] = field(default_factory=list)
    file_sha256: dict[str, str] = field(default_factory=dict)

    def shown(self, layout: Layout, name: str) -> str:
        """Path of one of the bundle's files, as messages print it."""
        return layout.rel(self.directory / name)


# Rows are built with ``tuple.__new__`` (a C call): a NamedTuple's own ``__new__`` and
# ``_make`` are Python functions, one more call per record, and a volume has hundreds of
# thousands of records.
new_key = partial(tuple.__new__, DrawKey)
new_draw = partial(tuple.__new__, DrawRow)
new_verdict = partial(tuple.__new__, VerdictRow)
new_vote = partial(tuple.__new__, PanelRow)


def record_key(record: Draw | Verdict | PanelVote | PrivateResponse) -> DrawKey:
    """The draw a record is about."""
    return new_key((record.item, record.half, record.draw))
