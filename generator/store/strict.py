"""Parse JSON and YAML unambiguously and within bounds.

Two parsers reading the same bytes must see the same data, so duplicate keys are refused
(Python's ``json`` and PyYAML both keep the last one silently). Nesting depth and
integer length are bounded, so a hostile file costs a bounded amount of time and stack
instead of a ``RecursionError`` or CPython's 4,300-digit ``int`` limit.

JSON is parsed by ``jiter`` (pydantic-core's parser, in Rust): it detects duplicate keys
and bounds nesting while it parses, at about 2 µs a JSONL line. YAML goes through
``StrictLoader``, PyYAML's safe loader with the same refusals (and no aliases: an alias
lets a small file expand into a large tree).
"""

from __future__ import annotations

import codecs
import re
from typing import Any

import jiter
import yaml

JSON_MAX_DEPTH = 200
"""jiter's nesting bound, fixed in the parser: 200 levels inside the outermost value."""
YAML_MAX_DEPTH = 100
"""Nesting bound of YAML documents; PyYAML composes recursively, so it must stay well
under Python's recursion limit."""
MAX_INT_DIGITS = 50
"""Longest integer any file format needs (sizes, counts, seeds) by a wide margin."""

BOM = b"\xef\xbb\xbf"


class StrictError(ValueError):
    """One refusal: its rule, message and 1-based line (None when unknown)."""

    def __init__(self, rule: str, message: str, line: int | None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.line = line


_JITER_AT = re.compile(r"^(?P<what>.*) at line (?P<line>\d+) column (?P<col>\d+)$", re.S)
_DUPLICATE = re.compile(r'^Detected duplicate key "(?P<key>.*)"$', re.S)


def _jiter_refusal(exc: ValueError) -> StrictError:
    """A jiter error as a rule, message and line."""
    text = str(exc)
    found = _JITER_AT.match(text)
    what, line = (found["what"], int(found["line"])) if found else (text, None)
    dup = _DUPLICATE.match(what)
    if dup:
        return StrictError("duplicate-key", f'duplicate key "{dup["key"]}"', line)
    if what.startswith("recursion limit exceeded"):
        message = f"nesting is deeper than the {JSON_MAX_DEPTH}-level bound"
        return StrictError("too-deep", message, line)
    if what.startswith("number out of range"):
        return StrictError("int-too-long", _long_int_message(), line)
    column = f" (column {found['col']})" if found else ""
    return StrictError("syntax", f"invalid JSON: {what}{column}", line)


def _long_int_message(digits: int | None = None) -> str:
    size = f"has {digits} digits, " if digits is not None else "is "
    return f"integer {size}over the {MAX_INT_DIGITS}-digit bound"


def parse_json(raw: bytes) -> Any:
    """The JSON value of ``raw`` (UTF-8, no BOM): strict and bounded.

    Raises:
        StrictError: Duplicate key, nesting or integer over the bounds, NaN/Infinity, or
            invalid JSON.
    """
    if raw.startswith(BOM):
        raise StrictError("bom", "starts with a UTF-8 byte-order mark; save without it", 1)
    try:
        value = jiter.from_json(raw, allow_inf_nan=False, catch_duplicate_keys=True)
    except ValueError as exc:
        raise _jiter_refusal(exc) from None
    # An integer is written as its digits, so one over the bound is a run of more
    # digits than the bound in the bytes: without such a run the tree need not be walked.
    digits = _longest_int(value) if _long_digit_run(raw) else 0
    if digits > MAX_INT_DIGITS:
        raise StrictError("int-too-long", _long_int_message(digits), _int_line(raw, digits))
    return value


def check_json_line(line: bytes) -> None:
    """Refuse what a lenient validator accepted in one JSONL line: duplicate keys.

    The line has already been validated (so it is JSON, its integers are bounded by the
    models); this parse only adds the duplicate-key refusal.
    """
    try:
        jiter.from_json(line, catch_duplicate_keys=True, cache_mode="keys")
    except ValueError as exc:
        raise _jiter_refusal(exc) from None


_DIGITS = bytes(49 if 48 <= b <= 57 else 48 for b in range(256))
"""``bytes.translate`` table: each ASCII digit to ``1``, every other byte to ``0``."""
_RUN = b"1" * (MAX_INT_DIGITS + 1)
_RUN_BLOCK = 1 << 20


def _long_digit_run(raw: bytes) -> bool:
    """Whether ``raw`` holds more than ``MAX_INT_DIGITS`` ASCII digits in a row (mapped a
    MiB at a time, each block with the bound's length of the next, so no run is cut)."""
    for start in range(0, len(raw), _RUN_BLOCK):
        if _RUN in raw[start : start + _RUN_BLOCK + MAX_INT_DIGITS].translate(_DIGITS):
            return True
    return False


def _longest_int(value: Any) -> int:
    """Digits of the longest integer in a parsed value (iterative: no recursion)."""
    longest = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, int) and not isinstance(node, bool):
            # str() is refused past 4,300 digits; a length from bit_length is enough there.
            bits = node.bit_length()
            longest = max(longest, len(str(abs(node))) if bits < 4000 else int(bits * 0.30103))
    return longest


def _int_line(raw: bytes, digits: int) -> int | None:
    found = re.search(rb"[0-9]{%d}" % min(digits, MAX_INT_DIGITS + 1), raw)
    return raw.count(b"\n", 0, found.start()) + 1 if found else None


class StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader refusing duplicate keys, aliases, deep nesting and long ints."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise StrictError(
                "yaml-alias",
                "YAML aliases (*name) are not accepted; write the value out",
                mark.line + 1,
            )
        self._depth += 1
        try:
            if self._depth > YAML_MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                message = f"nesting is deeper than the {YAML_MAX_DEPTH}-level bound"
                raise StrictError("too-deep", message, mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: PyYAML refuses it below
                    continue
                if duplicate:
                    shown = key if isinstance(key, str) else repr(key)
                    raise StrictError(
                        "duplicate-key", f'duplicate key "{shown}"', key_node.start_mark.line + 1
                    )
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: Any) -> Any:
        digits = sum(c.isdigit() for c in str(node.value))
        if digits > MAX_INT_DIGITS:
            line = node.start_mark.line + 1
            raise StrictError("int-too-long", _long_int_message(digits), line)
        return super().construct_yaml_int(node)


StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)


def parse_yaml(text: str) -> Any:
    """The YAML value of ``text``: strict and bounded (see ``StrictLoader``).

    Raises:
        StrictError: A refusal of ``StrictLoader``.
        yaml.YAMLError: Invalid YAML.
    """
    if text.startswith("\ufeff"):
        raise StrictError("bom", "starts with a UTF-8 byte-order mark; save without it", 1)
    return yaml.load(text, Loader=StrictLoader)  # a SafeLoader subclass


def compose_yaml(text: str) -> yaml.Node | None:
    """The node tree of ``text`` (for line numbers), or None when it does not compose."""
    try:
        return yaml.compose(text.removeprefix("\ufeff"), Loader=StrictLoader)
    except (yaml.YAMLError, StrictError):
        return None


_DECODED = 1 << 20
"""Bytes decoded at a time when UTF-8 is only checked."""


def check_utf8(raw: bytes) -> None:
    """Refuse ``raw`` unless it is UTF-8, decoded a block at a time and the text dropped:
    raises ``raw.decode``'s own error (its position in the whole) when it is not."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    try:
        for start in range(0, len(raw), _DECODED):
            decoder.decode(view[start : start + _DECODED])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raw.decode("utf-8")  # the error, located in the whole file
        raise  # pragma: no cover - the codec refuses the same bytes either way
