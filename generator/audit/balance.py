"""Balance: counts per category × tier × public/held-out × validation status, and the
pre-registered minimum of validated items per category.

A category with fewer validated items than ``thresholds.min_category_items`` has no
per-category rate worth publishing: the figures withhold its rates (``generator.minimums``,
the one rule both use) and the audit fails it, with the count and the minimum, so the
maintainer sees it before publishing and adds items.

The counts are of the active full bank, as the figures count them: a retired core item
keeps being run and stays in the core rate (the core is permanent), but it is out of the
full bank whose per-category rates the minimum guards, so it is listed apart and never
counted toward the minimum.
"""

from __future__ import annotations

from collections import Counter

from generator.audit.base import AuditContext, Case, Section
from generator.minimums import full_bank, withheld_categories
from generator.words import counted

NAME = "balance"


def retired_core(ctx: AuditContext) -> set[str]:
    """Retired core items the volume still runs (in its core rate, out of its full bank)."""
    return ctx.data.bank.retired_by(ctx.data.volume.bank_version) & {m.id for m in ctx.items}


def counts(ctx: AuditContext) -> dict[tuple[str, int, str, str], int]:
    """Items of the volume's active full bank by (category, tier, public|held-out,
    status)."""
    found: Counter[tuple[str, int, str, str]] = Counter()
    for m in full_bank(ctx.items, retired_core(ctx)):
        found[(m.category, m.tier, "held-out" if ctx.heldout(m.id) else "public", m.status)] += 1
    return dict(sorted(found.items()))


def balance(ctx: AuditContext) -> Section:
    """One case per category (its counts), failed when below the declared minimum."""
    table = counts(ctx)
    minimum = ctx.data.volume.thresholds.min_category_items
    layout = ctx.data.layout
    where = layout.rel(layout.volume_file(ctx.data.volume.id))
    cases: list[Case] = []
    categories = [c.id for c in ctx.data.bank.manifest.categories]
    retired = retired_core(ctx)
    active = full_bank(ctx.items, retired)
    below = {w.category for w in withheld_categories(ctx.data.volume, active, categories)}
    for category in categories:
        rows = {k: v for k, v in table.items() if k[0] == category}
        validated = sum(v for k, v in rows.items() if k[3] == "validated")
        shown = [f"tier {t} {side} {status}: {n}" for (_, t, side, status), n in rows.items()]
        kept = sum(1 for m in ctx.items if m.id in retired and m.category == category)
        if kept:
            shown.append(f"retired core, in the core rate only: {kept}")
        text = f"{category}: {validated} validated ({', '.join(shown) or 'no items'})"
        if category in below:
            cases.append(
                Case(
                    f"category/{category}",
                    "fail",
                    f"category {category} has {counted(validated, 'validated item')}, below the "
                    f"pre-registered minimum of {minimum}: its per-category rates are "
                    "withheld (not published); add validated items",
                    where,
                    "category-below-minimum",
                )
            )
        else:
            cases.append(Case(f"category/{category}", "pass", text))
    if minimum is None:
        cases.append(
            Case(
                "minimum",
                "skip",
                "could not check categories against a minimum: the volume pre-registers "
                "none (thresholds.min_category_items)",
                where,
                "untested",
            )
        )
    return Section(NAME, "Balance", tuple(cases))
