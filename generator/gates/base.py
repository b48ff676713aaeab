"""What every gate returns, and the context all nine share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from generator.cache import Entry, Reader
from generator.errors import Problem, Severity
from generator.models.bank import ItemMeta
from generator.store.paths import Layout
from generator.store.rowtypes import BundleData
from generator.store.volume import VolumeData


@dataclass(frozen=True)
class GateResult:
    """A gate's verdict: its findings, and the parts of it that could not run yet."""

    name: str
    findings: tuple[Problem, ...]
    pending: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    learned: tuple[Entry, ...] = ()
    """Result-cache entries the gate would have the caller remember (a gate never
    writes the cache itself; ``generator.checking`` stores them)."""

    def errors(self, strict: bool = False) -> list[Problem]:
        """Findings that fail the gate (warnings too when ``strict``)."""
        return [f for f in self.findings if strict or f.severity == "error"]

    def passed(self, strict: bool = False) -> bool:
        """True when nothing fails the gate."""
        return not self.errors(strict)

    def as_json(self, strict: bool = False) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "gate": self.name,
            "passed": self.passed(strict),
            "errors": len(self.errors(False)),
            "warnings": sum(f.severity == "warning" for f in self.findings),
            "findings": [f.as_json() for f in self.findings],
            "pending": list(self.pending),
            "notes": list(self.notes),
        }


class Findings:
    """A gate's collector: every problem it adds is tagged with the gate's name."""

    def __init__(self, gate: str) -> None:
        self.gate = gate
        self.items: list[Problem] = []

    def add(
        self,
        rule: str,
        path: str,
        line: int | None,
        message: str,
        fix: str | None = None,
        severity: Severity = "error",
    ) -> None:
        problem = Problem(path, line, rule, message, fix, gate=self.gate, severity=severity)
        self.items.append(problem)

    def extend(self, problems: Iterable[Problem]) -> None:
        """Problems a reader or a check found, as this gate's findings."""
        self.items.extend(replace(p, gate=self.gate) for p in problems)

    def result(
        self,
        pending: Iterable[str] = (),
        notes: Iterable[str] = (),
        learned: Iterable[Entry] = (),
    ) -> GateResult:
        return GateResult(
            self.gate, tuple(self.items), tuple(pending), tuple(notes), tuple(learned)
        )


@dataclass
class GateContext:
    """The volume as read once, shared by every gate (gates never write to it)."""

    data: VolumeData
    options: dict[str, Any] = field(default_factory=dict)
    volumes: Mapping[str, VolumeData] = field(default_factory=dict)
    """Other volumes this run has already read, by id (the previous one, for drift)."""
    memo: Reader | None = None
    """The result cache, read-only (None: nothing is remembered); see ``learned``."""

    @property
    def layout(self) -> Layout:
        return self.data.layout

    @cached_property
    def items(self) -> dict[str, ItemMeta]:
        """Items scheduled by the volume's bank version, by id."""
        return {m.id: m for m in self.data.bank.active_items(self.data.volume.bank_version)}

    def bundles(self) -> list[BundleData]:
        """Bundles in the volume's candidate order."""
        seen: list[BundleData] = []
        for ref in self.data.volume.candidates:
            bundle = self.data.bundles.get(self.data.slug_of(ref))
            if bundle is not None and bundle not in seen:
                seen.append(bundle)
        return seen

    def shown(self, bundle: BundleData, name: str) -> str:
        """A bundle file's path as messages print it."""
        return bundle.shown(self.data.layout, name)

    @property
    def repo_root(self) -> Path:
        """The git checkout the inputs come from (differs from the layout's root while
        ``publish`` builds in a staging copy)."""
        root = self.options.get("repo_root")
        return Path(root) if root is not None else self.data.layout.root

    @property
    def volume_file(self) -> str:
        return self.data.layout.rel(self.data.layout.volume_file(self.data.volume.id))
