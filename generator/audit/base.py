"""What every audit section returns, and the volume as the audit reads it once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from generator.errors import escape
from generator.models.bank import BankItem, ItemMeta
from generator.store.volume import VolumeData

Status = Literal["pass", "fail", "skip"]


@dataclass(frozen=True)
class Case:
    """One test the audit ran (or could not run): ``skip`` says what could not be tested."""

    name: str
    status: Status
    message: str = ""
    where: str = ""
    """A root-relative file (with ``:line``), an item id or a figure id."""
    rule: str = ""

    def __str__(self) -> str:
        where = f"{escape(self.where)}: " if self.where else ""
        rule = f" [audit/{self.rule}]" if self.rule else ""
        return f"{where}{escape(self.message)}{rule}"

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "status": self.status,
            "message": self.message,
            "where": self.where,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class Section:
    """One part of the audit (reference answers, negative controls …) and its cases."""

    name: str
    title: str
    cases: tuple[Case, ...]

    def failed(self, strict: bool = False) -> list[Case]:
        """Cases that fail the audit (skipped ones too when ``strict``)."""
        return [c for c in self.cases if c.status == "fail" or (strict and c.status == "skip")]

    def count(self, status: Status) -> int:
        return sum(c.status == status for c in self.cases)

    def as_json(self, strict: bool = False) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "section": self.name,
            "title": self.title,
            "passed": not self.failed(strict),
            "counts": {s: self.count(s) for s in ("pass", "fail", "skip")},
            "cases": [c.as_json() for c in self.cases],
        }


@dataclass(frozen=True)
class AuditReport:
    """Every section's cases for one volume."""

    volume: str
    sections: tuple[Section, ...]
    strict: bool = False

    @property
    def passed(self) -> bool:
        """True when no case failed (and, under ``strict``, none was skipped)."""
        return not any(s.failed(self.strict) for s in self.sections)

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "volume": self.volume,
            "passed": self.passed,
            "strict": self.strict,
            "sections": [s.as_json(self.strict) for s in self.sections],
        }


@dataclass
class AuditContext:
    """The volume as read once for the audit (with held-out texts when the private store
    was readable: ``private``)."""

    data: VolumeData
    private: bool
    notes: list[str] = field(default_factory=list)

    @cached_property
    def items(self) -> list[ItemMeta]:
        """Items of the volume's bank version, in id order."""
        return self.data.bank.active_items(self.data.volume.bank_version)

    def full(self, meta: ItemMeta) -> BankItem | None:
        """The whole item, when its text is available here."""
        return self.data.bank.full_item(meta.id)

    def heldout(self, item_id: str) -> bool:
        return self.data.bank.is_heldout(item_id)

    def where(self, item_id: str) -> str:
        """Where an item is declared, as a public message may name it."""
        bank = self.data.bank
        layout = self.data.layout
        if bank.is_heldout(item_id):
            line = bank.index_lines.get(item_id)
            index = layout.rel(layout.heldout_index)
            return f"{index}:{line} ({item_id})" if line else f"{index} ({item_id})"
        return f"{layout.rel(layout.public_items)} ({item_id})"

    def shown(self, item_id: str, text: str) -> str:
        """``text`` quoted for a message, or a placeholder for a held-out item: audit
        reports go to CI logs and pull requests, which are public."""
        if self.heldout(item_id):
            return "(held-out text not shown)"
        quoted = text if len(text) <= 80 else text[:77] + "…"
        return repr(quoted)


def cases_or_skip(cases: Iterable[Case], name: str, message: str) -> tuple[Case, ...]:
    """``cases``, or one skipped case saying what could not be tested."""
    out = tuple(cases)
    return out if out else (Case(name, "skip", message, rule="untested"),)
