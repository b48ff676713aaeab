"""Review formats: the status ledger (``bank/status.jsonl``) and the review file a
reviewer saves from a static review page.

A published bank JSONL never changes, so an item's status after publication lives in an
append-only ledger: one line per rung climbed, oldest first. An item's current status is
the last step of its frozen history followed by its ledger lines. A reviewer never edits
either by hand: the review page saves a :class:`ReviewFile`, and ``probepress review
apply`` checks it against the bank and appends the ledger lines with the reviewer's name
and the date.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, model_validator

from generator.models.base import ItemId, Name, Part, Record, VersionId
from generator.models.validation import Status

Comment = Annotated[str, Field(max_length=4_000)]
"""Free text written by a reviewer (untrusted: always escaped on output)."""


class StatusChange(Record):
    """One line of ``bank/status.jsonl``: an item climbed one rung after publication."""

    item: ItemId
    """The item whose status changed."""
    status: Status
    """The status reached (``reviewed`` or ``validated``; never back to ``draft``)."""
    by: Name
    """Who signed off (a person's name or handle)."""
    on: dt.date
    """When they signed off."""
    bank_version: VersionId
    """The bank version the reviewer read (the review file's ``bank_version``)."""
    resolution: Comment = ""
    """For ``validated``: how any disagreement with the first reviewer was resolved
    (required when the review file recorded one); otherwise empty."""
    comment: Comment = ""
    """The reviewer's comment, if any."""
    notes_private: bool = False
    """True for a held-out item: its comment and resolution are kept in the private store
    (``review_notes.jsonl``; a note may quote the item), so this line carries neither."""

    @model_validator(mode="after")
    def _climbs(self) -> StatusChange:
        if self.status == "draft":
            raise ValueError("a ledger line records a climb: its status is never 'draft'")
        if self.notes_private and (self.comment or self.resolution):
            raise ValueError("a line whose notes are private carries no comment or resolution")
        return self


class Disagreement(Record):
    """One line of ``bank/disagreements.jsonl``: a reviewer disagreed with an item's
    current state (no climb). Append-only like the status ledger; the item's next
    ``validated`` sign-off must say how it was resolved."""

    item: ItemId
    """The item disagreed about."""
    status: Status
    """The item's status when the reviewer disagreed (unchanged by it)."""
    by: Name
    """Who disagreed."""
    on: dt.date
    """When."""
    bank_version: VersionId
    """The bank version the reviewer read."""
    comment: Comment = ""
    """What the reviewer found wrong (public items; empty when ``notes_private``)."""
    notes_private: bool = False
    """True for a held-out item: the comment is kept in the private store."""

    @model_validator(mode="after")
    def _explained(self) -> Disagreement:
        if self.notes_private == bool(self.comment.strip()):
            raise ValueError(
                "a disagreement carries its comment, or (held-out item) notes_private and "
                "no comment"
            )
        return self


class ReviewNote(Record):
    """One line of the private store's ``review_notes.jsonl``: a held-out item's review
    comment and resolution, which never reach a public file."""

    item: ItemId
    """The held-out item."""
    status: Status
    """The status the sign-off reached, or the item's status at a disagreement."""
    decision: Literal["sign-off", "disagree"]
    """What the reviewer decided."""
    by: Name
    """Who wrote the note."""
    on: dt.date
    """When."""
    comment: Comment = ""
    """The reviewer's comment."""
    resolution: Comment = ""
    """How a disagreement was resolved (a ``validated`` sign-off)."""


Decision = Literal["sign-off", "disagree", "skip"]
"""What a reviewer decided for one item: sign off (climb one rung), disagree (record the
disagreement; no climb), or skip (no opinion yet)."""


class ReviewDecision(Part):
    """One item's decision in a review file."""

    item: ItemId
    """The item reviewed."""
    seen_status: Status
    """The item's status the page showed; ``review apply`` refuses the file if the item
    has moved since (someone else reviewed it in between)."""
    decision: Decision
    """``sign-off``, ``disagree`` or ``skip``."""
    comment: Comment = ""
    """What the reviewer wrote about the item (required for ``disagree``)."""
    resolution: Comment = ""
    """For a sign-off to ``validated`` after a recorded disagreement: how it was resolved."""

    @model_validator(mode="after")
    def _explained(self) -> ReviewDecision:
        if self.decision == "disagree" and not self.comment.strip():
            raise ValueError("a disagreement needs a comment saying what is wrong")
        return self


class ReviewFile(Record):
    """The small file a reviewer saves from ``probepress review build``'s page."""

    kind: Literal["probepress-review"] = "probepress-review"
    """Marks the file as a review file."""
    bank: Name
    """The bank's name (``bank/bank.yaml``); a file for another bank is refused."""
    bank_version: VersionId
    """The bank version the page was built for; a file for another version is refused."""
    batch: Annotated[str, Field(max_length=80)]
    """The batch id the page was built for (e.g. ``v1.2-01``)."""
    decisions: list[ReviewDecision] = Field(min_length=1, max_length=10_000)
    """One decision per item on the page."""

    @model_validator(mode="after")
    def _once_each(self) -> ReviewFile:
        seen: set[str] = set()
        for decision in self.decisions:
            if decision.item in seen:
                raise ValueError(f"item {decision.item!r} is decided twice")
            seen.add(decision.item)
        return self
