"""An item's validation history: its steps up the ladder (``generator.ladder``)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Final, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from generator.models.base import Name, Part

Status = Literal["draft", "reviewed", "validated"]
"""An item's rung on the validation ladder."""


class ValidationStep(Part):
    """One step of an item's review history (the ladder's rules: ``generator.ladder``)."""

    status: Status
    """The status reached by this step."""
    by: Name
    """Who wrote (``draft``) or signed off (a person's name or handle); for an
    ``external`` step, the source's authors as the source names them."""
    on: dt.date
    """When."""
    disagreed: bool = False
    """For ``validated``: the second reviewer disagreed with the first; ``resolution`` (or,
    with ``notes_private``, the private store) says how it was settled."""
    resolution: Annotated[str, Field(max_length=4_000)] = ""
    """How a disagreement between the two reviewers was resolved (empty: none recorded;
    always empty for a held-out item, whose notes stay in the private store)."""
    notes_private: bool = False
    """True when the reviewers' notes and resolution are in the private store (a held-out
    item's: a note may quote its text)."""
    external: Name | None = None
    """The source publication that validated the item outside this project (e.g. the
    paper of an imported public data set): the item's one step, ``validated``, with no
    invented reviewer names. Absent for a step of this project's own ladder."""

    @model_serializer(mode="wrap")
    def _without_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A step that uses none of the later fields keeps the bytes it was published with
        # (the bank files and their per-version downloads never change).
        data: dict[str, Any] = handler(self)
        for name in LATER_STEP_FIELDS:
            if name in data and data[name] == type(self).model_fields[name].default:
                del data[name]
        return data


LATER_STEP_FIELDS: Final = ("disagreed", "resolution", "notes_private", "external")
"""Fields a validation step gained after its first version: written only when set."""
