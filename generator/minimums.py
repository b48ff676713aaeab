"""Pre-registered minimum sizes (DESIGN §14): how many validated items a per-category rate
and a whole volume need before they are published.

One rule for everyone who asks: the figures withhold a category's rates below
``thresholds.min_category_items`` (declaring them absent with the count and the minimum),
the audit's balance section flags the same categories, and the publishing gate refuses a
volume below ``thresholds.min_volume_items``. All three count the active full bank
(:func:`full_bank`): a retired core item keeps being run and stays in the core rate (the
core is permanent), but retirement takes it out of the full bank, whose rates (the
full-bank and the per-category ones) are what these minimums guard. A minimum the volume
does not declare withholds and refuses nothing, so a volume registered before these fields
keeps its figures and its published bytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from generator.models.bank import ItemMeta
from generator.models.volume import Volume
from generator.words import counted


@dataclass(frozen=True)
class Withheld:
    """A category whose per-category rates are withheld."""

    category: str
    validated: int
    """Validated items of the category in the volume's bank version."""
    minimum: int
    """The volume's pre-registered ``min_category_items``."""

    @property
    def statement(self) -> str:
        """What every page prints in place of the rate."""
        return f"withheld: {counted(self.validated, 'validated item')}, minimum {self.minimum}"


def full_bank(items: Iterable[ItemMeta], retired: Collection[str]) -> list[ItemMeta]:
    """The active full bank among a volume's active items (``Bank.active_items``, which
    keeps retired core items for the core rate): every item but a retired one."""
    return [m for m in items if m.id not in retired]


def validated_per_category(items: Iterable[ItemMeta]) -> Counter[str]:
    """Validated items per category."""
    return Counter(m.category for m in items if m.status == "validated")


def withheld_categories(
    volume: Volume, items: Sequence[ItemMeta], categories: Sequence[str]
) -> list[Withheld]:
    """Categories (in ``categories`` order) with at least one item in ``items`` (the
    volume's active items) and fewer validated ones than the declared minimum.

    A category with no item in the bank version publishes no rate, so there is nothing to
    withhold; a volume declaring no minimum withholds nothing.
    """
    minimum = volume.thresholds.min_category_items
    if minimum is None:
        return []
    present = {m.category for m in items}
    validated = validated_per_category(items)
    return [
        Withheld(cat, validated[cat], minimum)
        for cat in categories
        if cat in present and validated[cat] < minimum
    ]


def volume_shortfall(
    volume: Volume, items: Iterable[ItemMeta], retired_core: int = 0
) -> str | None:
    """Why the volume may not be published (None: it meets its declared minimum, or
    declares none); ``items``: the active full bank, ``retired_core``: how many retired
    core items it leaves out (named in the message, so the count is not a surprise)."""
    minimum = volume.thresholds.min_volume_items
    if minimum is None:
        return None
    validated = sum(validated_per_category(items).values())
    if validated >= minimum:
        return None
    return (
        f"bank {volume.bank_version} has {counted(validated, 'validated item')}, below the "
        f"pre-registered minimum of {minimum} for publishing a volume "
        "(thresholds.min_volume_items)"
        + (
            f"; {counted(retired_core, 'retired core item')} not counted (retired items "
            "leave the full bank; core ones stay in the core rate only)"
            if retired_core
            else ""
        )
    )
