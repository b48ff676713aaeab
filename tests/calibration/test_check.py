"""The calibration check read directly (no CLI): bad lines, bad files and bad
declarations each give one finding naming the file, the line and the rule."""

from __future__ import annotations

from pathlib import Path

from generator.calibration import report
from generator.calibration.check import UNVALIDATED, VALIDATED, Calibration, calibrate
from generator.store import Layout, load_volume
from tests.calibration.factory import HUMANS, calibration_set, declare, write_units
from tests.factories import VOL1

CAL = f"bundles/{VOL1}/calibration.jsonl"


def _calibrate(root: Path) -> Calibration:
    return calibrate(load_volume(Layout.at(root, root / ".private"), VOL1))


def _shown(cal: Calibration) -> list[str]:
    return [f"{p.path}:{p.line}: {p.message} [{p.rule}]" for p in report.findings(cal, "v")]


def test_a_clean_set_is_judge_calibrated(root: Path) -> None:
    calibration_set(root)
    cal = _calibrate(root)
    assert _shown(cal) == [] and cal.label == VALIDATED


def test_no_declaration_reads_nothing(root: Path) -> None:
    write_units(root, [{"not": "read"}])
    cal = _calibrate(root)
    assert cal.declared is None and cal.label == UNVALIDATED and not cal.problems


def test_a_bad_line_names_file_line_and_field(root: Path) -> None:
    units = calibration_set(root)
    units[4]["grades"][1]["label"] = "maybe"
    write_units(root, units)
    cal = _calibrate(root)
    (line,) = [m for m in _shown(cal) if m.startswith(f"{CAL}:5: ")]
    assert line == (
        f"{CAL}:5: grades[1].label: Input should be 'pass', 'fail', 'yes' or 'no', "
        "got 'maybe' [schema]"
    )
    assert cal.label == UNVALIDATED


def test_a_symlinked_records_file_is_refused(root: Path) -> None:
    calibration_set(root)
    path = root / CAL
    target = root / "elsewhere.jsonl"
    path.rename(target)
    path.symlink_to(target)
    found = _shown(_calibrate(root))
    assert found and all(m.startswith(f"{CAL}:") for m in found)


def test_a_judge_off_the_jury_is_refused(root: Path) -> None:
    calibration_set(root)
    declare(root, judges=["acme/not-seated"])
    found = _shown(_calibrate(root))
    assert any(
        "calibration.judges names acme/not-seated, who is not on the volume's jury" in m
        for m in found
    )


def test_humans_are_declared_as_humans() -> None:
    import pytest
    from pydantic import ValidationError

    from generator.models.calibration import CalibrationSet

    model = {"kind": "model", "api": "acme/x", "family": "acme"}
    with pytest.raises(ValidationError, match=r"humans\.0\.kind"):
        CalibrationSet.model_validate({"humans": [model, HUMANS[1]]})
    with pytest.raises(ValidationError, match="at least 2 items"):
        CalibrationSet.model_validate({"humans": [HUMANS[0]]})
    with pytest.raises(ValidationError, match="cannot also be a calibrated judge"):
        CalibrationSet.model_validate({"humans": HUMANS, "judges": ["rater-a"]})


def test_a_judge_grade_the_bundle_does_not_record_is_refused(root: Path) -> None:
    # The grader is recused for kestrel-chat-3 (a reserve graded it): a calibration grade
    # by the grader of one of its draws is a grade the published numbers never used.
    units = calibration_set(root)
    recused = "demo-kestrel-kestrel-chat-3"
    assert recused not in {u["candidate"] for u in units}
    extra = {**units[0], "candidate": recused, "half": "A", "draw": 1}
    write_units(root, [*units, extra])
    found = _shown(_calibrate(root))
    assert found == [
        f"{CAL}:{len(units) + 1}: demo-kestrel/kestrel-grader-2 has no recorded grade of "
        f"{recused} {extra['item']} A1 [calibration-judge-grade]"
    ]


def test_a_unit_must_grade_a_criterion_its_item_has() -> None:
    """A rubric line the item's rubric lacks, a line of another kind, a pass/fail unit of a
    rubric item and a line unit of a pass/fail item are each refused at their line."""
    from generator.calibration.design import Frame, check_design
    from generator.models.calibration import CalibrationRecord, CalibrationSet

    frame = Frame(
        judged={"r-1": "advice", "p-1": "advice"},
        candidates=["c"],
        draws={"c": frozenset({("r-1", "A", 1), ("p-1", "A", 1)})},
        judges=["judge"],
        rubrics={"r-1": {"core-1": "must-include", "harm-1": "must-not"}},
        pass_fail=frozenset({"p-1"}),
    )

    def unit(item: str, criterion: str, line: str | None) -> CalibrationRecord:
        label = "pass" if criterion == "pass-fail" else "yes"
        grades = [{"rater": r, "label": label} for r in ("h1", "h2", "judge")]
        return CalibrationRecord.model_validate(
            {
                "candidate": "c",
                "item": item,
                "half": "A",
                "draw": 1,
                "criterion": criterion,
                "line": line,
                "grades": grades,
            }
        )

    decl = CalibrationSet.model_validate(
        {
            "humans": [{"kind": "human", "id": "h1"}, {"kind": "human", "id": "h2"}],
            "judges": ["judge"],
            "criteria": ["pass-fail", "must-include", "must-not", "should"],
        }
    )
    records = [
        (1, unit("r-1", "must-include", "core-1")),
        (2, unit("r-1", "must-include", "nope")),
        (3, unit("r-1", "must-include", "harm-1")),
        (4, unit("r-1", "pass-fail", None)),
        (5, unit("p-1", "should", "x")),
        (6, unit("p-1", "pass-fail", None)),
    ]
    found = [
        (i.line, i.message)
        for i in check_design(records, frame, decl)
        if i.rule == "calibration-criterion" and i.line is not None
    ]
    assert found == [
        (2, "c r-1 A1: r-1's rubric has no line nope"),
        (3, "c r-1 A1: line harm-1 of r-1 is a must-not line, not must-include"),
        (4, "c r-1 A1: a rubric item is graded line by line, not pass/fail"),
        (5, "c p-1 A1: p-1 has no rubric, so no should line"),
    ]
