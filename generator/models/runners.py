"""What a maintainer declares when importing a runner's logs (``probepress import``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from generator.models.base import ItemId, Record


class SourceIds(Record):
    """An id map (``--ids FILE``, YAML or JSON): which bank item each of a runner's sample
    ids stands for, when the runner's ids are not the bank's item ids."""

    ids: dict[Annotated[str, Field(min_length=1, max_length=200)], ItemId] = Field(min_length=1)
    """Source id (an Inspect sample id, an lm-evaluation-harness ``doc_id``, as text) →
    bank item id. Every id of an imported log must be listed."""
