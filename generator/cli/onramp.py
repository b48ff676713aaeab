"""Commands that start a root and bring a maintainer's data in: init, import, prereg."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from generator.cli.base import EPILOG, Group, State, pass_state, writer_lock
from generator.console import err, out, print_json
from generator.errors import CheckFailed
from generator.store import Layout
from generator.words import counted

if TYPE_CHECKING:
    from generator.importing.bundles import BundlesResult
    from generator.importing.table import SourceRow

F = Callable[..., Any]


def _released(value: str | None) -> dt.date:
    if value:
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise click.BadParameter(f"expected YYYY-MM-DD, got {value!r}") from None
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date()
    return dt.datetime.now(dt.UTC).date()


@click.command(epilog=EPILOG)
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", required=True, help="The bank's name (site name and bank/bank.yaml).")
@click.option(
    "--category", "categories", multiple=True, metavar="ID[=TITLE]", help="A category (repeatable)."
)
@click.option("--categories", "category_list", metavar="A,B,C", help="Categories, comma-separated.")
@click.option(
    "--license",
    "licence",
    default="CC-BY-4.0",
    show_default=True,
    help="Licence of the public items.",
)
@click.option(
    "--released",
    metavar="YYYY-MM-DD",
    help="Release date of bank v1 [default: $SOURCE_DATE_EPOCH's day, else today].",
)
@pass_state
def init(
    state: State,
    directory: Path,
    name: str,
    categories: tuple[str, ...],
    category_list: str | None,
    licence: str,
    released: str | None,
) -> None:
    """Start a publishable root for your own bank in DIRECTORY (new or empty).

    Writes mkdocs.yml, the hand-written pages (site_src/), bank/bank.yaml with your
    categories and no items, the commented skeleton bundles/vol-001/volume.yaml, a
    .gitignore that keeps the private store out of git, and the private store with its
    bank secret (DIRECTORY/.private unless --private names another).
    """
    from generator.init import init_root, parse_categories, refuse_non_empty, validate

    wanted = parse_categories((*categories, *([category_list] if category_list else [])))
    layout = Layout.at(directory, state.private_option or directory / ".private")
    day = _released(released)
    refuse_non_empty(layout.root)
    validate(name, wanted, licence, day)
    with writer_lock(layout.root, create=True):
        result = init_root(layout, name=name, categories=wanted, licence=licence, released=day)
    err.print(
        f"initialised {result.root} ({counted(len(result.files), 'file')}); "
        f"private store {result.private} "
        "(keep it out of git and back it up). Next: fill in bundles/vol-001/volume.yaml, "
        "`probepress import items FILE`, `probepress prereg vol-001 --write`.",
        markup=False,
    )


@click.group("import", cls=Group, epilog=EPILOG)
def import_group() -> None:
    """Bring data in: bank items, or records as sealed bundles.

    Files are CSV or JSONL, read as UTF-8 unless --encoding names another (never
    guessed). --column FIELD=COLUMN renames a column of your file; --value FIELD=TEXT
    gives a field to every row, {COLUMN} replaced by the row's cell.
    """


def table_options(command: F) -> F:
    """--format, --encoding, --column and --value, shared by every file importer."""
    options = [
        click.option(
            "--format",
            "fmt",
            type=click.Choice(["csv", "jsonl"]),
            help="The file's format [default: by its suffix].",
        ),
        click.option(
            "--encoding",
            default="utf-8",
            show_default=True,
            help="The file's text encoding (e.g. cp1252, mac-roman); never guessed.",
        ),
        click.option(
            "--column",
            "columns",
            multiple=True,
            metavar="FIELD=COLUMN",
            help="Read FIELD from your file's COLUMN (repeatable).",
        ),
        click.option(
            "--drop",
            "dropped",
            multiple=True,
            metavar="COLUMN[,COLUMN…]",
            help="Columns of your file not to import (repeatable).",
        ),
        click.option(
            "--value",
            "values",
            multiple=True,
            metavar="FIELD=TEXT",
            help="FIELD is TEXT in every row, {COLUMN} filled from the row (repeatable).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _table(state: State, path: Path, table: dict[str, Any], model: Any) -> list[SourceRow]:
    """The rows of an import file, read with the shared options (``table_options``)."""
    from generator.importing.table import ColumnMap, file_format, read_table

    parsed = ColumnMap.parse(table["columns"], table["values"], table["dropped"])
    fields = frozenset(model.model_fields)
    columns = replace(parsed, fields=fields, prefixes=getattr(model, "FIELD_PREFIXES", ()))
    return read_table(
        path,
        str(path),
        encoding=table["encoding"],
        fmt=file_format(path, table["fmt"]),
        bounds=state.bounds,
        columns=columns,
    )


@import_group.command("items", epilog=EPILOG)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--version",
    "version",
    metavar="VERSION",
    help="Bank version the items are added in [default: the latest in bank.yaml].",
)
@click.option(
    "--heldout-list",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file of item ids, one a line, to hold out (instead of a heldout column).",
)
@table_options
@pass_state
def import_items_command(
    state: State,
    /,
    file: Path,
    version: str | None,
    heldout_list: Path | None,
    **table: Any,
) -> None:
    """Add the probes of FILE to the bank: public ones to bank/public.jsonl, held-out
    ones' text to the private store (the repository keeps keyed commitments only).

    Columns: id, category, tier (0 or 1), prompt, pass_criterion, check (Tier 0, JSON),
    heldout (true/false), status, and the validation ladder's rungs up to it:
    written_by/written_on, reviewed_by/reviewed_on, validated_by/validated_on (a
    different person each), or validation (JSON), or external (the publication that
    validated the item, with validated_by/validated_on); sources. An item already in the
    bank is refused, never overwritten.
    """
    from generator.importing.items import ItemRow, import_items, mark_heldout

    rows = _table(state, file, table, ItemRow)
    if heldout_list is not None:
        rows = mark_heldout(rows, heldout_list, str(file))
    with writer_lock(state.layout.root):
        result = import_items(state.layout, rows, str(file), version=version, bounds=state.bounds)
    err.print(
        f"added {len(result.public)} public and {len(result.heldout)} held-out items to bank "
        f"{result.version} (held-out texts in {state.layout.private})",
        markup=False,
    )


def label_options(command: F) -> F:
    """--pass-label, --fail-label and --refused-label (each repeatable)."""
    for name, meaning in (
        ("--refused-label", "the rater declined to grade [default: refused, grader_refused]"),
        ("--fail-label", "the draw fails [default: fail]"),
        ("--pass-label", "the draw passes [default: pass]"),
    ):
        dest = name.removeprefix("--").replace("-", "_") + "s"
        command = click.option(
            name,
            dest,
            multiple=True,
            metavar="LABEL",
            help=f"A label meaning {meaning} (repeatable).",
        )(command)
    return command


def _labels(
    pass_labels: tuple[str, ...], fail_labels: tuple[str, ...], refused_labels: tuple[str, ...]
) -> Any:
    """The label map the options state, or None when none is given (the volume's declared
    rule, or the default pass/fail, reads the labels then)."""
    from generator.importing.labels import LabelMap

    if not (pass_labels or fail_labels or refused_labels):
        return None
    return LabelMap.of(pass_labels, fail_labels, refused_labels)


@import_group.command("records", epilog=EPILOG)
@click.argument("volume")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--manifest",
    "manifest",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="YAML of what the rows do not say: runner, each candidate's "
    "family, endpoint and run dates, the jury's endpoints, qualification results.",
)
@label_options
@table_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable summary on stdout.")
@pass_state
def import_records_command(
    state: State,
    /,
    volume: str,
    file: Path,
    manifest: Path,
    pass_labels: tuple[str, ...],
    fail_labels: tuple[str, ...],
    refused_labels: tuple[str, ...],
    as_json: bool,
    **table: Any,
) -> None:
    """Write a sealed bundle for each candidate of VOLUME from the records in FILE.

    One row per draw: candidate, item, half, draw, response, status, attempts …, and a
    label:<rater> column per rater (the grader's label decides the verdict; panel
    judges' and the adjudication seat's labels are panel votes). When volume.yaml
    declares scoring, each label is kept as given and pass/fail is derived by the
    pre-registered rule of the item's group (no --pass-label etc. then); otherwise the
    label options say what a label means. A rubric item's draw carries the grader's
    rubric grades instead: met:<rater>:<line> (yes/no) and quote:<rater>:<line> per
    rubric line and deflected:<rater>. Held-out responses go to the private store;
    an existing bundle is refused, never overwritten.
    """
    from generator.importing.bundles import write_bundles
    from generator.importing.inputs import load_inputs
    from generator.importing.records import record_rows
    from generator.importing.rows import RecordRow

    labels = _labels(pass_labels, fail_labels, refused_labels)
    inputs = load_inputs(manifest, str(manifest), state.bounds)
    rows = record_rows(_table(state, file, table, RecordRow), str(file))
    with writer_lock(state.layout.root):
        result = write_bundles(
            state.layout,
            volume,
            rows,
            inputs,
            labels=labels,
            inputs_shown=str(manifest),
            bounds=state.bounds,
        )
    if as_json:
        print_json(
            {**result.__dict__, "bundles": list(result.bundles), "missing": list(result.missing)}
        )
        return
    err.print(_records_summary(result), markup=False)


def _records_summary(result: BundlesResult) -> str:
    parts = [
        f"{result.volume}: wrote {counted(len(result.bundles), 'bundle')}, "
        f"{counted(result.draws, 'draw')}, {counted(result.panel_votes, 'panel vote')}, "
        f"{counted(result.heldout_responses, 'held-out response')} "
        "(in the private store)"
    ]
    if result.unused_tier0_labels:
        parts.append(
            f"{result.unused_tier0_labels} grader labels on Tier 0 draws not used "
            "(their check decides)"
        )
    if result.missing:
        parts.append(f"no rows for {', '.join(result.missing)}")
    return "; ".join(parts)


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option("--write", is_flag=True, help="Put the hash into volume.yaml's preregistration.")
@click.option("--check", is_flag=True, help="Exit 1 unless volume.yaml holds this hash.")
@pass_state
def prereg(state: State, volume: str, write: bool, check: bool) -> None:
    """Print the pre-registration hash of VOLUME's protocol, thresholds and jury.

    Fix it before any run: --write puts it into bundles/VOLUME/volume.yaml (keeping its
    comments); commit that file before the bundles.
    """
    from generator.prereg import volume_preregistration, write_preregistration

    sha = volume_preregistration(state.layout, volume, state.bounds)
    out.print(sha, markup=False)
    if check:
        text = state.layout.volume_file(volume).read_text("utf-8")
        if f"sha256: {sha}" not in text:
            raise CheckFailed(f"{volume}: preregistration.sha256 is not {sha}")
    if write:
        with writer_lock(state.layout.root):
            changed = write_preregistration(state.layout, volume, sha)
        err.print(f"{volume}: preregistration.sha256 {'written' if changed else 'unchanged'}")


COMMANDS = (init, import_group, prereg)
