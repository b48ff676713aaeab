"""Load the probe bank and, when asked, the held-out texts from the private store.

The held-out index carries keyed commitments (``generator.commitments``), never plain
digests; loading the private store recomputes them under the bank secret and reports any
text that does not match its published commitment, at the private file's line.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator import commitments
from generator.canonical import dumps_line
from generator.errors import InputError
from generator.hashing import sha256_text
from generator.models.bank import BankItem, BankManifest, HeldOutEntry, ItemMeta
from generator.models.review import Disagreement, StatusChange
from generator.store.cut import cut_manifest
from generator.store.jsonl import Bounds, Problems, iter_jsonl, load_document
from generator.store.ledger import load_ledgers, with_climbs
from generator.store.paths import Layout


def item_text_sha256(prompt: Any, pass_criterion: str, check: Any, rubric: Any = None) -> str:
    """SHA-256 of an item's canonical text: what ``text_sha256`` freezes (a rubric, as
    JSON, is part of it when the item has one; an item without keeps its old hash)."""
    doc: dict[str, Any] = {"check": check, "pass_criterion": pass_criterion, "prompt": prompt}
    if rubric is not None:
        doc["rubric"] = rubric
    return sha256_text(dumps_line(doc))


def text_sha256_of(item: BankItem) -> str:
    """Recompute ``text_sha256`` of a full item."""
    data = item.model_dump(mode="json", include={"prompt", "pass_criterion", "check", "rubric"})
    return item_text_sha256(
        data["prompt"], data["pass_criterion"], data.get("check"), data.get("rubric")
    )


@dataclass
class Bank:
    """The bank: manifest, public items, held-out index, and (optionally) held-out texts."""

    manifest: BankManifest
    public: dict[str, BankItem]
    heldout: dict[str, HeldOutEntry]
    private: dict[str, BankItem] = field(default_factory=dict)
    keys: dict[str, bytes] = field(default_factory=dict)
    """``K_item`` of each held-out item, once the private store was read (never public)."""
    index_lines: dict[str, int] = field(default_factory=dict)
    """Line of each held-out item in the index (for messages)."""
    ledger: dict[str, list[StatusChange]] = field(default_factory=dict)
    """Each item's climbs since its bank file froze it (``bank/status.jsonl``), oldest
    first. ``public`` and ``heldout`` stay as published; :meth:`meta` adds these."""
    disputes: dict[str, list[Disagreement]] = field(default_factory=dict)
    """Each item's recorded disagreements (``bank/disagreements.jsonl``), oldest first."""
    as_of: dt.date | None = None
    """Count only ledger lines dated on or before this day (a volume's publication date:
    its figures use the status its items had when it was published); None: every line."""
    whole: Bank | None = None
    """The bank before :meth:`cut` (None: this is it): what the site publishes, which the
    holdout gate scans whatever version a volume runs."""
    _views: dict[str, ItemMeta] = field(default_factory=dict, init=False, repr=False)

    def cut(self, version: str) -> Bank:
        """The bank as of ``version`` (``store.cut``), as a volume of it reads it: the items
        added up to it, and the manifest with its versions up to it and the categories those
        items use. Items, versions or categories added later change nothing a volume of
        ``version`` shows or computes."""
        versions = set(self.manifest.versions_up_to(version))
        public = {k: v for k, v in self.public.items() if v.added_in in versions}
        heldout = {k: v for k, v in self.heldout.items() if v.added_in in versions}
        kept = public.keys() | heldout.keys()
        used = {m.category for m in [*public.values(), *heldout.values()]}
        return Bank(
            manifest=cut_manifest(self.manifest, version, used),
            public=public,
            heldout=heldout,
            private={k: v for k, v in self.private.items() if k in heldout},
            keys={k: v for k, v in self.keys.items() if k in heldout},
            index_lines={k: v for k, v in self.index_lines.items() if k in heldout},
            ledger={k: v for k, v in self.ledger.items() if k in kept},
            disputes={k: v for k, v in self.disputes.items() if k in kept},
            as_of=self.as_of,
            whole=self.uncut(),
        )

    def uncut(self) -> Bank:
        """The whole bank, every version (this one when it is not a cut)."""
        return self.whole or self

    def count_up_to(self, day: dt.date | None) -> None:
        """Count only the ledger lines dated on or before ``day`` from now on."""
        self.as_of = day
        self._views.clear()

    def frozen(self, item_id: str) -> ItemMeta:
        """An item's metadata as its bank file froze it (the published status)."""
        return self.public.get(item_id) or self.heldout[item_id]

    def climbs(self, item_id: str) -> list[StatusChange]:
        """The ledger lines that count for ``item_id`` (up to ``as_of``)."""
        lines = self.ledger.get(item_id, [])
        return lines if self.as_of is None else [c for c in lines if c.on <= self.as_of]

    def meta(self, item_id: str) -> ItemMeta:
        """Metadata of any item, public or held out, with its current status and history
        (its frozen history followed by the ledger lines that count)."""
        view = self._views.get(item_id)
        if view is None:
            view = self._views[item_id] = with_climbs(self.frozen(item_id), self.climbs(item_id))
        return view

    def is_heldout(self, item_id: str) -> bool:
        return item_id in self.heldout

    def retired_by(self, version: str) -> set[str]:
        """Items retired from the active bank by ``version`` (core ones stay core)."""
        versions = self.manifest.versions_up_to(version)
        return {item for v in self.manifest.versions if v.id in versions for item in v.retired}

    def active_items(self, version: str) -> list[ItemMeta]:
        """Items of ``version`` with their current status, in id order: added up to it and
        not retired by it, except core items, which stay (the core is permanent: a retired
        core item keeps being run and counted in the core rate)."""
        versions = self.manifest.versions_up_to(version)
        retired = self.retired_by(version)
        every = [*self.public, *self.heldout]
        return sorted(
            (
                self.meta(i)
                for i in every
                if self.frozen(i).added_in in versions and (i not in retired or self.frozen(i).core)
            ),
            key=lambda m: m.id,
        )

    def public_items(self, version: str) -> list[BankItem]:
        """Public items of ``version`` (retired ones included: a download never shrinks)."""
        versions = self.manifest.versions_up_to(version)
        return sorted(
            (i for i in self.public.values() if i.added_in in versions), key=lambda i: i.id
        )

    def full_item(self, item_id: str) -> BankItem | None:
        """The whole item when its text is available (public, or held out and loaded)."""
        return self.public.get(item_id) or self.private.get(item_id)


def _check_meta(
    meta: ItemMeta, manifest: BankManifest, shown: str, line: int, problems: Problems
) -> None:
    categories = {c.id for c in manifest.categories}
    versions = manifest.version_ids()
    if meta.category not in categories:
        problems.add(
            shown,
            line,
            "bank-category",
            f"category {meta.category!r} is not declared",
            "declare it in bank/bank.yaml",
        )
    if meta.added_in not in versions:
        problems.add(shown, line, "bank-version", f"added_in {meta.added_in!r} is not declared")
    elif meta.core != (meta.added_in == versions[0]):
        problems.add(
            shown,
            line,
            "bank-core",
            f"core must be {meta.added_in == versions[0]} for an item added in {meta.added_in}",
        )


def load_bank(layout: Layout, bounds: Bounds, problems: Problems, *, private: bool) -> Bank | None:
    """Read ``bank/``; with ``private``, also the held-out texts from the private store."""
    manifest = load_document(
        layout.bank_manifest,
        BankManifest,
        layout.rel(layout.bank_manifest),
        problems,
        bounds.max_yaml_bytes,
    )
    if manifest is None:
        return None
    bank = Bank(manifest=manifest, public={}, heldout={})
    seen: dict[str, str] = {}
    sources: list[tuple[Path, type[BankItem] | type[HeldOutEntry]]] = [
        (layout.public_items, BankItem),
        (layout.heldout_index, HeldOutEntry),
    ]
    for path, model in sources:
        shown = layout.rel(path)
        for line, record in iter_jsonl(path, model, shown, problems, bounds):
            where = f"{shown}:{line}"
            if record.id in seen:
                problems.add(
                    shown, line, "duplicate-item", f"item {record.id} also at {seen[record.id]}"
                )
                continue
            seen[record.id] = where
            _check_meta(record, manifest, shown, line, problems)
            if isinstance(record, BankItem):
                if text_sha256_of(record) != record.text_sha256:
                    problems.add(
                        shown,
                        line,
                        "text-hash",
                        f"text_sha256 of {record.id} does not match its text",
                        "core items are never reworded; add a new item instead",
                    )
                bank.public[record.id] = record
            else:
                bank.heldout[record.id] = record
                bank.index_lines[record.id] = line
    retired_ok = set(seen)
    for version in manifest.versions:
        for item in version.retired:
            if item not in retired_ok:
                problems.add(
                    layout.rel(layout.bank_manifest),
                    None,
                    "bank-retired",
                    f"version {version.id} retires unknown item {item}",
                )
    load_ledgers(layout, bank, bounds, problems)
    if private:
        load_private_items(layout, bank, bounds, problems)
    return bank


def load_private_items(layout: Layout, bank: Bank, bounds: Bounds, problems: Problems) -> None:
    """Read held-out texts from the private store and check them against the index.

    Every text is checked against the published commitments under the bank secret: a
    private item that does not match is reported at its line and not used.
    """
    path = layout.private_items
    shown = str(path)
    if not bank.heldout and not path.exists():
        return  # an all-public bank: nothing is held out, so nothing needs a private store
    if not path.exists():
        problems.add(
            shown,
            None,
            "private-store",
            "held-out items are not in the private store",
            "pass --private DIR or set PROBEPRESS_PRIVATE (run `probepress demo` for the example)",
        )
        return
    if not bank.heldout:
        return
    try:
        secret = commitments.load_secret(layout)
    except InputError as exc:
        for p in exc.problems:
            problems.add(p.path, p.line, p.rule, p.message, p.fix)
        return
    for line, item in iter_jsonl(path, BankItem, shown, problems, bounds):
        key = _checked_key(layout, bank, secret, item, (shown, line), problems)
        if key is not None:
            bank.private[item.id] = item
            bank.keys[item.id] = key
    missing = sorted(set(bank.heldout) - set(bank.private))
    if missing:
        problems.add(
            shown, None, "private-missing", f"held-out items missing: {', '.join(missing)}"
        )


def _checked_key(
    layout: Layout,
    bank: Bank,
    secret: bytes,
    item: BankItem,
    where: tuple[str, int],
    problems: Problems,
) -> bytes | None:
    """The item key of a private item that matches its held-out index entry, its text hash
    and every published commitment under the bank secret; None (reported) otherwise."""
    shown, line = where
    entry = bank.heldout.get(item.id)
    if entry is None:
        problems.add(shown, line, "private-unknown", f"{item.id} is not in the held-out index")
        return None
    if not commitments.same_meta(entry, item):
        problems.add(
            shown, line, "private-mismatch", f"{item.id} differs from its held-out index entry"
        )
        return None
    if text_sha256_of(item) != item.text_sha256:
        problems.add(shown, line, "text-hash", f"text of {item.id} does not match its hash")
        return None
    key = commitments.item_key(secret, item.id)
    found = commitments.item_commitments(key, item)
    wrong = [name for name in commitments.COMMITTED if found[name] != getattr(entry, name)]
    if wrong:
        index = f"{layout.rel(layout.heldout_index)}:{bank.index_lines[item.id]}"
        problems.add(
            shown,
            line,
            "private-commitment",
            f"{item.id}: {' and '.join(wrong)} of {index} "
            f"{'does' if len(wrong) == 1 else 'do'} not match this text under the bank secret",
            "restore the private store (or the index) that was published together",
        )
        return None
    return key


def require(problems: Problems, what: str) -> None:
    """Raise ``InputError`` listing every problem, if any."""
    if problems:
        raise InputError(f"cannot read {what}:", problems.items)
