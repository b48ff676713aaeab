"""One validation error in plain words: what was expected, and what was found.

Pydantic's "Input should be 'pass', 'fail' or 'refused'" does not say what the file
holds; the value is added when it is short and cannot be free text (a literal, a
number, a flag, an id that fails its pattern): a response or a held-out answer is never
quoted into a message. For anything else only its JSON type is named. The JSON parser's
own "at line 1 column 15" counts lines of one record, not of the file, so only the
column is kept (the message is located at the file's line already).
"""

from __future__ import annotations

import re
from typing import Any

SHOWN = (
    "literal_error",
    "enum",
    "int_",
    "float_",
    "bool_",
    "greater_than",
    "less_than",
    "multiple_of",
    "string_pattern_mismatch",
    "date",
    "datetime",
)
"""Error types whose input is a short value of a closed vocabulary or a number."""
MAX_SHOWN = 40
"""Characters of a shown value; longer ones are cut with an ellipsis."""
_AT = re.compile(r" at line \d+ column (\d+)$")
_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "true or false",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def parser_message(text: str) -> str:
    """A JSON parser's message without the parser's own line (its column kept)."""
    return _AT.sub(r" (column \1)", text)


def found(error: dict[str, Any]) -> str:
    """``, got …`` naming what the file holds where ``error`` is, or "" (missing)."""
    if error["type"] == "missing" or "input" not in error:
        return ""
    value = error["input"]
    kind = _TYPES.get(type(value))
    if kind is None:
        return ""
    scalar = isinstance(value, (str, int, float)) and not isinstance(value, bool)
    if scalar and str(error["type"]).startswith(SHOWN):
        shown = repr(value)
        if len(shown) > MAX_SHOWN:
            shown = shown[: MAX_SHOWN - 1] + "…"
        return f", got {shown}"
    if error["type"] == "extra_forbidden":
        return ""  # the message names the key; its value says nothing more
    return f", got {kind}"
