"""A disclosure: one held-out item opened, for anyone to check against the published
commitments (``probepress disclose``; ``generator.disclosure``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from generator.models.bank import COMMITMENT_SCHEME, Check, Commitment, Message
from generator.models.base import ItemId, Part, Record, Slug
from generator.models.records import MAX_RESPONSE, DrawIndex, Half
from generator.models.rubric import Rubric

ItemKey = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""An item key, 32 bytes as lower-case hex."""


class DisclosedResponse(Part):
    """One held-out response, opened."""

    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume id."""
    candidate: Slug
    """Candidate slug (its bundle directory)."""
    half: Half
    """Half."""
    draw: DrawIndex
    """Draw index."""
    text: Annotated[str, Field(max_length=MAX_RESPONSE)]
    """The response."""
    response_commitment: Commitment
    """Its commitment as published in the bundle's ``draws.jsonl``."""


class Disclosure(Record):
    """One held-out item opened: its key, its texts and every response to it.

    ``item_key`` is ``K_item`` alone: it opens this item's commitments and nothing else
    (neither the bank secret nor any other item's key can be derived from it).
    """

    item: ItemId
    """The disclosed item's id."""
    scheme: Literal["hmac-sha256"] = COMMITMENT_SCHEME
    """How the commitments are made (``generator.commitments``)."""
    item_key: ItemKey
    """``K_item = HMAC-SHA256(bank secret, "probepress/item/v1\\0" + item)``, in hex."""
    prompt: str | list[Message]
    """The item's prompt."""
    pass_criterion: Annotated[str, Field(min_length=1, max_length=4_000)]
    """Its pass criterion."""
    check: Check | None = None
    """Its mechanical check (Tier 0 items)."""
    rubric: Rubric | None = None
    """Its rubric (rubric items), part of the criterion's commitment."""
    prompt_commitment: Commitment
    """The prompt's commitment as published in ``bank/heldout_index.jsonl``."""
    criterion_commitment: Commitment
    """The criterion's commitment as published in ``bank/heldout_index.jsonl``."""
    responses: list[DisclosedResponse] = Field(default=[], max_length=100_000)
    """Every published response to the item, by volume, candidate, half and draw."""
