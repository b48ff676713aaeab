"""The calibration check of one volume, as the ``agreement`` gate runs it.

Reads ``bundles/<volume>/calibration.jsonl`` when the volume declares a calibration set,
checks the sample against the declaration (``design``), checks that each calibrated
judge's grade of a pass/fail unit is the verdict it recorded in the bundle, computes the
agreement per criterion type and applies the pre-registered rule. Without a declaration
nothing is read and every judged number is judge-unvalidated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.calibration.agreement import CriterionAgreement, by_criterion
from generator.calibration.design import Frame, Issue, check_design
from generator.calibration.rule import Decision
from generator.calibration.versions import VersionResult, by_version, combined
from generator.errors import Problem
from generator.models.calibration import (
    CALIBRATION_FILE,
    RUBRIC_CRITERION,
    CalibrationRecord,
    CalibrationSet,
)
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.volume import VolumeData

UNVALIDATED = "judge-unvalidated"
"""The label of every judged number of a volume without a calibration set."""
VALIDATED = "judge-calibrated"
"""The label of every judged number of a volume whose calibration set met its rule."""
UNVALIDATED_WHY = (
    "no calibration set is declared: the grader was not compared with human graders, so "
    "every judged number is judge-unvalidated"
)


@dataclass(frozen=True)
class Calibration:
    """A volume's calibration as checked.

    Attributes:
        declared: The declaration (None: no calibration set; nothing else is filled).
        path: The records file as messages print it.
        records: The units with their line numbers.
        problems: Unreadable lines and every way the sample breaks its declaration.
        results: Agreement per criterion type, over the whole sample.
        decision: The rule applied to every calibrated judge, version by version.
        judges: The calibrated judges' keys.
        versions: The rule applied to the units of each bank version the sample spans.
    """

    declared: CalibrationSet | None
    path: str = ""
    records: tuple[tuple[int, CalibrationRecord], ...] = ()
    problems: tuple[Problem, ...] = ()
    results: tuple[CriterionAgreement, ...] = ()
    decision: Decision | None = None
    judges: tuple[str, ...] = field(default=())
    versions: tuple[VersionResult, ...] = ()

    @property
    def label(self) -> str:
        """``judge-calibrated`` when declared, read cleanly and every judge accepted; else
        ``judge-unvalidated``."""
        decision = self.decision
        if self.declared is None or self.problems or decision is None or decision.refused:
            return UNVALIDATED
        return VALIDATED


def calibrated_judges(data: VolumeData) -> tuple[str, ...]:
    """The judges the declaration calibrates (the grader when it names none)."""
    decl = data.volume.calibration
    if decl is None:
        return ()
    return tuple(decl.judges) or (data.volume.jury.grader.key,)


def frame(data: VolumeData) -> Frame:
    """What the design check needs to know of ``data``."""
    judged = {
        m.id: m.category for m in data.bank.active_items(data.volume.bank_version) if m.tier == 1
    }
    draws = {
        slug: frozenset((d.key.item, d.key.half, d.key.draw) for d in bundle.draws)
        for slug, bundle in data.bundles.items()
    }
    slugs = [c.slug for c in data.volume.candidates]
    rubrics: dict[str, dict[str, str]] = {}
    pass_fail: set[str] = set()
    for item in judged:
        full = data.bank.full_item(item)
        if full is None:  # held out, read without the private store
            continue
        if full.rubric is None:
            pass_fail.add(item)
        else:
            rubrics[item] = {i: RUBRIC_CRITERION[k] for i, k in full.rubric.kinds().items()}
    return Frame(judged, slugs, draws, calibrated_judges(data), rubrics, frozenset(pass_fail))


Given = dict[tuple[str, str, str, int, str, str], tuple[str, str]]


def _recorded_grades(data: VolumeData) -> Given:
    """Each calibrated judge's grades in the bundles, with the file that records them, by
    draw, judge and rubric line (``""``: the pass/fail verdict): its verdicts as grader
    (and its grade of each rubric line), its votes as panel judge."""
    judges = set(calibrated_judges(data))
    given: Given = {}
    for slug, bundle in data.bundles.items():
        for v in bundle.verdicts:
            if v.grader not in judges:
                continue
            if v.verdict in ("pass", "fail"):
                given[(slug, *v.key, v.grader, "")] = (v.verdict, "verdicts.jsonl")
            for g in v.rubric.lines if v.rubric is not None else ():
                label = "yes" if g.met else "no"
                given[(slug, *v.key, v.grader, g.line)] = (label, "verdicts.jsonl")
        for p in bundle.panel:
            if p.judge in judges and p.vote in ("pass", "fail"):
                given.setdefault((slug, *p.key, p.judge, ""), (p.vote, "panel.jsonl"))
    return given


def recorded_verdicts(
    data: VolumeData, records: list[tuple[int, CalibrationRecord]]
) -> list[Issue]:
    """A calibrated judge's grade of a unit (a pass/fail verdict, or a rubric line) is
    the grade it recorded in the bundle: a grade the bundle does not record, or records
    otherwise, is refused (the judge is calibrated on the grades the published numbers
    use)."""
    out: list[Issue] = []
    judges = set(calibrated_judges(data))
    given = _recorded_grades(data)
    for line, r in records:
        if r.candidate not in data.bundles:
            continue
        for g in (g for g in r.grades if g.rater in judges):
            recorded = given.get((r.candidate, r.item, r.half, r.draw, g.rater, r.line or ""))
            where = f"{r.item} {r.half}{r.draw}" + (f" line {r.line}" if r.line else "")
            if recorded is None:
                message = f"{g.rater} has no recorded grade of {r.candidate} {where}"
            elif recorded[0] != g.label:
                message = (
                    f"{g.rater} graded {where} {g.label} here but its grade in "
                    f"{r.candidate}/{recorded[1]} is {recorded[0]}"
                )
            else:
                continue
            fix = "the judge's calibration grades are the grades it recorded in the bundles"
            out.append(Issue("calibration-judge-grade", line, message, fix))
    return out


def _seated(data: VolumeData) -> list[Issue]:
    """Every calibrated judge is a member of the volume's jury."""
    members = {m.key for m in data.volume.jury.members()}
    return [
        Issue(
            "calibration-judge",
            None,
            f"calibration.judges names {judge}, who is not on the volume's jury",
            "calibrate the grader, panel judges or reserves the volume seats",
        )
        for judge in calibrated_judges(data)
        if judge not in members
    ]


def calibrate(data: VolumeData, bounds: Bounds | None = None) -> Calibration:
    """Read and check the calibration set of ``data`` (nothing when none is declared)."""
    decl = data.volume.calibration
    if decl is None:
        return Calibration(None)
    layout = data.layout
    path = layout.volume_dir(data.volume.id) / CALIBRATION_FILE
    shown = layout.rel(path)
    problems = Problems()
    if not path.exists() and not path.is_symlink():
        problems.add(
            shown,
            None,
            "calibration-missing",
            "the volume declares a calibration set but this file does not exist",
            f"write the humans' and judges' grades to {shown}, or remove `calibration:`",
        )
        return Calibration(decl, shown, problems=tuple(problems.items))
    records = list(iter_jsonl(path, CalibrationRecord, shown, problems, bounds or Bounds()))
    # A judge off the jury first: it explains every line's findings that follow.
    issues = _seated(data) + check_design(records, frame(data), decl)
    issues += recorded_verdicts(data, records)
    for issue in issues:
        problems.add(shown, issue.line, issue.rule, issue.message, issue.fix)
    judges = calibrated_judges(data)
    humans = [h.id for h in decl.humans]
    level = float(data.volume.thresholds.confidence)
    units = [r for _, r in records]
    results = tuple(by_criterion(units, humans, judges, level))
    bank = data.bank
    added = {i: m.added_in for i, m in (*bank.public.items(), *bank.heldout.items())}
    order = bank.manifest.versions_up_to(data.volume.bank_version)
    versions = by_version(units, added, order, decl.rule, humans, judges, level)
    return Calibration(
        decl,
        shown,
        tuple(records),
        tuple(problems.items),
        results,
        combined(versions, judges),
        judges,
        versions,
    )
