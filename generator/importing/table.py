"""Read an import file (CSV or JSONL) into rows, each with the line it starts on.

The encoding is the caller's: UTF-8 unless ``--encoding`` names another, never guessed.
A byte the encoding cannot decode is refused with its offset and line, and the fix names
the option. The file is bounded like every reader (size, records), read as a regular
file only, and JSONL lines are parsed strictly (duplicate keys, NaN refused).

A maintainer's own file rarely uses the format's column names, so ``ColumnMap`` renames
(``--column FIELD=COLUMN``) and fills constant or composed values (``--value
FIELD=TEXT``, with ``{COLUMN}`` replaced by the row's cell) before the rows are
validated: the source file is read as it is, never rewritten by hand.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from generator.errors import InputError, Problem, UsageError
from generator.store.jsonl import Bounds, Problems, format_loc, pydantic_messages
from generator.store.regular import read_regular
from generator.store.strict import StrictError, parse_json

FORMATS = ("csv", "jsonl")
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class SourceRow(NamedTuple):
    """One row of the import file: the line it starts on and its fields."""

    line: int
    data: dict[str, Any]


@dataclass(frozen=True)
class ColumnMap:
    """How the file's columns become the format's fields."""

    columns: dict[str, str] = field(default_factory=dict)
    """Field -> the file's column holding it (``--column FIELD=COLUMN``)."""
    values: dict[str, str] = field(default_factory=dict)
    """Field -> a text for every row, ``{COLUMN}`` replaced by that row's cell
    (``--value FIELD=TEXT``; ``{{`` and ``}}`` stand for braces)."""
    dropped: frozenset[str] = frozenset()
    """Columns of the file that are not imported (``--drop COLUMN``); they may still
    fill a ``--value`` placeholder."""
    fields: frozenset[str] = frozenset()
    """The format's fields, when known: a CSV column that maps to none is refused once,
    at the header (``prefixes`` allowed too)."""
    prefixes: tuple[str, ...] = ()
    """Field name prefixes the format accepts (``label:``, ``evidence:``)."""

    @classmethod
    def parse(
        cls, columns: tuple[str, ...], values: tuple[str, ...], dropped: tuple[str, ...] = ()
    ) -> ColumnMap:
        """From ``FIELD=COLUMN`` and ``FIELD=TEXT`` options.

        Raises:
            UsageError: An option is not ``FIELD=…``, or a field is given twice.
        """
        out: dict[str, dict[str, str]] = {"--column": {}, "--value": {}}
        for option, texts in (("--column", columns), ("--value", values)):
            for text in texts:
                name, sep, source = text.partition("=")
                if not sep or not name.strip():
                    raise UsageError(f"{option} takes FIELD=…, got {text!r}")
                name = name.strip()
                if name in out["--column"] or name in out["--value"]:
                    raise UsageError(f"{option}: field {name!r} is mapped twice")
                out[option][name] = source
        names = frozenset(n.strip() for text in dropped for n in text.split(",") if n.strip())
        return cls(out["--column"], out["--value"], names)

    def apply(self, row: dict[str, Any]) -> dict[str, Any]:
        """The row with renamed fields and filled values (unmapped fields kept).

        Raises:
            KeyError: A mapped column is not in the row.
        """
        taken = set(self.columns.values()) | self.dropped
        data = {k: v for k, v in row.items() if k not in taken}
        for name, column in self.columns.items():
            if column in row:
                data[name] = row[column]
        for name, text in self.values.items():
            data[name] = _fill(text, row)
        return data

    def unknown_columns(self, header: list[str]) -> list[str]:
        """Columns of ``header`` that become no field of the format (none when the
        format's fields are not known)."""
        if not self.fields:
            return []
        mapped = self.apply(dict.fromkeys(header, ""))
        return sorted(k for k in mapped if k not in self.fields and not k.startswith(self.prefixes))

    def missing_columns(self, header: list[str]) -> list[str]:
        """Mapped, dropped or placeholder columns the file's header lacks."""
        wanted = set(self.columns.values()) | self.dropped
        for text in self.values.values():
            wanted.update(m.group(1) for m in PLACEHOLDER.finditer(_unbraced(text)))
        return sorted(wanted - set(header))


def _unbraced(text: str) -> str:
    return text.replace("{{", "").replace("}}", "")


def _fill(text: str, row: dict[str, Any]) -> str:
    parts = text.replace("{{", "\0l").replace("}}", "\0r")

    def cell(match: re.Match[str]) -> str:
        value = row[match.group(1)]
        return "" if value is None else str(value)

    return PLACEHOLDER.sub(cell, parts).replace("\0l", "{").replace("\0r", "}")


def file_format(path: Path, given: str | None) -> str:
    """``csv`` or ``jsonl``: the ``--format`` given, else the file's suffix.

    Raises:
        UsageError: Neither says.
    """
    chosen = given or path.suffix.lower().lstrip(".")
    if chosen == "json":
        chosen = "jsonl"
    if chosen not in FORMATS:
        raise UsageError(f"{path}: cannot tell CSV from JSONL by its name; pass --format csv|jsonl")
    return chosen


def decode(raw: bytes, encoding: str, shown: str) -> str:
    """``raw`` decoded with ``encoding``, strictly.

    Raises:
        UsageError: The encoding is unknown.
        InputError: A byte does not decode (its offset and line are named).
    """
    try:
        codec = codecs.lookup(encoding)
    except LookupError:
        raise UsageError(f"--encoding {encoding!r} is not an encoding Python knows") from None
    if codec.name == "utf-8" and raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        return raw.decode(codec.name)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        byte = raw[exc.start : exc.start + 1].hex()
        message = (
            f"byte 0x{byte} at offset {exc.start} is not valid {codec.name} "
            "(the file is read as UTF-8 unless --encoding names its encoding; it is never "
            "guessed)"
        )
        fix = "pass --encoding with the file's encoding (e.g. --encoding cp1252, mac-roman)"
        raise InputError(
            f"cannot read {shown}:", [Problem(shown, line, "encoding", message, fix)]
        ) from None


def read_table(
    path: Path,
    shown: str,
    *,
    encoding: str,
    fmt: str,
    bounds: Bounds,
    columns: ColumnMap,
) -> list[SourceRow]:
    """Every row of the file, mapped, with the line it starts on.

    Raises:
        InputError: The file cannot be read or decoded, or a row is malformed (every
            problem is listed).
    """
    problems = Problems()
    raw = read_regular(path, shown, problems, bounds.max_file_bytes)
    if raw is None:
        raise InputError(f"cannot read {shown}:", problems.items)
    text = decode(raw, encoding, shown)
    reader = _csv_rows if fmt == "csv" else _jsonl_rows
    rows: list[SourceRow] = []
    for row in reader(text, shown, problems, columns):
        if len(rows) >= bounds.max_records:
            message = f"more than {bounds.max_records} records"
            problems.add(shown, row.line, "max-records", message, "raise --limit max_records=N")
            break
        rows.append(row)
    if problems:
        raise InputError(f"cannot read {shown}:", problems.items)
    return rows


def _csv_rows(text: str, shown: str, problems: Problems, columns: ColumnMap) -> Iterator[SourceRow]:
    # Cells may hold whole responses; the file's size bound already caps them.
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        problems.add(shown, 1, "csv", f"invalid CSV header: {exc}")
        return
    if header is None:
        problems.add(shown, None, "csv", "the file is empty (a header line is needed)")
        return
    header = [h.strip() for h in header]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        problems.add(shown, 1, "csv-header", f"columns named twice: {', '.join(twice)}")
        return
    unknown = columns.unknown_columns(header)
    if unknown:
        message = f"columns that are no field of the format: {', '.join(unknown)}"
        fix = "map each with --column FIELD=COLUMN, or leave it out with --drop COLUMN"
        problems.add(shown, 1, "csv-header", message, fix)
        return
    missing = columns.missing_columns(header)
    if missing:
        fix = "check the --column and --value options against the header"
        problems.add(shown, 1, "csv-header", f"no column named {', '.join(missing)}", fix)
        return
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            problems.add(shown, start, "csv", f"invalid CSV: {exc}")
            return
        if cells and len(cells) != len(header):
            message = f"{len(cells)} cells for {len(header)} columns"
            problems.add(shown, start, "csv-row", message)
        elif cells:
            row = {h: (c if c != "" else None) for h, c in zip(header, cells, strict=True)}
            yield SourceRow(start, columns.apply(row))
        start = reader.line_num + 1


def _jsonl_rows(
    text: str, shown: str, problems: Problems, columns: ColumnMap
) -> Iterator[SourceRow]:
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = parse_json(line.encode("utf-8"))
        except StrictError as exc:
            problems.add(shown, number, exc.rule, exc.message)
            continue
        if not isinstance(value, dict):
            problems.add(shown, number, "jsonl", "a line must hold one JSON object")
            continue
        missing = columns.missing_columns(list(value))
        if missing:
            message = f"no field named {', '.join(missing)}"
            problems.add(shown, number, "jsonl", message, "check the --column and --value options")
            continue
        yield SourceRow(number, columns.apply(value))


def add_validation_problems(
    exc: ValidationError, shown: str, line: int, problems: Problems
) -> None:
    """One problem per pydantic error of the row at ``line``: ``field: message``."""
    for loc, message in pydantic_messages(exc):
        where = format_loc(loc)
        problems.add(shown, line, "row", f"{where}: {message}" if where else message)
