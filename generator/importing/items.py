"""``probepress import items``: a maintainer's probes into the bank of one version.

Each row becomes a bank item of the version given (``added_in``; ``core`` when it is
the bank's first version) with its ``text_sha256`` computed. Public items are appended to
``bank/public.jsonl``. A held-out item's text goes to the private store
(``heldout_items.jsonl``) and the repository gets only its index entry: metadata and
keyed commitments under the bank secret (``generator.commitments``), never the text or
a plain digest of it. An item whose id is already in the bank is refused, never
overwritten (a reworded probe is a new item with a new id); nothing is written unless
every row is valid.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import Field, ValidationError, field_validator, model_validator

from generator import commitments
from generator.canary import with_canary
from generator.canonical import dumps_line, write_bytes
from generator.errors import InputError
from generator.importing.table import SourceRow, add_validation_problems
from generator.ladder import RUNGS
from generator.models.bank import BankItem, Check, Message
from generator.models.base import ItemId, Name, Record, Slug
from generator.models.validation import Status, ValidationStep
from generator.store.bank import Bank, item_text_sha256, load_bank, require
from generator.store.jsonl import Bounds, Problems
from generator.store.paths import Layout
from generator.store.strict import StrictError, parse_json

RUNG_COLUMNS: Final = {"draft": "written", "reviewed": "reviewed", "validated": "validated"}
"""Each rung's pair of import columns (``written_by``/``written_on`` …)."""


class ItemRow(Record):
    """One probe as a maintainer imports it: a line of an items JSONL file or a CSV row
    (CSV cells of ``check`` and ``validation`` hold JSON; ``sources`` one text)."""

    id: ItemId
    """The item's stable id (lower-case words joined by hyphens); never reused."""
    category: Slug
    """One of the categories declared in ``bank/bank.yaml``."""
    tier: int = Field(default=1, ge=0, le=1)
    """0: a mechanical ``check`` decides; 1: the grader decides (the default)."""
    prompt: Annotated[str, Field(min_length=1, max_length=100_000)] | list[Message]
    """The question: text, or (JSONL only) chat messages."""
    pass_criterion: Annotated[str, Field(min_length=1, max_length=4_000)]
    """What an answer must do to pass."""
    check: Check | None = None
    """Tier 0 only: the mechanical rule (a JSON object; in CSV, JSON text)."""
    heldout: bool = False
    """True: the text goes to the private store, the repository keeps commitments only."""
    status: Status
    """Validation status now: draft, reviewed or validated (the ladder: one rung per
    person, ``generator.ladder``)."""
    written_by: Name | None = None
    """Who wrote the item: its ``draft`` step (with ``written_on``)."""
    written_on: dt.date | None = None
    """When it was written."""
    reviewed_by: Name | None = None
    """The first reviewer, not the author: the ``reviewed`` step (with ``reviewed_on``)."""
    reviewed_on: dt.date | None = None
    """When the first reviewer signed off."""
    validated_by: Name | None = None
    """The second reviewer, neither the author nor the first: the ``validated`` step (with
    ``validated_on``). With ``external``: the source's authors as it names them."""
    validated_on: dt.date | None = None
    """When the second reviewer (or the source) validated the item."""
    resolution: Annotated[str, Field(max_length=4_000)] = ""
    """How a disagreement between the two reviewers was resolved (public items only)."""
    external: Name | None = None
    """The publication that validated the item outside this project (e.g. the paper of a
    public data set): the item enters ``validated`` with one external step naming it and
    ``validated_by``/``validated_on``, instead of invented reviewer names."""
    validation: list[ValidationStep] = []
    """The whole review history, oldest first (instead of the per-rung columns)."""
    sources: list[Annotated[str, Field(max_length=500)]] = []
    """Where the probe or its facts come from (in CSV, one source per row)."""

    @field_validator("check", "validation", mode="before")
    @classmethod
    def _json_cell(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return parse_json(value.encode("utf-8"))
            except StrictError as exc:
                raise ValueError(f"a CSV cell of this field holds JSON: {exc.message}") from None
        return value

    @field_validator("sources", mode="before")
    @classmethod
    def _one_source(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _history(self) -> ItemRow:
        given = [f"{p}_{s}" for p in RUNG_COLUMNS.values() for s in ("by", "on")]
        named = [c for c in given if getattr(self, c) is not None]
        if self.validation and (named or self.external or self.resolution):
            raise ValueError("give validation or the per-rung columns (written_by …), not both")
        if self.heldout and self.resolution:
            raise ValueError(
                "a held-out item's resolution stays in the private store: leave resolution "
                "empty (a note may quote the item)"
            )
        if self.validation:
            return self
        if self.external is not None:
            needed = ["validated_by", "validated_on"]
            if self.status != "validated" or set(named) - set(needed):
                raise ValueError(
                    "an externally validated item has status validated and only "
                    "validated_by and validated_on (the source's authors and date)"
                )
        else:
            reached = RUNGS[: RUNGS.index(self.status) + 1]
            needed = [f"{RUNG_COLUMNS[r]}_{s}" for r in reached for s in ("by", "on")]
            above = [c for c in named if c not in needed]
            if above:
                raise ValueError(f"{', '.join(above)} given but status is {self.status!r}")
        missing = [c for c in needed if getattr(self, c) is None]
        if missing:
            raise ValueError(
                f"status {self.status!r} needs {', '.join(missing)} (the validation ladder: "
                "written_by for the draft, reviewed_by, then validated_by, a different person "
                "each; or external, naming the publication that validated it)"
            )
        return self

    def history(self) -> list[ValidationStep]:
        """The validation history the item gets."""
        if self.validation:
            return list(self.validation)
        if self.external is not None:
            assert self.validated_by is not None and self.validated_on is not None
            step = {"by": self.validated_by, "on": self.validated_on, "external": self.external}
            return [ValidationStep.model_validate({"status": "validated", **step})]
        steps = []
        for rung in RUNGS[: RUNGS.index(self.status) + 1]:
            column = RUNG_COLUMNS[rung]
            extra = (
                {"resolution": self.resolution, "disagreed": True}
                if (rung == "validated" and self.resolution)
                else {}
            )
            data = {"by": getattr(self, f"{column}_by"), "on": getattr(self, f"{column}_on")}
            steps.append(ValidationStep.model_validate({"status": rung, **data, **extra}))
        return steps


def bank_item(row: ItemRow, version: str, core: bool) -> BankItem:
    """The bank item of ``row``, added in ``version``, with its text hash computed."""
    text = row.model_dump(mode="json", include={"prompt", "pass_criterion", "check"})
    return BankItem.model_validate(
        {
            "id": row.id,
            "category": row.category,
            "tier": row.tier,
            "added_in": version,
            "core": core,
            "status": row.status,
            "validation": [s.model_dump(mode="json") for s in row.history()],
            "sources": row.sources,
            "prompt": text["prompt"],
            "pass_criterion": row.pass_criterion,
            "check": text["check"],
            "text_sha256": item_text_sha256(text["prompt"], row.pass_criterion, text["check"]),
        }
    )


@dataclass(frozen=True)
class ItemsResult:
    """What ``import_items`` wrote."""

    version: str
    public: tuple[str, ...]
    heldout: tuple[str, ...]


def _version(bank: Bank, version: str | None, shown: str) -> str:
    ids = bank.manifest.version_ids()
    chosen = version or ids[-1]
    if chosen not in ids:
        raise InputError(
            f"{shown}: bank version {chosen!r} is not declared in bank/bank.yaml "
            f"(declared: {', '.join(ids)}); add it there first"
        )
    return chosen


def _items(
    rows: list[SourceRow], shown: str, bank: Bank, version: str, problems: Problems
) -> list[tuple[BankItem, bool]]:
    """Each valid row's item and whether it is held out; every problem reported."""
    categories = {c.id for c in bank.manifest.categories}
    core = version == bank.manifest.version_ids()[0]
    seen: dict[str, int] = {}
    out: list[tuple[BankItem, bool]] = []
    for line, data in rows:
        try:
            row = ItemRow.model_validate(data)
            item = bank_item(row, version, core)
        except ValidationError as exc:
            add_validation_problems(exc, shown, line, problems)
            continue
        if row.category not in categories:
            message = f"category {row.category!r} is not declared"
            problems.add(shown, line, "bank-category", message, "declare it in bank/bank.yaml")
        where = "bank/public.jsonl" if row.id in bank.public else "bank/heldout_index.jsonl"
        if row.id in bank.public or row.id in bank.heldout:
            problems.add(
                shown,
                line,
                "item-exists",
                f"item {row.id} is already in {where}; an item is never overwritten",
                "a changed probe is a new item with a new id",
            )
        elif row.id in seen:
            problems.add(
                shown, line, "duplicate-item", f"item {row.id} also at line {seen[row.id]}"
            )
        seen.setdefault(row.id, line)
        out.append((item, row.heldout))
    return out


def _line(record: Record) -> str:
    return dumps_line(record.model_dump(mode="json", exclude_none=True))


def _appended(path: Path, lines: list[str]) -> bytes:
    old = path.read_bytes() if path.is_file() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    return old + "".join(lines).encode("utf-8")


def import_items(
    layout: Layout,
    rows: list[SourceRow],
    shown: str,
    *,
    version: str | None = None,
    bounds: Bounds | None = None,
) -> ItemsResult:
    """Add the items of ``rows`` to the bank (public ones public, held-out ones private).

    Raises:
        InputError: The bank cannot be read, or a row is invalid, names an undeclared
            category or an existing item (nothing is written).
    """
    problems = Problems()
    bank = load_bank(layout, bounds or Bounds(), problems, private=False)
    require(problems, "the bank")
    assert bank is not None
    chosen = _version(bank, version, shown)
    items = sorted(_items(rows, shown, bank, chosen, problems), key=lambda pair: pair[0].id)
    if problems:
        raise InputError(f"cannot import {shown}; nothing was written:", problems.items)
    # Public lines carry the bank's canary (generator.canary); held-out texts stay private.
    public = [with_canary(i, bank.manifest.canary) for i, held in items if not held]
    heldout = [i for i, held in items if held]
    if heldout:
        secret = commitments.ensure_secret(layout)
        index = [
            dumps_line(
                commitments.heldout_entry(i, secret).model_dump(mode="json", exclude_none=True)
            )
            for i in heldout
        ]
        private = [dumps_line(i.model_dump(mode="json", exclude_none=True)) for i in heldout]
        # The text first: an index entry never exists without its text in the store.
        write_bytes(layout.private_items, _appended(layout.private_items, private), layout.private)
        write_bytes(layout.heldout_index, _appended(layout.heldout_index, index), layout.root)
    if public:
        lines = [_line(i) for i in public]
        write_bytes(layout.public_items, _appended(layout.public_items, lines), layout.root)
    return ItemsResult(chosen, tuple(i.id for i in public), tuple(i.id for i in heldout))


def mark_heldout(rows: list[SourceRow], listing: Path, shown: str) -> list[SourceRow]:
    """``rows`` with ``heldout`` true exactly for the ids listed in ``listing`` (one a
    line, ``#`` comments allowed).

    Raises:
        InputError: The list cannot be read, or names an id no row has, or a row has a
            ``heldout`` field of its own.
    """
    try:
        text = listing.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {listing}: {exc}") from None
    wanted = {line.split("#")[0].strip() for line in text.splitlines()} - {""}
    ids = {str(r.data.get("id")) for r in rows}
    problems = Problems()
    for ident in sorted(wanted - ids):
        problems.add(str(listing), None, "heldout-list", f"{ident} is not an item of {shown}")
    for line, data in rows:
        if "heldout" in data:
            problems.add(shown, line, "heldout-list", "heldout is given by the row and the list")
    if problems:
        raise InputError("cannot apply the held-out list:", problems.items)
    return [
        SourceRow(line, {**data, "heldout": str(data.get("id")) in wanted}) for line, data in rows
    ]
