"""Is the calibration sample the one the volume declared?

Each unit is a graded criterion of a draw the volume has, of a judged item, graded by at
least two declared humans and by every calibrated judge, and by nobody else; no unit twice.
The sample as a whole covers every category with judged items, the declared number of
draws and of candidates, every declared criterion type, and over-samples the declared
safety failures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from generator.models.calibration import ACCEPT, CalibrationRecord, CalibrationSet
from generator.words import counted

DrawId = tuple[str, str, str, int]
"""Candidate slug, item, half, draw."""


@dataclass(frozen=True)
class Issue:
    """One way the sample differs from its declaration."""

    rule: str
    line: int | None
    message: str
    fix: str | None = None


@dataclass(frozen=True)
class Frame:
    """What the check knows of the volume.

    Attributes:
        judged: Category of every judged (Tier 1) item of the bank version, by item id.
        candidates: Listed candidates' bundle slugs.
        draws: Draw keys ``(item, half, draw)`` each bundle has, by slug (a bundle left
            out is not checked draw by draw).
        judges: The calibrated judges' keys.
        rubrics: Each readable rubric item's lines, ``{line id: criterion type}``, by item
            id (a held-out item read without the private store is absent: its lines are
            not checked).
        pass_fail: The judged items scored pass/fail (no rubric), where that is known.
    """

    judged: Mapping[str, str]
    candidates: Sequence[str]
    draws: Mapping[str, frozenset[tuple[str, str, int]]]
    judges: Sequence[str]
    rubrics: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    pass_fail: frozenset[str] = frozenset()


def draw_id(record: CalibrationRecord) -> DrawId:
    """The draw a unit belongs to."""
    return (record.candidate, record.item, record.half, record.draw)


def _unit(line: int, record: CalibrationRecord, frame: Frame, humans: set[str]) -> list[Issue]:
    out: list[Issue] = []
    where = f"{record.candidate} {record.item} {record.half}{record.draw}"
    if record.candidate not in frame.candidates:
        out.append(Issue("calibration-draw", line, f"{record.candidate} is no listed candidate"))
    elif record.item not in frame.judged:
        out.append(
            Issue("calibration-draw", line, f"{record.item} is not a judged item of the volume")
        )
    elif record.candidate in frame.draws and (
        (record.item, record.half, record.draw) not in frame.draws[record.candidate]
    ):
        out.append(Issue("calibration-draw", line, f"{where} is not a draw of the bundle"))
    criterion = _criterion_problem(record, frame)
    if criterion is not None:
        out.append(Issue("calibration-criterion", line, f"{where}: {criterion}"))
    raters = {g.rater for g in record.grades}
    if len(raters & humans) < 2:
        out.append(
            Issue(
                "calibration-humans",
                line,
                f"{where} is graded by {counted(len(raters & humans), 'declared human')}; "
                "every unit is graded independently by at least two",
            )
        )
    missing = [j for j in frame.judges if j not in raters]
    if missing:
        out.append(Issue("calibration-judge", line, f"{where}: no grade by {', '.join(missing)}"))
    strangers = sorted(raters - humans - set(frame.judges))
    if strangers:
        out.append(
            Issue(
                "calibration-rater",
                line,
                f"{where} is graded by {', '.join(strangers)}, neither a declared calibration "
                "human nor a calibrated judge",
            )
        )
    return out


def _criterion_problem(record: CalibrationRecord, frame: Frame) -> str | None:
    """Why the unit's criterion is not one its item has (None: it is, or cannot be known)."""
    lines = frame.rubrics.get(record.item)
    if record.criterion == "pass-fail":
        return "a rubric item is graded line by line, not pass/fail" if lines else None
    if record.item in frame.pass_fail:
        return f"{record.item} has no rubric, so no {record.criterion} line"
    if lines is None or record.line is None:
        return None
    kind = lines.get(record.line)
    if kind is None:
        return f"{record.item}'s rubric has no line {record.line}"
    if kind != record.criterion:
        return f"line {record.line} of {record.item} is a {kind} line, not {record.criterion}"
    return None


def _rejected(record: CalibrationRecord, judges: Sequence[str]) -> bool:
    """Whether any calibrated judge rejected the unit."""
    accept = ACCEPT[record.criterion]
    return any(g.rater in judges and g.label != accept for g in record.grades)


def _coverage(
    records: Sequence[CalibrationRecord], frame: Frame, decl: CalibrationSet
) -> list[Issue]:
    out: list[Issue] = []
    draws = {draw_id(r) for r in records}
    if len(draws) < decl.draws:
        out.append(
            Issue(
                "calibration-size",
                None,
                f"the calibration sample has {counted(len(draws), 'draw')}, fewer than the "
                f"declared {decl.draws}",
            )
        )
    covered = {frame.judged.get(r.item) for r in records}
    missing = sorted(set(frame.judged.values()) - covered)
    if missing:
        out.append(
            Issue(
                "calibration-category",
                None,
                f"the calibration sample misses category {', '.join(missing)}: no draw of its "
                "judged items was graded by the humans",
                "stratify the sample so every category with judged items is in it",
            )
        )
    want = min(decl.candidates, len(frame.candidates))
    have = len({r.candidate for r in records})
    if have < want:
        out.append(
            Issue(
                "calibration-candidates",
                None,
                f"the calibration sample has draws of {counted(have, 'candidate')}; "
                f"the declaration asks for {want}",
            )
        )
    types = {r.criterion for r in records}
    for criterion in decl.criteria:
        if criterion not in types:
            out.append(
                Issue("calibration-criterion", None, f"no {criterion} unit is in the sample")
            )
    return out


def _oversample(
    records: Sequence[CalibrationRecord], frame: Frame, decl: CalibrationSet
) -> list[Issue]:
    wanted = decl.oversample.categories
    unknown = sorted(set(wanted) - set(frame.judged.values()))
    if unknown:
        return [
            Issue(
                "calibration-oversample",
                None,
                f"oversample.categories names {', '.join(unknown)}, which has no judged item",
            )
        ]
    draws = {draw_id(r) for r in records}
    failures = {
        draw_id(r)
        for r in records
        if frame.judged.get(r.item) in wanted and _rejected(r, frame.judges)
    }
    share = len(failures) / len(draws) if draws else 0.0
    if share < float(decl.oversample.min_share):
        return [
            Issue(
                "calibration-oversample",
                None,
                f"{len(failures)} of {len(draws)} sampled draws ({share:.1%}) are judged "
                f"failures in {', '.join(wanted)}; the declared over-sample is at least "
                f"{float(decl.oversample.min_share):.1%}",
            )
        ]
    return []


def check_design(
    records: Sequence[tuple[int, CalibrationRecord]], frame: Frame, decl: CalibrationSet
) -> list[Issue]:
    """Every way the sample (records with their line numbers) breaks its declaration."""
    humans = {h.id for h in decl.humans}
    out: list[Issue] = []
    seen: dict[tuple[str, str, str, int, str, str], int] = {}
    for line, record in records:
        first = seen.setdefault(record.unit, line)
        if first != line:
            out.append(Issue("calibration-duplicate", line, f"the unit of line {first} again"))
        out.extend(_unit(line, record, frame, humans))
    plain = [r for _, r in records]
    return out + _coverage(plain, frame, decl) + _oversample(plain, frame, decl)
