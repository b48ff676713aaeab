"""Commands that read another runner's logs into records rows: ``inspect``, ``lm-eval``.

Both check the logs against the bank (ids, prompts, lm-eval's hashes) and refuse what
cannot be mapped honestly, listing every problem. ``--rows-out FILE`` writes the rows as
records JSONL (rows with held-out responses only inside the private store); without it
the logs are only checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from generator.cli.base import EPILOG, State, pass_state, writer_lock
from generator.console import err
from generator.errors import UsageError, escape
from generator.importing.rows import RecordRow
from generator.words import counted

_LOGS = click.argument(
    "logs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path)
)


def _shared(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options both commands take: the id map, rater names, half, the rows file."""
    for option in reversed(
        (
            click.option(
                "--ids",
                "ids_file",
                type=click.Path(dir_okay=False, path_type=Path),
                help="YAML/JSON id map (ids: {SOURCE_ID: ITEM_ID}) when the log's ids are not "
                "the bank's item ids [default: the ids are item ids].",
            ),
            click.option(
                "--rater",
                "raters",
                multiple=True,
                metavar="NAME=RATER_ID",
                help="The rater id of a scorer or metric [default: its name] (repeatable).",
            ),
            click.option(
                "--half", default="A", show_default=True, help="The half the draws belong to."
            ),
            click.option(
                "--rows-out",
                type=click.Path(dir_okay=False, path_type=Path),
                help="Write the rows as records JSONL here (inside the root; rows of "
                "held-out items inside the private store). Without it, only check the logs.",
            ),
        )
    ):
        command = option(command)
    return command


@click.command("inspect", epilog=EPILOG)
@_LOGS
@click.option(
    "--candidate",
    help="The candidate's API string [default: the eval's model, as Inspect names it].",
)
@_shared
@pass_state
def inspect_command(
    state: State,
    logs: tuple[Path, ...],
    candidate: str | None,
    ids_file: Path | None,
    raters: tuple[str, ...],
    half: str,
    rows_out: Path | None,
) -> None:
    """Read Inspect AI eval logs (.eval or .json) into records rows: one per sample × epoch.

    Needs the inspect extra (pip install 'probepress[inspect]').
    """
    from generator.importing.inspect_logs import read_inspect_logs

    def read(bank: Any, declared: Any) -> list[RecordRow]:
        return read_inspect_logs(logs, bank, declared, candidate, state.bounds)

    _run(state, logs, ids_file, raters, half, rows_out, read)


@click.command("lm-eval", epilog=EPILOG)
@_LOGS
@click.option("--candidate", required=True, help="The candidate's API string (the log names none).")
@click.option("--no-labels", is_flag=True, help="Leave the metrics out (needed with repeats > 1).")
@click.option("--id-field", default="id", show_default=True, help="The doc field with the item id.")
@click.option(
    "--prompt-field", default="prompt", show_default=True, help="The doc field with the prompt."
)
@_shared
@pass_state
def lm_eval_command(
    state: State,
    logs: tuple[Path, ...],
    candidate: str,
    no_labels: bool,
    id_field: str,
    prompt_field: str,
    ids_file: Path | None,
    raters: tuple[str, ...],
    half: str,
    rows_out: Path | None,
) -> None:
    """Read lm-evaluation-harness sample logs (samples_*.jsonl, from --log_samples) into
    records rows, re-checking their doc_hash and prompt_hash against the bank."""
    from generator.importing.lm_eval import LmEvalOptions, read_lm_eval_samples

    options = LmEvalOptions(not no_labels, id_field, prompt_field)

    def read(bank: Any, declared: Any) -> list[RecordRow]:
        return read_lm_eval_samples(logs, bank, declared, candidate, options, state.bounds)

    _run(state, logs, ids_file, raters, half, rows_out, read)


def _run(
    state: State,
    logs: Sequence[Path],
    ids_file: Path | None,
    raters: tuple[str, ...],
    half: str,
    rows_out: Path | None,
    read: Callable[[Any, Any], list[RecordRow]],
) -> None:
    """Load the bank and the declarations, read the logs, write or summarise the rows."""
    from generator.importing.sources import (
        Declared,
        load_bank_for_import,
        load_ids,
        parse_raters,
        write_rows,
    )

    if not re.fullmatch(r"[A-Z]", half):
        raise UsageError(f"--half takes one capital letter (A, B …), got {escape(half)!r}")
    layout = state.layout
    ids = load_ids(ids_file, state.bounds) if ids_file is not None else None
    declared = Declared(ids, str(ids_file or ""), parse_raters(raters), half)
    bank = load_bank_for_import(layout, state.bounds)
    rows = read(bank, declared)
    items = len({row.item for row in rows})
    lost = sum(row.response is None for row in rows)
    summary = (
        f"{counted(len(rows), 'draw')} of {counted(items, 'item')} from "
        f"{counted(len(logs), 'log')}, {lost} lost"
    )
    if rows_out is None:
        err.print(
            f"checked: {summary} (nothing written; --rows-out FILE writes them)", markup=False
        )
        return
    with writer_lock(layout.root):
        write_rows(layout, rows, rows_out, bank)
    err.print(f"wrote {escape(str(rows_out))}: {summary}", markup=False)


COMMANDS = (inspect_command, lm_eval_command)
"""The commands of this module, for the ``import`` group."""
