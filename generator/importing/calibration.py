"""``probepress import calibration``: human and judge grades of a calibration set from a
maintainer's table (CSV or JSONL) into ``bundles/<volume>/calibration.jsonl``.

A row is one grade: a draw (candidate, item, half, draw), the criterion graded
(``pass-fail``, or a rubric line: ``must-include``, ``must-not``, ``should`` with its
``line``), a ``rater`` and its ``label``. A row may instead carry several raters' labels
of the same unit as ``label:<rater>`` columns (a wide file, one row per draw). The rows of
one unit are gathered into one calibration record, in the order the file first names it.

Raw labels become grades by the ``--pass-label``/``--fail-label``/``--yes-label``/
``--no-label`` options (default: the words themselves). The volume must declare its
calibration set first (pre-registered). Every bad row is refused with its file, line and
rule, and then nothing is written: a candidate or draw the volume lacks, a criterion the
item does not have, a rater that is neither a declared human nor a calibrated judge, a
judge grade other than the one its bundle records, a rater grading a unit twice. The
sample as a whole (size, categories, over-sample) is the agreement gate's to judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from pydantic import ValidationError

from generator.calibration.check import frame, recorded_verdicts
from generator.calibration.design import Issue, check_design
from generator.canonical import dumps_line, write_bytes
from generator.errors import InputError, Problem, UsageError
from generator.importing.rows import Label, RaterId
from generator.importing.table import SourceRow, add_validation_problems
from generator.models.base import ItemId, Name, Record, Slug
from generator.models.calibration import (
    CALIBRATION_FILE,
    CRITERION_LABELS,
    CalibrationRecord,
    CriterionType,
)
from generator.models.records import DrawIndex, Half
from generator.store.jsonl import Bounds, Problems
from generator.store.paths import Layout
from generator.store.volume import VolumeData, load_volume

LABEL = "label:"
GRADES = ("pass", "fail", "yes", "no")


class CalibrationRow(Record):
    """One row of a calibration import file: one rater's grade of one unit, or (with
    ``label:<rater>`` columns) several raters' grades of it."""

    FIELD_PREFIXES: ClassVar[tuple[str, ...]] = (LABEL,)
    """Column name prefix of a rater's label in a wide file."""

    candidate: Name
    """The candidate: its exact API string or its bundle slug, as the volume lists it."""
    item: ItemId
    """The bank item's id."""
    half: Half = "A"
    """The half the draw belongs to."""
    draw: DrawIndex = 1
    """The draw's index within its half, from 1."""
    criterion: CriterionType = "pass-fail"
    """What is graded: the pass/fail verdict, or a rubric line of this kind."""
    line: Slug | None = None
    """The rubric line's id (rubric criteria only)."""
    rater: RaterId | None = None
    """Who graded: a declared human's id or a calibrated judge's key (with ``label``)."""
    label: Label | None = None
    """The rater's label, as the file writes it (mapped by the label options)."""
    labels: dict[RaterId, Label] = {}
    """Several raters' labels of the unit, by rater (``label:<rater>`` columns)."""


@dataclass(frozen=True)
class GradeMap:
    """How the file's labels become grades: raw label -> ``pass``/``fail``/``yes``/``no``."""

    grades: dict[str, str] = field(default_factory=lambda: {g: g for g in GRADES})

    @classmethod
    def of(cls, options: dict[str, tuple[str, ...]]) -> GradeMap:
        """From the options (grade -> raw labels); the grade words themselves when none.

        Raises:
            UsageError: A raw label is given for two grades.
        """
        if not any(options.values()):
            return cls()
        out: dict[str, str] = {}
        for grade, raws in options.items():
            for raw in raws:
                if out.setdefault(raw, grade) != grade:
                    raise UsageError(f"label {raw!r} is given as both {out[raw]} and {grade}")
        return cls(out)


@dataclass(frozen=True)
class CalibrationImport:
    """What an import wrote: the records file, its units and the sample-wide findings the
    agreement gate will report."""

    path: str
    units: int
    grades: int
    notes: tuple[str, ...]


def _gathered(data: dict[str, object]) -> dict[str, object]:
    """``label:<rater>`` keys gathered into ``labels``; empty cells dropped (a ``labels``
    value that is no object is left for the row's validation to refuse)."""
    given = data.get("labels")
    labels: dict[str, object] = dict(given) if isinstance(given, dict) else {}
    out: dict[str, object] = {}
    for key, value in data.items():
        if key.startswith(LABEL):
            if value is not None:
                labels[key.removeprefix(LABEL)] = value
        elif key != "labels" and value is not None:
            out[key] = value
    keep = given is None or isinstance(given, dict)
    return {**out, "labels": labels if keep else given}


def _rows(
    rows: list[SourceRow], shown: str, problems: Problems
) -> list[tuple[int, CalibrationRow]]:
    out = []
    for line, data in rows:
        try:
            row = CalibrationRow.model_validate(_gathered(data))
        except ValidationError as exc:
            add_validation_problems(exc, shown, line, problems)
            continue
        if (row.rater is None) != (row.label is None):
            problems.add(shown, line, "row", "rater and label go together: give both or neither")
        elif row.rater is None and not row.labels:
            problems.add(shown, line, "row", "no grade: give rater and label, or label:<rater>")
        elif row.rater is not None and row.rater in row.labels:
            problems.add(shown, line, "row", f"{row.rater} is graded twice in the row")
        else:
            out.append((line, row))
    return out


Unit = tuple[str, str, str, int, str, str]


@dataclass
class _Draft:
    line: int
    row: CalibrationRow
    slug: str
    grades: dict[str, str] = field(default_factory=dict)


def _grade(
    raw: str, criterion: str, grades: GradeMap, where: tuple[str, int], problems: Problems
) -> str | None:
    grade = grades.grades.get(raw)
    allowed = CRITERION_LABELS[criterion]
    if grade in allowed:
        return grade
    known = ", ".join(f"{k!r}={v}" for k, v in grades.grades.items())
    problems.add(
        *where,
        "label",
        f"label {raw!r} is not a {criterion} grade ({' / '.join(allowed)}); the labels read "
        f"are {known}",
        "map the file's labels with --pass-label/--fail-label/--yes-label/--no-label",
    )
    return None


def _drafts(
    rows: list[tuple[int, CalibrationRow]],
    data: VolumeData,
    grades: GradeMap,
    shown: str,
    problems: Problems,
) -> list[_Draft]:
    """The units in first-named order, each rater's grade once."""
    slugs = {c.api: c.slug for c in data.volume.candidates}
    slugs.update({c.slug: c.slug for c in data.volume.candidates})
    units: dict[Unit, _Draft] = {}
    seen: dict[tuple[Unit, str], int] = {}
    for line, row in rows:
        slug = slugs.get(row.candidate)
        if slug is None:
            problems.add(shown, line, "candidate", f"{row.candidate} is no candidate of the volume")
            continue
        unit = (slug, row.item, row.half, row.draw, row.criterion, row.line or "")
        draft = units.setdefault(unit, _Draft(line, row, slug))
        given = dict(row.labels)
        if row.rater is not None and row.label is not None:
            given[row.rater] = row.label
        for rater, raw in given.items():
            first = seen.setdefault((unit, rater), line)
            if first != line:
                message = f"{rater} grades this unit again (first on line {first})"
                problems.add(shown, line, "duplicate-grade", message)
                continue
            grade = _grade(raw, row.criterion, grades, (shown, line), problems)
            if grade is not None:
                draft.grades[rater] = grade
    return list(units.values())


def _record(draft: _Draft, shown: str, problems: Problems) -> CalibrationRecord | None:
    row = draft.row
    try:
        return CalibrationRecord.model_validate(
            {
                "candidate": draft.slug,
                "item": row.item,
                "half": row.half,
                "draw": row.draw,
                "criterion": row.criterion,
                "line": row.line,
                "grades": [{"rater": r, "label": g} for r, g in draft.grades.items()],
            }
        )
    except ValidationError as exc:
        add_validation_problems(exc, shown, draft.line, problems)
        return None


def records(
    data: VolumeData, rows: list[SourceRow], shown: str, grades: GradeMap
) -> tuple[list[tuple[int, CalibrationRecord]], list[Issue]]:
    """The calibration records of the file's rows (each with the line that first names
    its unit) and the sample-wide issues; every bad row raises.

    Raises:
        InputError: A row is bad (every problem is listed, at its line, with its rule).
    """
    decl = data.volume.calibration
    if decl is None:
        raise UsageError(
            f"{data.volume.id} declares no calibration set: declare `calibration:` in its "
            "volume.yaml and pre-register it (probepress prereg --write) before importing grades"
        )
    if not rows:
        raise InputError(
            f"cannot import {shown}; nothing was written:",
            [Problem(shown, None, "empty", "the file has no grades")],
        )
    problems = Problems()
    drafts = _drafts(_rows(rows, shown, problems), data, grades, shown, problems)
    out = []
    for draft in drafts:
        record = _record(draft, shown, problems)
        if record is not None:
            out.append((draft.line, record))
    issues = check_design(out, frame(data), decl) + recorded_verdicts(data, out)
    for issue in (i for i in issues if i.line is not None):
        problems.add(shown, issue.line, issue.rule, issue.message, issue.fix)
    if problems:
        raise InputError(f"cannot import {shown}; nothing was written:", problems.items)
    return out, [i for i in issues if i.line is None]


def import_calibration(
    layout: Layout,
    volume: str,
    rows: list[SourceRow],
    shown: str,
    *,
    grades: GradeMap,
    replace: bool = False,
    bounds: Bounds | None = None,
) -> CalibrationImport:
    """Check the rows against ``volume`` and write its calibration records, all or none.

    Raises:
        InputError: A row is bad, or the volume cannot be read.
        UsageError: No calibration set is declared, or the records file exists and
            ``replace`` is not set.
    """
    data = load_volume(layout, volume, bounds=bounds)
    path = layout.volume_dir(volume) / CALIBRATION_FILE
    target = layout.rel(path)
    if (path.exists() or path.is_symlink()) and not replace:
        raise UsageError(f"{target} exists; pass --replace to write it again from {shown}")
    out, sample = records(data, rows, shown, grades)
    text = "".join(dumps_line(r.dump()) for _, r in out)
    write_bytes(path, text.encode("utf-8"), layout.root)
    return CalibrationImport(
        target,
        len(out),
        sum(len(r.grades) for _, r in out),
        tuple(f"{i.message} [{i.rule}]" for i in sample),
    )


__all__ = ["CalibrationRow", "GradeMap", "import_calibration", "records"]
