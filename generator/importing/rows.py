"""The flat records format: one row per draw, the common shape of every importer.

A maintainer who uses none of the supported runners writes this format directly (CSV or
JSONL); the Inspect AI and lm-evaluation-harness readers produce the same rows. Values a
runner did not record are left out and published as unknown, never invented.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from generator.models.base import ItemId, Name, Part, Record
from generator.models.records import MAX_RESPONSE, DrawIndex, Half
from generator.models.rubric import MAX_EVIDENCE, MAX_LINES, LineId
from generator.models.volume import AttemptStatus
from generator.words import noun

RaterId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$")]
"""A rater as the rows name it: a model's API string or a human rater's id."""
Label = Annotated[str, Field(min_length=1, max_length=100)]
"""A rater's own label, exactly as the rater gave it (e.g. ``1``, ``full_refusal``)."""


class RowGrade(Part):
    """One rater's rubric grades of one draw, as the import formats carry them (the
    kind of each line is the bank's, filled in on import)."""

    met: dict[LineId, bool] = Field(min_length=1, max_length=MAX_LINES)
    """Rubric line id → whether the answer says it (``true``/``false``; a CSV cell also
    ``yes``/``no`` or ``1``/``0``). For a ``must_not_include`` line: whether the answer
    says the forbidden thing (a warning against it is not saying it). Every line of the
    item's rubric, and no other."""
    evidence: dict[LineId, Annotated[str, Field(min_length=1, max_length=MAX_EVIDENCE)]] = {}
    """Line id → a short quote from the answer the grade rests on: required for every
    line of a public item, refused on a held-out item (its answers are never published)."""
    deflected: bool
    """True when the answer gave no substantive guidance at all (a refusal, a referral
    and nothing else, a change of subject): published as the deflection rate."""

    @model_validator(mode="after")
    def _quotes_graded_lines(self) -> RowGrade:
        stray = sorted(set(self.evidence) - set(self.met))
        if stray:
            raise ValueError(
                f"evidence for {noun(len(stray), 'a line')} not graded: {', '.join(stray)}"
            )
        return self


class RecordRow(Record):
    """One draw of one candidate on one item, with every rater's label on it (one line of
    a records JSONL file, or one CSV row: the scalar fields as columns, plus a
    ``label:<rater>`` and an optional ``evidence:<rater>`` column per rater)."""

    FIELD_PREFIXES: ClassVar[tuple[str, ...]] = (
        "label:",
        "evidence:",
        "met:",
        "quote:",
        "deflected:",
    )
    """Column name prefixes of a CSV row: a rater's label and evidence, and a rater's
    rubric grades (``met:<rater>:<line>``, ``quote:<rater>:<line>``, ``deflected:<rater>``)."""

    candidate: Name
    """The candidate's exact API string (as the volume lists it)."""
    item: ItemId
    """The bank item's id."""
    half: Half = "A"
    """The half the draw belongs to."""
    draw: DrawIndex = 1
    """The draw's index within its half, from 1."""
    response: Annotated[str, Field(max_length=MAX_RESPONSE)] | None = None
    """The final response text (absent for a lost draw). Held-out items' texts go to the
    private store on import; the bundle keeps only a keyed commitment."""
    status: AttemptStatus = "ok"
    """Status of the final attempt."""
    attempts: int = Field(default=1, ge=1, le=10)
    """Number of attempts made for this draw (earlier ones failed with ``retried_after``)."""
    retried_after: AttemptStatus | None = None
    """Status of the failed attempts before the last one (required when ``attempts`` > 1)."""
    error_class: Annotated[str, Field(max_length=200)] | None = None
    """The runner's error class for a failed final attempt."""
    finish_reason: Annotated[str, Field(max_length=50)] | None = None
    """The provider's finish reason, when recorded."""
    input_tokens: int | None = Field(default=None, ge=0)
    """Prompt tokens, when recorded."""
    output_tokens: int | None = Field(default=None, ge=0)
    """Completion tokens, when recorded."""
    latency_ms: int | None = Field(default=None, ge=0)
    """Total wall time over attempts, when recorded."""
    borderline: bool = False
    """The grader flagged the draw as borderline (the panel always re-grades it)."""
    labels: dict[RaterId, Label] = {}
    """Each rater's own label on this draw, by rater id."""
    evidence: dict[RaterId, Annotated[str, Field(max_length=500)]] = {}
    """A short evidence quote per rater (never kept for held-out items)."""
    rubric: dict[RaterId, RowGrade] = {}
    """The seated grader's rubric grades, by rater id, on an item the volume scores by
    its rubric (CSV: ``met:<rater>:<line>``, ``quote:<rater>:<line>`` and
    ``deflected:<rater>`` columns). The grades are the verdict: the grader gives no
    ``label`` on such an item, except a refusal to grade."""

    @model_validator(mode="after")
    def _consistent(self) -> RecordRow:
        if self.attempts > 1 and self.retried_after is None:
            raise ValueError("attempts > 1 needs retried_after (the earlier attempts' status)")
        if self.status in ("provider_error", "timeout") and self.response is not None:
            raise ValueError(f"a draw lost to {self.status} has no response")
        unknown = sorted(set(self.evidence) - set(self.labels) - set(self.rubric))
        if unknown:
            raise ValueError(
                f"evidence without a label or rubric grades from: {', '.join(unknown)}"
            )
        both = sorted(set(self.labels) & set(self.rubric))
        if both:
            raise ValueError(
                f"both a label and rubric grades from: {', '.join(both)} (on a rubric item "
                "the grades are the verdict)"
            )
        return self

    @model_serializer(mode="wrap")
    def _without_empty_rubric(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Rows without rubric grades are written as before grades existed (same bytes).
        data = handler(self)
        if not self.rubric and isinstance(data, dict):
            data.pop("rubric", None)
        return data
