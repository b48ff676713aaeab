"""Commands that read another runner's logs: ``inspect``, ``lm-eval``.

Both check the logs against the bank (ids, prompts, lm-eval's hashes) and refuse what
cannot be mapped honestly, listing every problem. ``--volume VOLUME --manifest FILE``
writes the sealed bundles (as ``import records`` does from a records file);
``--rows-out FILE`` writes the rows as records JSONL instead (rows with held-out
responses only inside the private store); with neither the logs are only checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from generator.cli.base import EPILOG, State, pass_state, writer_lock
from generator.cli.onramp import label_options
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
                "--volume",
                metavar="VOLUME",
                help="Write a sealed bundle for each candidate of VOLUME (needs --manifest).",
            ),
            click.option(
                "--manifest",
                type=click.Path(dir_okay=False, path_type=Path),
                help="With --volume: YAML of what the logs do not say (as for `import "
                "records`): runner, each candidate's family, endpoint and run dates, the "
                "jury's endpoints, qualification results.",
            ),
            click.option(
                "--rows-out",
                type=click.Path(dir_okay=False, path_type=Path),
                help="Write the rows as records JSONL here instead (inside the root; rows of "
                "held-out items inside the private store). With neither, only check the logs.",
            ),
        )
    ):
        command = option(command)
    return label_options(command)


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
    /,
    logs: tuple[Path, ...],
    candidate: str | None,
    ids_file: Path | None,
    raters: tuple[str, ...],
    half: str,
    **into: Any,
) -> None:
    """Import Inspect AI eval logs (.eval or .json): one draw per sample × epoch, into
    sealed bundles of --volume (or records rows with --rows-out).

    Needs the inspect extra (pip install 'probepress[inspect]').
    """
    from generator.importing.inspect_logs import read_inspect_logs

    def read(bank: Any, declared: Any) -> list[RecordRow]:
        return read_inspect_logs(logs, bank, declared, candidate, state.bounds)

    _run(state, logs, ids_file, raters, half, into, read)


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
    /,
    logs: tuple[Path, ...],
    candidate: str,
    no_labels: bool,
    id_field: str,
    prompt_field: str,
    ids_file: Path | None,
    raters: tuple[str, ...],
    half: str,
    **into: Any,
) -> None:
    """Import lm-evaluation-harness sample logs (samples_*.jsonl, from --log_samples) into
    sealed bundles of --volume (or records rows with --rows-out), re-checking their
    doc_hash and prompt_hash against the bank."""
    from generator.importing.lm_eval import LmEvalOptions, read_lm_eval_samples

    options = LmEvalOptions(not no_labels, id_field, prompt_field)

    def read(bank: Any, declared: Any) -> list[RecordRow]:
        return read_lm_eval_samples(logs, bank, declared, candidate, options, state.bounds)

    _run(state, logs, ids_file, raters, half, into, read)


def _run(
    state: State,
    logs: Sequence[Path],
    ids_file: Path | None,
    raters: tuple[str, ...],
    half: str,
    into: dict[str, Any],
    read: Callable[[Any, Any], list[RecordRow]],
) -> None:
    """Load the bank and the declarations, read the logs; write the bundles or the rows,
    or summarise them."""
    from generator.importing.sources import (
        Declared,
        load_bank_for_import,
        load_ids,
        parse_raters,
        write_rows,
    )

    if not re.fullmatch(r"[A-Z]", half):
        raise UsageError(f"--half takes one capital letter (A, B …), got {escape(half)!r}")
    volume, manifest, rows_out = into["volume"], into["manifest"], into["rows_out"]
    if (volume is None) != (manifest is None):
        raise UsageError("--volume and --manifest go together (the bundles need both)")
    if volume is not None and rows_out is not None:
        raise UsageError("give --volume (write bundles) or --rows-out (write rows), not both")
    layout = state.layout
    ids = load_ids(ids_file, state.bounds) if ids_file is not None else None
    declared = Declared(ids, str(ids_file or ""), parse_raters(raters), half)
    if volume is not None:
        _write_bundles(
            state, logs, into, read(load_bank_for_import(layout, state.bounds), declared)
        )
        return
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
            f"checked: {summary} (nothing written; --volume or --rows-out writes them)",
            markup=False,
        )
        return
    with writer_lock(layout.root):
        write_rows(layout, rows, rows_out, bank)
    err.print(f"wrote {escape(str(rows_out))}: {summary}", markup=False)


def _write_bundles(
    state: State, logs: Sequence[Path], into: dict[str, Any], rows: list[RecordRow]
) -> None:
    """The rows as sealed bundles of ``--volume`` (``write_bundles``, as ``import records``)."""
    from generator.cli.onramp import _labels, _records_summary
    from generator.importing.bundles import Located, write_bundles
    from generator.importing.inputs import load_inputs

    manifest: Path = into["manifest"]
    labels = _labels(into["pass_labels"], into["fail_labels"], into["refused_labels"])
    inputs = load_inputs(manifest, str(manifest), state.bounds)
    # A message names the draw: rows of logs have no line of their own.
    shown = str(logs[0]) if len(logs) == 1 else f"{len(logs)} logs"
    located = [Located(f"{shown}: {r.item} {r.half}{r.draw}", None, r) for r in rows]
    with writer_lock(state.layout.root):
        result = write_bundles(
            state.layout,
            into["volume"],
            located,
            inputs,
            labels=labels,
            inputs_shown=str(manifest),
            bounds=state.bounds,
        )
    err.print(_records_summary(result), markup=False)


COMMANDS = (inspect_command, lm_eval_command)
"""The commands of this module, for the ``import`` group."""
