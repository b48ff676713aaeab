"""``probepress sample``: the draws a maintainer's raters must grade (panel or humans)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from generator.cli.base import EPILOG, State, pass_state
from generator.cli.onramp import _labels, _table, label_options, table_options
from generator.console import err
from generator.words import counted


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option(
    "--records",
    "records",
    type=click.Path(dir_okay=False, path_type=Path),
    help="List the sample from this records file (before import) instead of the bundles.",
)
@click.option(
    "--calibration",
    is_flag=True,
    help="List the units of the declared calibration sample for the humans to grade "
    "(from the bundles; without the judge's grades) instead of the panel sample.",
)
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (.csv or .jsonl) instead of CSV on stdout.",
)
@label_options
@table_options
@pass_state
def sample(
    state: State,
    /,
    volume: str,
    records: Path | None,
    calibration: bool,
    out_file: Path | None,
    pass_labels: tuple[str, ...],
    fail_labels: tuple[str, ...],
    refused_labels: tuple[str, ...],
    **table: Any,
) -> None:
    """List the draws of VOLUME the panel must vote on (the pre-registered sample).

    From the imported bundles' verdicts, or with --records from a records file's
    grader labels before import. One row per draw: candidate, item, half, draw,
    category, why (stratified, borderline, grader_refused), judges. With --calibration,
    one row per unit of the calibration sample the volume declares: candidate, item,
    half, draw, category, criterion, line.
    """
    from generator.importing import sample as sampling

    if calibration and records is not None:
        raise click.UsageError("--calibration lists from the bundles; drop --records")
    if calibration:
        rows = sampling.calibration_from_bundles(state.layout, volume, state.bounds)
        columns, noun, where = sampling.CALIBRATION_COLUMNS, "unit", "the calibration sample"
    else:
        if records is not None:
            from generator.importing.records import record_rows
            from generator.importing.rows import RecordRow

            located = record_rows(_table(state, records, table, RecordRow), str(records))
            labels = _labels(pass_labels, fail_labels, refused_labels)
            drawn = sampling.sample_from_rows(state.layout, volume, located, labels, state.bounds)
        else:
            drawn = sampling.sample_from_bundles(state.layout, volume, state.bounds)
        rows = [asdict(d) for d in drawn]
        columns, noun, where = sampling.COLUMNS, "draw", "the panel sample"
    as_jsonl = out_file is not None and out_file.suffix == ".jsonl"
    text = sampling.sample_text(rows, columns, "jsonl" if as_jsonl else "csv")
    if out_file is None:
        click.echo(text, nl=False)
    else:
        out_file.write_text(text, encoding="utf-8")
    err.print(f"{volume}: {counted(len(rows), noun)} in {where}", markup=False)


COMMANDS = (sample,)
