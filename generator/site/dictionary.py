"""The data dictionary page (``downloads/dictionary.md``), generated from the JSON Schemas.

Every format ``probepress schema`` writes gets a section: what the file is, a link to its
schema, and a table of its fields — name, type (with every allowed value of an enum, so the
verdict statuses ``grader_refused`` and ``lost`` are listed where they occur), whether it
is required, and its meaning (the model's field docstring). Each nested part of a format
(``$defs``) gets its own table. The tidy leaderboard CSV, which has no JSON Schema, is
described column by column from the same field docstrings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from generator.models.leaderboard import LeaderboardRow, RowInterval
from generator.schema import schemas
from generator.site import tidy
from generator.site.markup import code, link, page, table, text

PAGE = "dictionary.md"
"""The page's name inside ``downloads/``."""
Schema = Mapping[str, Any]


def literal(value: str) -> str:
    """``value`` in a code span, or as inert text when it holds a pipe (a table cell
    would split at it)."""
    return text(value) if "|" in value else code(value)


def prose(description: str) -> str:
    """A docstring as inline Markdown: ``double-backtick`` spans become code, the rest
    inert text, line breaks spaces."""
    pieces = description.replace("\n", " ").split("``")
    return "".join(literal(p) if i % 2 else text(p) for i, p in enumerate(pieces))


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def type_of(spec: Schema) -> str:
    """A field's JSON Schema type in words, as inline Markdown."""
    if "$ref" in spec:
        return text(_ref_name(str(spec["$ref"])))
    if "enum" in spec:
        return "one of " + ", ".join(literal(json.dumps(v)) for v in spec["enum"])
    if "const" in spec:
        return "always " + literal(json.dumps(spec["const"]))
    for key in ("anyOf", "oneOf"):
        if key in spec:
            shown = [type_of(s) for s in spec[key] if s.get("type") != "null"]
            nullable = any(s.get("type") == "null" for s in spec[key])
            return " or ".join(shown) + (" or null" if nullable else "")
    kind = spec.get("type")
    if kind == "array":
        return "list of " + type_of(spec.get("items", {}))
    if kind == "object":
        values = spec.get("additionalProperties") or next(
            iter(spec.get("patternProperties", {}).values()), None
        )
        return "map to " + type_of(values) if isinstance(values, Mapping) else "object"
    plain = text(kind or "any")
    if "pattern" in spec:
        plain += " matching " + literal(str(spec["pattern"]))
    if "format" in spec:
        plain += f" ({text(spec['format'])})"
    return plain


def fields_table(schema: Schema) -> str:
    """The fields of one object schema: name, type, required, meaning."""
    required = set(schema.get("required", []))
    rows = [
        [
            code(name),
            type_of(spec),
            "yes" if name in required else "no",
            prose(str(spec.get("description", ""))),
        ]
        for name, spec in schema.get("properties", {}).items()
    ]
    return table(["Field", "Type", "Required", "Meaning"], rows)


def format_section(file_name: str, schema: Schema) -> str:
    """One format: its description, its schema link, its fields and its parts."""
    stem = file_name.removesuffix(".schema.json")
    blocks = [
        f"## {text(stem)}",
        prose(str(schema.get("description", ""))),
        f"Schema: {link(file_name, f'schemas/{file_name}')} · schema version "
        f"{text(schema.get('x-schema-version', ''))}",
        fields_table(schema),
    ]
    for name, part in sorted(schema.get("$defs", {}).items()):
        if part.get("type") != "object":
            continue
        blocks += [
            f"### {text(stem)}: {text(name)}",
            prose(str(part.get("description", ""))),
            fields_table(part),
        ]
    return "\n\n".join(blocks)


def _doc(model: type[Any], name: str) -> str:
    return str(model.model_fields[name].description or "")


def csv_section() -> str:
    """The tidy leaderboard CSV, column by column."""
    rows = [[code(c), prose(_doc(LeaderboardRow, c))] for c in tidy.HEAD]
    for name in tidy.INTERVALS:
        for part in tidy.INTERVAL_FIELDS:
            meaning = f"Of the {code(name)} interval: " + prose(_doc(RowInterval, part))
            rows.append([code(f"{name}_{part}"), meaning])
    rows += [[code(c), prose(_doc(LeaderboardRow, c))] for c in tidy.TAIL]
    return "\n\n".join(
        [
            "## Tidy leaderboard CSV",
            "The rows of the JSON leaderboard, one line each, with a header line; UTF-8, "
            "comma-separated, empty cells where a figure has no such value. Each interval "
            f"gets four columns; {prose('``narrow``, ``wide`` and ``ci``')} always appear, "
            "any other interval a figure carries gets columns after them. A text cell a "
            "spreadsheet would run as a formula (starting with "
            + code("=")
            + ", "
            + code("+")
            + ", "
            + code("-")
            + " or "
            + code("@")
            + ") is prefixed with "
            + code("'")
            + ".",
            table(["Column", "Meaning"], rows),
        ]
    )


def dictionary_page() -> str:
    """``downloads/dictionary.md``."""
    found = {name: json.loads(body) for name, body in sorted(schemas().items())}
    return page(
        "Data dictionary",
        "Every file format of the downloads, field by field, generated from the JSON "
        "Schemas (the same models that read and write the files, so this page cannot "
        "drift from them). Files are UTF-8; JSONL files hold one JSON object a line; "
        "unknown fields are refused; decimals are written as strings with their "
        "declared precision.",
        csv_section(),
        *(format_section(name, schema) for name, schema in found.items()),
    )
