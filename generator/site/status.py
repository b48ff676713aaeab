"""The bank page's item table: each item's current status and the history behind it.

An item's history is its frozen ``validation`` list (as its bank file published it) and
then the climbs the status ledger recorded since (``bank/status.jsonl``), marked as such.
Only ids, categories, statuses, names and dates are shown: a held-out item is listed by
id like everywhere else, and no reviewer's note is shown here (a public item's notes are
in the ledger download).
"""

from __future__ import annotations

from generator.models.bank import ItemMeta
from generator.models.validation import ValidationStep
from generator.site.markup import code, link, table, text
from generator.store.bank import Bank
from generator.words import counted


def _step(step: ValidationStep, later: bool) -> str:
    if step.external is not None:
        return f"validated by its source, {text(step.external)} ({text(step.by)}, {step.on})"
    mark = " (recorded after publication)" if later else ""
    resolved = "; disagreement resolved" if step.disagreed or step.resolution else ""
    return f"{step.status}: {text(step.by)}, {step.on}{resolved}{mark}"


def _row(bank: Bank, meta: ItemMeta, retired: dict[str, str]) -> list[str]:
    frozen = len(bank.frozen(meta.id).validation)
    history = "; ".join(_step(s, n >= frozen) for n, s in enumerate(meta.validation))
    status: str = meta.status
    if meta.id in retired:
        kept = " (core: still run and in the core rate)" if meta.core else ""
        status = f"{status}, retired in {text(retired[meta.id])}{kept}"
    return [
        code(meta.id),
        text(meta.category),
        text(meta.added_in) + (" (core)" if meta.core else ""),
        "held out" if bank.is_heldout(meta.id) else "public",
        status,
        history,
    ]


def status_section(bank: Bank) -> str:
    """``## Items and their status``: one row per item, in id order."""
    retired = {item: v.id for v in bank.manifest.versions for item in v.retired}
    ids = sorted([*bank.public, *bank.heldout])
    metas = [bank.meta(i) for i in ids]
    climbed = sum(bool(bank.ledger.get(i)) for i in ids)
    ledgers = [
        link(name, f"bank/{name}")
        for name, held in (("status.jsonl", bank.ledger), ("disagreements.jsonl", bank.disputes))
        if held
    ]
    intro = (
        "Each item climbs draft → reviewed (one named reviewer) → validated (a second, "
        "different reviewer; any disagreement resolved). Only validated items count toward "
        "published rates. A bank file never changes once published: later climbs are "
        "appended to the status ledger"
        + (f" ({' and '.join(ledgers)})" if ledgers else " (none yet)")
        + f"; {counted(climbed, 'item')} climbed since publication. A volume counts the "
        "status each item had on its publication date."
    )
    header = ["Item", "Category", "Added in", "Text", "Status now", "History"]
    rows = [_row(bank, m, retired) for m in metas]
    return "## Items and their status\n\n" + intro + "\n\n" + table(header, rows, "llllll")
