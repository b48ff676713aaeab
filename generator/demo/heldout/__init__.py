"""Held-out items of the example bank, composed at run time from a seed.

The text of a held-out item may never be stored in the repository: the holdout gate
scans tracked files for runs of held-out words. So this package keeps only short
fragments, word lists and number ranges, and puts every prompt, criterion and answer
together with the ``random.Random`` the caller passes in. Templates name their slots
``{z1}``, ``{z2}`` …; no literal stretch between two slots, and no option of a slot, is
longer than five words, so a run of six generated words never occurs in any of its
modules (``tests/demo/test_content.py`` checks that over many seeds).

Items are plain dicts holding a bank item's text and metadata; the example builder adds
the derived fields (``core``, ``validation``, ``text_sha256``). Answers for an item are
rebuilt from the item itself, so ``heldout_response`` needs nothing but the dict.

Layout: ``common`` holds the shared helpers and word lists; each other module holds one
category's two kinds of item, a ``make_*`` and an ``answer_*`` function for each; the
registry below lists every kind in id order. The order matters: ``heldout_items`` draws
from ``rng`` kind after kind, so reordering the registry changes every item.
"""

from __future__ import annotations

import random

from generator.demo.heldout import (
    ambiguity,
    arithmetic,
    attribution,
    honesty,
    injection,
    live_data,
    multipart,
    overclaim,
    premises,
    provenance,
    safety,
    specifics,
    sycophancy,
)
from generator.demo.heldout.common import Item, Kind, Slot

__all__ = ["SOURCES", "Item", "Slot", "heldout_items", "heldout_response"]

SOURCES = ("demonstration item generated procedurally by probepress (held out)",)
"""The ``sources`` of every held-out item."""

_KINDS = (
    Kind("h-arith-01", "arithmetic", 0, arithmetic.make_product, arithmetic.answer_product),
    Kind("h-arith-02", "arithmetic", 0, arithmetic.make_percent, arithmetic.answer_percent),
    Kind("h-arith-03", "arithmetic", 1, arithmetic.make_speed, arithmetic.answer_speed),
    Kind("h-multi-01", "multi-part-instructions", 0, multipart.make_list, multipart.answer_list),
    Kind("h-multi-02", "multi-part-instructions", 1, multipart.make_tasks, multipart.answer_tasks),
    Kind("h-multi-03", "multi-part-instructions", 1, multipart.make_note, multipart.answer_note),
    Kind("h-honesty-01", "honesty", 1, honesty.make_forecast, honesty.answer_forecast),
    Kind("h-honesty-02", "honesty", 1, honesty.make_census, honesty.answer_census),
    Kind("h-premise-01", "false-premises", 1, premises.make_capital, premises.answer_capital),
    Kind("h-premise-02", "false-premises", 1, premises.make_novel, premises.answer_novel),
    Kind("h-inject-01", "prompt-injection", 0, injection.make_notice, injection.answer_notice),
    Kind("h-inject-02", "prompt-injection", 1, injection.make_invoice, injection.answer_invoice),
    Kind("h-syco-01", "sycophancy", 0, sycophancy.make_precedence, sycophancy.answer_precedence),
    Kind("h-syco-02", "sycophancy", 1, sycophancy.make_myth, sycophancy.answer_myth),
    Kind("h-live-01", "live-data", 1, live_data.make_price, live_data.answer_price),
    Kind("h-live-02", "live-data", 1, live_data.make_route, live_data.answer_route),
    Kind("h-safety-01", "safety", 1, safety.make_phish, safety.answer_phish),
    Kind("h-safety-02", "safety", 1, safety.make_benign, safety.answer_benign),
    Kind("h-ambig-01", "ambiguity", 1, ambiguity.make_date, ambiguity.answer_date),
    Kind("h-ambig-02", "ambiguity", 1, ambiguity.make_place, ambiguity.answer_place),
    Kind("h-overclaim-01", "overclaim", 1, overclaim.make_script, overclaim.answer_script),
    Kind("h-overclaim-02", "overclaim", 1, overclaim.make_page, overclaim.answer_page),
    Kind("h-specifics-01", "impossible-specifics", 0, specifics.make_count, specifics.answer_count),
    Kind("h-specifics-02", "impossible-specifics", 1, specifics.make_words, specifics.answer_words),
    Kind("h-prov-01", "provenance", 1, provenance.make_origin, provenance.answer_origin),
    Kind("h-prov-02", "provenance", 1, provenance.make_claimed, provenance.answer_claimed),
    Kind("h-attrib-01", "attribution", 1, attribution.make_quote, attribution.answer_quote),
    Kind("h-attrib-02", "attribution", 1, attribution.make_poster, attribution.answer_poster),
)


def _kind_of(item_id: str) -> Kind:
    for kind in _KINDS:
        if item_id == kind.id or item_id.startswith(kind.id + "-"):
            return kind
    raise KeyError(f"{item_id!r} is not a held-out item of the example bank")


def heldout_items(rng: random.Random) -> list[Item]:
    """The 28 held-out core items of the example bank, composed from ``rng``.

    Args:
        rng: The only source of randomness; the same state gives the same items.

    Returns:
        One dict per item, in a fixed id order, with ``id``, ``category``, ``tier``,
        ``added_in`` (``v1``), ``status`` (``validated``), ``prompt``,
        ``pass_criterion``, ``check`` (Tier 0 only) and ``sources``.
    """
    items = []
    for kind in _KINDS:
        made = kind.make(rng)
        item: Item = {
            "id": kind.id,
            "category": kind.category,
            "tier": kind.tier,
            "added_in": "v1",
            "status": "validated",
            "prompt": made.prompt,
            "pass_criterion": made.criterion,
            "sources": list(SOURCES),
        }
        if made.check is not None:
            item["check"] = made.check
        items.append(item)
    return items


def heldout_response(item: Item, passed: bool, rng: random.Random) -> str:
    """A model answer to a held-out item that meets (or misses) its pass criterion.

    Args:
        item: One dict returned by ``heldout_items``.
        passed: True for an answer that passes, False for one that fails.
        rng: The only source of randomness.

    Returns:
        The answer text; for Tier 0 items ``run_check`` agrees with ``passed``.

    Items derived from a held-out item (an id such as ``h-arith-01-r2`` and a suffix on
    the prompt, as the scaled example makes them) are answered like the original.

    Raises:
        KeyError: ``item`` is not a held-out item of this package.
    """
    return _kind_of(item["id"]).answer(item, passed, rng)
