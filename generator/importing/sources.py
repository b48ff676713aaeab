"""What the runner readers share: the declared mappings, the bank checks, the row writer.

A runner's log names items, raters and prompts in its own terms. The maintainer declares
how those map to the bank (``--ids FILE``, ``--rater NAME=ID``); what is not declared is
taken as it stands or refused, never guessed. Messages never quote a prompt or a response
(held-out text must not reach a terminal or a CI log) and escape every name they quote.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator.canonical import dumps_line, write_text
from generator.errors import InputError, UsageError, escape
from generator.hashing import sha256_text
from generator.models.bank import BankItem
from generator.models.runners import SourceIds
from generator.store.bank import Bank, load_private_items, require
from generator.store.jsonl import Bounds, Problems, format_loc, load_document, pydantic_messages
from generator.store.paths import Layout

from .rows import RecordRow

DEFAULT_HALF = "A"


@dataclass(frozen=True)
class Declared:
    """How a runner's names map to the bank's (the maintainer's declarations)."""

    ids: Mapping[str, str] | None = None
    """Source id → bank item id; None: the source id is the item id."""
    ids_file: str = ""
    """Where ``ids`` was declared (for messages)."""
    raters: Mapping[str, str] = field(default_factory=dict)
    """Scorer or metric name → rater id; a name not listed is the rater id itself."""
    half: str = DEFAULT_HALF
    """The half every draw of the import belongs to."""


@dataclass(frozen=True)
class Where:
    """Where in a source a draw came from, for messages: ``file[:line]: what``."""

    path: str
    line: int | None
    what: str


def shown_id(value: object) -> str:
    """A source id as messages quote it: ``repr`` (quotes and escapes), at most 60 chars."""
    text = repr(value) if isinstance(value, str | int) and not isinstance(value, bool) else "?"
    return text if len(text) <= 60 else f"{text[:57]}…"


def parse_raters(pairs: Iterable[str]) -> dict[str, str]:
    """``NAME=ID`` declarations as a dict (a name declared twice is refused)."""
    raters: dict[str, str] = {}
    for pair in pairs:
        name, sep, rater = pair.partition("=")
        if not sep or not name or not rater:
            raise UsageError(f"--rater takes NAME=RATER_ID, got {escape(pair)!r}")
        if name in raters:
            raise UsageError(f"--rater {escape(name)} is declared twice")
        raters[name] = rater
    return raters


def load_ids(path: Path, bounds: Bounds) -> dict[str, str]:
    """The declared source-id → item-id map (``SourceIds``, YAML or JSON)."""
    problems = Problems()
    found = load_document(path, SourceIds, str(path), problems, bounds.max_yaml_bytes)
    require(problems, "the id map")
    assert found is not None  # require raised otherwise
    return dict(found.ids)


def load_bank_for_import(layout: Layout, bounds: Bounds) -> Bank:
    """The bank, with the held-out texts when it has held-out items (a log's prompts are
    checked against them)."""
    from generator.store.bank import load_bank

    problems = Problems()
    bank = load_bank(layout, bounds, problems, private=False)
    require(problems, "the bank")
    assert bank is not None  # require raised otherwise
    if bank.heldout:
        load_private_items(layout, bank, bounds, problems)
        require(problems, "the bank's private store")
    return bank


def item_for(
    source_id: str, mapping: Declared, bank: Bank, where: Where, problems: Problems
) -> str | None:
    """The bank item a source id stands for, or None (reported) when it cannot be told."""
    if mapping.ids is not None:
        item = mapping.ids.get(source_id)
        if item is None:
            message = (
                f"{where.what}: id {shown_id(source_id)} is not in the id map {mapping.ids_file}"
            )
            problems.add(where.path, where.line, "import-id", message, "add it to the id map")
            return None
    else:
        item = source_id
    if item not in bank.public and item not in bank.heldout:
        message = f"{where.what}: {shown_id(item)} is not an item of the bank"
        fix = "declare which item each id is with --ids FILE (source id: item id)"
        problems.add(where.path, where.line, "import-id", message, fix)
        return None
    return item


def bank_text(item: str, bank: Bank, where: Where, problems: Problems) -> BankItem | None:
    """The whole item (held-out ones from the private store), or None (reported)."""
    full = bank.full_item(item)
    if full is None:
        message = f"{where.what}: the text of held-out item {item} is not loaded"
        problems.add(where.path, where.line, "import-private", message, "pass --private DIR")
    return full


def prompt_turns(item: BankItem) -> list[tuple[str, str]]:
    """The item's prompt as (role, content) turns; a plain-text prompt is one user turn."""
    if isinstance(item.prompt, str):
        return [("user", item.prompt)]
    return [(m.role, m.content) for m in item.prompt]


def prompt_hashes(item: BankItem) -> set[str]:
    """SHA-256s of the prompt as a runner may send it: the plain text (a text prompt
    only) and the chat messages as JSON (``json.dumps`` of ``role``/``content`` dicts,
    non-ASCII kept, default separators), which is how lm-evaluation-harness hashes a chat
    prompt sent to an API model."""
    chat = [{"role": role, "content": content} for role, content in prompt_turns(item)]
    found = {sha256_text(json.dumps(chat, ensure_ascii=False))}
    if isinstance(item.prompt, str):
        found.add(sha256_text(item.prompt))
    return found


def label_text(value: Any) -> str | None:
    """A rater's value as its label text, or None when it is not a single value: a bool
    as ``true``/``false``, a number as Python writes it (``1``, ``0.5``), text as is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return value
    return None


def make_row(data: dict[str, Any], where: Where, problems: Problems) -> RecordRow | None:
    """``data`` as a row, or None with every validation error reported."""
    try:
        return RecordRow.model_validate(data)
    except ValidationError as exc:
        for loc, message in pydantic_messages(exc):
            text = (
                f"{where.what}: {format_loc(loc)}: {message}" if loc else f"{where.what}: {message}"
            )
            problems.add(where.path, where.line, "import-row", text)
        return None


@dataclass
class Collected:
    """Rows gathered over several sources, one per (candidate, item, half, draw)."""

    rows: list[RecordRow] = field(default_factory=list)
    seen: dict[tuple[str, str, str, int], str] = field(default_factory=dict)

    def add(self, row: RecordRow, where: Where, problems: Problems) -> None:
        """Keep ``row`` unless the same draw came already (both places reported)."""
        key = (row.candidate, row.item, row.half, row.draw)
        first = self.seen.get(key)
        if first is not None:
            message = (
                f"{where.what}: draw {row.half}{row.draw} of {row.item} came already from {first}"
            )
            problems.add(where.path, where.line, "import-duplicate", message)
            return
        line = f":{where.line}" if where.line is not None else ""
        self.seen[key] = f"{escape(where.path)}{line}"
        self.rows.append(row)

    def result(self, problems: Problems, what: str) -> list[RecordRow]:
        """The rows in draw order, or ``InputError`` listing every problem."""
        if problems:
            raise InputError(f"cannot import {what}:", problems.items)
        return sorted(self.rows, key=lambda r: (r.candidate, r.item, r.half, r.draw))


def write_rows(layout: Layout, rows: Sequence[RecordRow], path: Path, bank: Bank) -> None:
    """Write ``rows`` as records JSONL to ``path``, atomically and inside the root; rows
    of held-out items (their responses are private) only inside the private store."""
    target = path if path.is_absolute() else Path.cwd() / path
    private = layout.private.absolute()
    heldout = sorted({r.item for r in rows if bank.is_heldout(r.item)})
    if heldout and not target.is_relative_to(private):
        raise UsageError(
            f"{escape(str(path))}: the rows carry responses to held-out items "
            f"({', '.join(heldout[:3])}{' …' if len(heldout) > 3 else ''}), which stay in the "
            f"private store; write them under {escape(str(layout.private))}"
        )
    base = private if heldout else layout.root.absolute()
    if not target.is_relative_to(base):
        raise UsageError(f"{escape(str(path))}: --rows-out must be inside {escape(str(base))}")
    text = "".join(dumps_line(row.model_dump(mode="json", exclude_none=True)) for row in rows)
    write_text(target, text, base)
