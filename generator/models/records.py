"""Line formats of a bundle: draws, verdicts, panel votes, qualification records."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from generator.models.bank import Commitment
from generator.models.base import ItemId, Name, Part, Record, Slug
from generator.models.rubric import RubricGrade
from generator.models.scoring import Label
from generator.models.volume import AttemptStatus

Half = Annotated[str, Field(pattern=r"^[A-Z]$")]
DrawIndex = Annotated[int, Field(ge=1, le=100)]
MAX_RESPONSE = 200_000
LOST_STATUSES = frozenset({"provider_error", "timeout"})
DRAW_SCHEMA_VERSION = 3
"""Version 1 carried ``response_sha256``, a plain SHA-256 of each held-out response;
version 3 lets ``latency_ms`` be unknown (version 2 files, which always give it, read)."""


class Attempt(Part):
    """One request for a draw."""

    status: AttemptStatus
    """``ok``, ``provider_error``, ``timeout``, ``empty`` or ``content_filter``."""
    error_class: Annotated[str, Field(max_length=200)] | None = None
    """The runner's error class for a failed attempt (e.g. ``HTTP 503``)."""
    latency_ms: int | None = Field(default=None, ge=0)
    """Wall time of the request (absent: the runner did not record it; shown as unknown)."""


class Usage(Part):
    """Token usage reported by the provider."""

    input_tokens: int = Field(ge=0)
    """Prompt tokens."""
    output_tokens: int = Field(ge=0)
    """Completion tokens."""


class Draw(Record):
    """One answer of the candidate to one item (one line of ``draws.jsonl``)."""

    supported_schema_version: ClassVar[int] = DRAW_SCHEMA_VERSION
    oldest_schema_version: ClassVar[int] = 2
    older_schema_note: ClassVar[str] = (
        ": its response_sha256 is a plain SHA-256 of a held-out response, which anyone can "
        "test guesses against; write the bundle again with response_commitment "
        "(`probepress demo` for the example)"
    )

    schema_version: int = Field(default=DRAW_SCHEMA_VERSION, ge=1)
    """Version of this file format (2: keyed response commitments; 3: latency may be
    unknown). Version 1 is refused."""
    item: ItemId
    """Item id."""
    half: Half
    """Half (``A``, ``B`` …)."""
    draw: DrawIndex
    """Draw index within the half, from 1."""
    attempts: list[Attempt] = Field(min_length=1, max_length=10)
    """Every attempt in order; the last one decides the draw's status."""
    response: Annotated[str, Field(max_length=MAX_RESPONSE)] | None = None
    """Final response text (public items only)."""
    response_commitment: Commitment | None = None
    """Held-out items: HMAC-SHA256 of the final response under the item's key, bound to
    the volume, candidate, half and draw (``generator.commitments``); the text is in the
    private store."""
    finish_reason: Annotated[str, Field(max_length=50)] | None = None
    """Provider's finish reason."""
    usage: Usage | None = None
    """Token usage of the final attempt."""
    latency_ms: int | None = Field(default=None, ge=0)
    """Total wall time over attempts (absent: not recorded by the runner; never invented)."""

    @model_validator(mode="after")
    def _text_or_commitment(self) -> Draw:
        if self.response is not None and self.response_commitment is not None:
            raise ValueError("give response or response_commitment, not both")
        if self.status in LOST_STATUSES and (
            self.response is not None or self.response_commitment is not None
        ):
            raise ValueError(f"a draw lost to {self.status} has no response")
        return self

    @property
    def status(self) -> str:
        """Status of the final attempt."""
        return self.attempts[-1].status

    @property
    def lost(self) -> bool:
        """True when provider or transport failures left no answer."""
        return self.status in LOST_STATUSES


VerdictValue = Literal["pass", "fail", "grader_refused", "lost"]
VERDICT_SCHEMA_VERSION = 3
"""Version 2 adds the rater's own ``label``; version 3 the ``rubric`` grade of a rubric
item. Version 1 and 2 lines (no label, no rubric) still read."""
PANEL_SCHEMA_VERSION = 2
"""Version 2 adds the judge's own ``label``; version 1 lines (no label) still read."""


class Verdict(Record):
    """The verdict on one draw (one line of ``verdicts.jsonl``)."""

    supported_schema_version: ClassVar[int] = VERDICT_SCHEMA_VERSION

    schema_version: int = Field(default=2, ge=1)
    """Version of this file format (2: the grader's label; 3: rubric grades). Written as
    2 unless the line carries rubric grades, so verdicts without them keep their bytes."""
    item: ItemId
    """Item id."""
    half: Half
    """Half."""
    draw: DrawIndex
    """Draw index."""
    tier: Literal[0, 1]
    """Tier of the item (0: mechanical check; 1: grader)."""
    grader: Name | None = None
    """API string of the grader (``None`` for Tier 0 and lost draws)."""
    verdict: VerdictValue
    """``pass``, ``fail``, ``grader_refused`` (not a verdict; the panel decides) or ``lost``;
    for a labelled Tier 1 draw, what the volume's pre-registered rule derives from
    ``label`` (the preflight gate re-derives it)."""
    label: Label | None = None
    """The grader's own label (e.g. ``full_refusal``), one of the volume's declared
    ``scoring.labels``; omitted when the volume declares none (the label is then the
    verdict) and on Tier 0 and lost draws."""
    borderline: bool = False
    """The grader flagged the draw as borderline (always re-graded by the panel)."""
    evidence: Annotated[str, Field(max_length=500)] | None = None
    """Short quote supporting the verdict (never for held-out items)."""
    rubric: RubricGrade | None = None
    """A rubric item's grades (since schema version 3): every rubric line yes or no with
    its evidence quote, and the deflection flag. ``verdict`` is then the item's safety
    outcome, ``fail`` exactly when a ``must_not_include`` line was met; the score comes
    from the grades by the volume's pre-registered rubric profile."""

    def _check_rubric(self, rubric: RubricGrade) -> None:
        """A rubric verdict is a graded Tier 1 verdict whose pass/fail is its safety."""
        if self.schema_version < 3:
            raise ValueError("a rubric verdict is schema_version 3 (write schema_version: 3)")
        if self.tier != 1 or self.verdict not in ("pass", "fail"):
            raise ValueError(
                "only a graded Tier 1 verdict (pass or fail) carries rubric grades; "
                f"this one is Tier {self.tier}, {self.verdict}"
            )
        if self.label is not None:
            raise ValueError("a rubric verdict carries no label: its lines are its grades")
        safety = "pass" if rubric.safety_pass() else "fail"
        if safety != self.verdict:
            raise ValueError(
                f"verdict is {self.verdict!r} but the rubric grades say {safety!r} "
                "(a rubric verdict is fail exactly when a must_not_include line is met)"
            )

    @model_validator(mode="after")
    def _grader_matches_tier(self) -> Verdict:
        if self.tier == 0 and self.grader is not None:
            raise ValueError("a Tier 0 verdict is decided by code and names no grader")
        if (
            self.tier == 1
            and self.verdict in ("pass", "fail", "grader_refused")
            and not self.grader
        ):
            raise ValueError("a Tier 1 verdict names its grader")
        if self.tier == 0 and self.verdict == "grader_refused":
            raise ValueError("a Tier 0 verdict cannot be a grader refusal")
        if self.label is not None and (self.tier == 0 or self.verdict == "lost"):
            what = "a Tier 0 verdict is decided by code and" if self.tier == 0 else "a lost draw"
            raise ValueError(f"{what} carries no rater label")
        if self.rubric is not None:
            self._check_rubric(self.rubric)
        return self


class PanelVote(Record):
    """One panel judge's vote on one sampled draw (one line of ``panel.jsonl``)."""

    supported_schema_version: ClassVar[int] = PANEL_SCHEMA_VERSION

    schema_version: int = Field(default=PANEL_SCHEMA_VERSION, ge=1)
    """Version of this file format (2: the judge's label)."""
    item: ItemId
    """Item id."""
    half: Half
    """Half."""
    draw: DrawIndex
    """Draw index."""
    judge: Name
    """Key of the rater: a model's API string or a human's id."""
    family: Slug | None = None
    """The model's family (omitted for a human rater, who has none)."""
    vote: Literal["pass", "fail", "refused"]
    """The judge's vote (``refused``: its safety filter declined to grade); for a labelled
    vote, what the volume's pre-registered rule derives from ``label``."""
    label: Label | None = None
    """The judge's own label, one of the volume's declared ``scoring.labels`` (omitted
    when the volume declares none: the label is then the vote)."""
    why: Literal["stratified", "borderline", "grader_refused"]
    """Why the draw is in the panel sample."""


class Qualification(Record):
    """One qualification probe result of a grader or judge (``qualification.jsonl``)."""

    judge: Name
    """Key of the grader or judge: a model's API string or a human's id."""
    family: Slug | None = None
    """The model's family (omitted for a human rater, who has none)."""
    probe: Slug
    """Qualification case id (cases that broke graders before)."""
    expected: Literal["pass", "fail"]
    """The correct grade of the case."""
    got: Literal["pass", "fail", "refused"]
    """What the judge said (``refused``: its safety filter declined)."""


class PrivateResponse(Record):
    """A held-out response's text in the private store."""

    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume id."""
    candidate: Slug
    """Candidate slug."""
    item: ItemId
    """Item id."""
    half: Half
    """Half."""
    draw: DrawIndex
    """Draw index."""
    text: Annotated[str, Field(max_length=MAX_RESPONSE)]
    """The response."""
