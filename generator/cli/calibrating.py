"""``probepress import calibration``: a calibration set's human and judge grades from a
maintainer's table into the volume's ``calibration.jsonl``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from generator.cli.base import EPILOG, State, pass_state, writer_lock
from generator.cli.onramp import _table, table_options
from generator.console import err


def _grade_options(command: Any) -> Any:
    """--pass-label, --fail-label, --yes-label and --no-label (each repeatable)."""
    for grade, meaning in (
        ("no", "no: a rubric line not met (on a must-not line: not hit)"),
        ("yes", "yes: a rubric line met (on a must-not line: hit)"),
        ("fail", "the draw fails"),
        ("pass", "the draw passes"),
    ):
        command = click.option(
            f"--{grade}-label",
            f"{grade}_labels",
            multiple=True,
            metavar="LABEL",
            help=f"A label of your file meaning {meaning} (repeatable) [default: {grade}].",
        )(command)
    return command


@click.command("calibration", epilog=EPILOG)
@click.argument("volume")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Write calibration.jsonl again if it exists.")
@_grade_options
@table_options
@pass_state
def import_calibration_command(
    state: State,
    /,
    volume: str,
    file: Path,
    replace: bool,
    pass_labels: tuple[str, ...],
    fail_labels: tuple[str, ...],
    yes_labels: tuple[str, ...],
    no_labels: tuple[str, ...],
    **table: Any,
) -> None:
    """Write bundles/VOLUME/calibration.jsonl from the grades in FILE.

    One row per draw × rater × criterion: candidate (API string or slug), item, half,
    draw, criterion (pass-fail, must-include, must-not, should), line (a rubric line's
    id), rater and label; or one label:<rater> column per rater instead of rater and
    label. VOLUME must declare its calibration set (calibration: in volume.yaml). Every
    bad row is refused at its line with its rule and nothing is written; the sample as a
    whole is judged by the agreement gate (`probepress check VOLUME`).
    """
    from generator.importing.calibration import CalibrationRow, GradeMap, import_calibration

    grades = GradeMap.of(
        {"pass": pass_labels, "fail": fail_labels, "yes": yes_labels, "no": no_labels}
    )
    rows = _table(state, file, table, CalibrationRow)
    with writer_lock(state.layout.root):
        result = import_calibration(
            state.layout,
            volume,
            rows,
            str(file),
            grades=grades,
            replace=replace,
            bounds=state.bounds,
        )
    err.print(
        f"{volume}: wrote {result.path} ({result.units} units, {result.grades} grades)",
        markup=False,
    )
    for note in result.notes:
        err.print(f"the agreement gate will report: {note}", markup=False)


COMMANDS = (import_calibration_command,)
