"""Bounded, strict, streaming readers for JSONL, JSON and YAML files.

Every reader reports problems as ``path:line: field: message`` and keeps going, so one
run lists everything wrong with a file (up to a cap) instead of stopping at the first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from generator.errors import Problem
from generator.models.base import json_validator
from generator.store.plain import found, parser_message
from generator.store.regular import check_regular, open_regular, read_regular
from generator.store.strict import (
    StrictError,
    check_json_line,
    check_utf8,
    compose_yaml,
    parse_json,
    parse_yaml,
)

M = TypeVar("M", bound=BaseModel)

MAX_PROBLEMS_PER_FILE = 25


@dataclass(frozen=True)
class Bounds:
    """Limits every reader enforces. Defaults fit 60 candidates × 103 items × 10 draws
    with wide margins; raise them for larger volumes."""

    max_file_bytes: int = 256 * 1024 * 1024
    max_line_bytes: int = 4 * 1024 * 1024
    max_records: int = 100_000
    max_yaml_bytes: int = 1024 * 1024


class Problems:
    """Collects problems; ``add`` returns False once a file's cap is reached."""

    def __init__(self) -> None:
        self.items: list[Problem] = []
        self._per_file: dict[str, int] = {}

    def add(
        self, path: str, line: int | None, rule: str, message: str, fix: str | None = None
    ) -> bool:
        count = self._per_file.get(path, 0) + 1
        self._per_file[path] = count
        if count <= MAX_PROBLEMS_PER_FILE:
            self.items.append(Problem(path, line, rule, message, fix))
        elif count == MAX_PROBLEMS_PER_FILE + 1:
            self.items.append(
                Problem(path, None, rule, "more problems in this file are not listed")
            )
        return count <= MAX_PROBLEMS_PER_FILE

    def __bool__(self) -> bool:
        return bool(self.items)


def pydantic_messages(exc: ValidationError) -> list[tuple[tuple[Any, ...], str]]:
    """(location, message) pairs of a validation error, in plain words."""
    out = []
    for err in exc.errors(include_url=False):
        msg = str(err["msg"])
        for prefix in ("Value error, ", "Assertion failed, "):
            msg = msg.removeprefix(prefix)
        if err["type"] == "json_invalid":
            msg = f"invalid JSON: {parser_message(str(err.get('ctx', {}).get('error', msg)))}"
        elif msg.startswith("Input should be"):  # pydantic's own words, not a validator's
            msg += found(dict(err))
        out.append((_untagged(tuple(err["loc"])), msg))
    return out


_TAGS = {"model", "human", "required", "not_run"}
"""The tags of the formats' discriminated unions (``generator.models.raters``)."""
_TAGGED = {"grader", "rater", "qualification", "panel", "reserves"}


def _untagged(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """``loc`` without the union tag pydantic inserts (``jury.grader.model.api`` ->
    ``jury.grader.api``), so messages name the file's own fields and lines."""
    out: list[Any] = []
    for part in loc:
        before = out[-2] if len(out) > 1 and isinstance(out[-1], int) else out[-1] if out else None
        if part in _TAGS and before in _TAGGED:
            continue
        out.append(part)
    return tuple(out)


def format_loc(loc: tuple[Any, ...]) -> str:
    """``("attempts", 0, "status")`` -> ``attempts[0].status``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def check_regular_file(path: Path, shown: str, problems: Problems, max_bytes: int) -> bool:
    """True when ``path`` is a regular, non-symlink file within ``max_bytes``."""
    return check_regular(path, shown, problems, max_bytes) is not None


@dataclass
class StreamResult:
    """What a streaming read saw besides its records."""

    sha256: str = ""
    size: int = 0
    records: int = 0
    complete: bool = False


_BLOCK = 1 << 20
"""Bytes read at a time; lines are cut out of blocks (cheaper than a ``readline`` each)."""


class _LineReader:
    """Cuts a file into numbered lines and reports the lines no model should see.

    Blocks of ``_BLOCK`` bytes are hashed whole as they are read; a line longer than the
    bound is never held whole, only counted. ``lines`` yields ``(number, line)`` for each
    line that ends with ``\\n`` and is within the bounds, without its ``\\n``.
    """

    def __init__(self, shown: str, problems: Problems, bounds: Bounds) -> None:
        self.shown = shown
        self.problems = problems
        self.bounds = bounds
        self.digest = hashlib.sha256()
        self.size = 0
        self.cut = False
        """True when a bound stopped the read: the digest covers only what was read."""

    def lines(self, handle: BinaryIO) -> Iterator[tuple[int, bytes]]:
        limit = self.bounds.max_line_bytes
        max_records = self.bounds.max_records
        pending = b""  # the start of a line that goes on in the next block
        skipped = -1  # bytes of the over-long line being skipped (-1: not inside one)
        number = 0
        while block := handle.read(_BLOCK):
            before = self.digest.copy()
            self.digest.update(block)
            self.size += len(block)
            lines = block.split(b"\n")
            tail = lines.pop()
            first = number
            if lines and skipped >= 0:  # the over-long line ends in this block
                number += 1
                self._too_long(number)
                skipped = -1
                del lines[0]
            elif lines and pending:
                lines[0] = pending + lines[0]
                pending = b""
            crlf = b"\r" in block  # JSON strings hold no raw CR: only a line end can
            for line in lines:
                number += 1
                if len(line) >= limit:  # with its \n, over the bound
                    self._too_long(number)
                    continue
                if crlf and line.endswith(b"\r"):
                    message = "line ends with CR LF; JSONL lines end with LF only"
                    self.problems.add(self.shown, number, "crlf", message)
                    continue
                if number > max_records:
                    self._too_many(number, before, block, number - first)
                    return
                yield number, line
            if skipped >= 0:
                skipped += len(tail)
            else:
                pending += tail
                if len(pending) > limit:
                    skipped, pending = len(pending), b""
        if skipped >= 0:
            self._too_long(number + 1)
        elif pending:
            self.problems.add(
                self.shown, number + 1, "truncated-line", "line is truncated (no final newline)"
            )

    def _too_long(self, number: int) -> None:
        limit = self.bounds.max_line_bytes
        message = f"line is longer than the {limit}-byte bound"
        self.problems.add(self.shown, number, "line-too-long", message)

    def _too_many(self, number: int, before: Any, block: bytes, ends: int) -> None:
        """Stop at line ``number``, the ``ends``-th to end in ``block``: hash and count the
        file only up to its end (``before``: the hash of the blocks before)."""
        used = 0
        for _ in range(ends):
            used = block.index(b"\n", used) + 1
        before.update(block[:used])
        self.digest = before
        self.size += used - len(block)
        self.cut = True
        max_records = self.bounds.max_records
        message = f"more than {max_records} records (the max_records bound); the rest is not read"
        fix = f"raise the bound: --limit max_records=N with N above {max_records}"
        self.problems.add(self.shown, number, "too-many-records", message, fix)


def iter_jsonl(
    path: Path,
    model: type[M],
    shown: str,
    problems: Problems,
    bounds: Bounds,
    result: StreamResult | None = None,
) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` for every valid line; report the others.

    The file's SHA-256 and size are accumulated into ``result`` while reading, so a
    bundle file is read exactly once.
    """
    result = result if result is not None else StreamResult()
    handle = open_regular(path, shown, problems, bounds.max_file_bytes)
    if handle is None:
        return
    # Lines are validated from bytes by a validator that runs no Python per record; a
    # line it refuses is read again the careful way, so every message stays the model's.
    # The validator keeps the last of two equal keys, so each line it accepts is parsed
    # once more by a parser that refuses them (``check_json_line``).
    validate = json_validator(model).validate_json
    reader = _LineReader(shown, problems, bounds)
    with handle:
        for number, line in reader.lines(handle):
            try:
                record = validate(line)
                check_json_line(line)
            except (ValidationError, StrictError):
                record = _refused_line(line + b"\n", number, model, shown, problems)
                if record is None:
                    continue
            result.records += 1
            yield number, record
    result.sha256 = reader.digest.hexdigest()
    result.size = reader.size
    # A read cut short by a bound hashed part of the file: its hash says nothing about
    # whether the file is the one sealed, so nobody may compare it.
    result.complete = not reader.cut


def _refused_line(
    raw: bytes, number: int, model: type[M], shown: str, problems: Problems
) -> M | None:
    """Report why ``model`` refuses line ``number`` (None), or its record after all."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.add(shown, number, "utf-8", f"line is not valid UTF-8 (byte {exc.start + 1})")
        return None
    if not text.strip():
        problems.add(shown, number, "blank-line", "blank line")
        return None
    try:
        parse_json(raw)
    except StrictError as exc:
        if exc.rule != "syntax":  # pydantic's own words for plain syntax errors
            problems.add(shown, number, exc.rule, exc.message)
            return None
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        for loc, msg in pydantic_messages(exc):
            where = f"{format_loc(loc)}: " if loc else ""
            problems.add(shown, number, "schema", f"{where}{msg}")
        return None


def _node_line(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at ``loc`` (the deepest one found)."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = [v for k, v in node.value if getattr(k, "value", None) == str(part)]
            if not match:
                break
            node = match[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                break
            node = node.value[part]
        else:
            break
        line = node.start_mark.line + 1
    return line


@dataclass
class Parsed:
    """A document read and parsed (``parse_document``), not yet validated."""

    data: Any
    """Its value: dicts, lists and scalars."""
    raw: bytes
    """The bytes it was parsed from (lines for messages; drop the ``Parsed`` once
    validated: a large document's bytes are as large as the file)."""


def parse_document(path: Path, shown: str, problems: Problems, max_bytes: int) -> Parsed | None:
    """Read one YAML or JSON document and parse it, strictly, without validating it:
    the first half of ``load_document``, which reports problems with the same words."""
    raw = read_regular(path, shown, problems, max_bytes)
    if raw is None:
        return None
    try:
        # JSON is parsed from its bytes: only checked here, never held as text (non-ASCII
        # text takes 2 or 4 bytes a character: 120 MB for the 600-candidate registry).
        if path.suffix == ".json":
            check_utf8(raw)
            text = None
        else:
            text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.add(shown, None, "utf-8", f"file is not valid UTF-8 (byte {exc.start + 1})")
        return None
    try:
        return Parsed(parse_json(raw) if text is None else parse_yaml(text), raw)
    except StrictError as exc:
        problems.add(shown, exc.line, exc.rule, exc.message)
        return None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, anywhere
        assert text is not None  # only the YAML reader raises it
        at = text.count("\n", 0, exc.position) + 1
        message = f"invalid YAML: character U+{exc.character:04X} is not allowed in YAML"
        problems.add(shown, at, "syntax", message)
        return None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problems.add(shown, line, "syntax", f"invalid YAML: {getattr(exc, 'problem', exc)}")
        return None


def validate_document(parsed: Parsed, model: type[M], shown: str, problems: Problems) -> M | None:
    """``parsed`` as ``model``, or None with every error reported at its line: the second
    half of ``load_document``."""
    try:
        return model.model_validate(parsed.data)
    except ValidationError as exc:
        # JSON is a subset of YAML: its node tree gives lines for both.
        tree = compose_yaml(parsed.raw.decode("utf-8"))
        for loc, msg in pydantic_messages(exc):
            where = f"{format_loc(loc)}: " if loc else ""
            problems.add(shown, _node_line(tree, loc), "schema", f"{where}{msg}")
        return None


def load_document(
    path: Path, model: type[M], shown: str, problems: Problems, max_bytes: int
) -> M | None:
    """Load one YAML or JSON document into ``model``; report problems with line numbers."""
    parsed = parse_document(path, shown, problems, max_bytes)
    return None if parsed is None else validate_document(parsed, model, shown, problems)


class Locator:
    """Lines of values in a YAML or JSON file, for messages about a file that already
    read without problems; the file is read and composed once, on the first question."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._tree: yaml.Node | None = None
        self._read = False

    def line(self, loc: tuple[Any, ...]) -> int | None:
        """1-based line of the value at ``loc``, when it can be found."""
        if not self._read:
            self._read = True
            raw = read_regular(self.path, str(self.path), Problems(), self.max_bytes)
            self._tree = compose_yaml(raw.decode("utf-8", "replace")) if raw else None
        return _node_line(self._tree, loc)
