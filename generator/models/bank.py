"""The probe bank: items, the held-out index, and the bank manifest (``bank/bank.yaml``)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Annotated, ClassVar, Final, Literal

from pydantic import Field, StringConstraints, model_validator

from generator import ladder
from generator.models.base import Canary, ItemId, Part, Record, Sha256, Slug, VersionId
from generator.models.manifest import BankManifest, BankVersion, Category
from generator.models.rubric import Rubric
from generator.models.validation import Status, ValidationStep


class Message(Part):
    """One chat message of a multi-turn prompt."""

    role: Literal["system", "user", "assistant"]
    """Who speaks."""
    content: Annotated[str, Field(min_length=1, max_length=20_000)]
    """What is said."""


class NumberCheck(Part):
    """Tier 0 rule: the number the answer states equals ``expected`` within ``tolerance``
    (how the stated number is found: ``generator/tier0.py`` and the methodology page)."""

    kind: Literal["number"] = "number"
    """Discriminator."""
    expected: Decimal
    """The correct number."""
    tolerance: Decimal = Decimal("0")
    """Largest accepted absolute difference."""


class PatternCheck(Part):
    """Tier 0 rule: every ``required`` regex matches and no ``forbidden`` regex matches."""

    kind: Literal["pattern"] = "pattern"
    """Discriminator."""
    required: list[Annotated[str, Field(max_length=500)]] = []
    """Regular expressions (Python syntax, case-insensitive) that must all match."""
    forbidden: list[Annotated[str, Field(max_length=500)]] = []
    """Regular expressions (Python syntax, case-insensitive) none of which may match."""
    max_words: int | None = Field(default=None, ge=1)
    """Optional upper bound on the answer's word count."""

    @model_validator(mode="after")
    def _something_to_check(self) -> PatternCheck:
        if not (self.required or self.forbidden or self.max_words):
            raise ValueError("a pattern check needs required, forbidden or max_words")
        # Refused when the bank is read, with its line, rather than when a draw is checked.
        for pattern in (*self.required, *self.forbidden):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
        return self


Check = Annotated[NumberCheck | PatternCheck, Field(discriminator="kind")]


Tier0Rule = Literal[
    "empty-answer",
    "several-answers",
    "approximate-answer",
    "no-number",
    "wrong-number",
    "too-long",
    "missing-required",
    "forbidden-match",
]
"""A rule by which a Tier 0 check fails an answer (``generator/tier0.py``)."""

NUMBER_RULES: Final = frozenset(
    {"empty-answer", "several-answers", "approximate-answer", "no-number", "wrong-number"}
)
PATTERN_RULES: Final = frozenset(
    {"empty-answer", "too-long", "missing-required", "forbidden-match"}
)

Answer = Annotated[str, Field(max_length=20_000)]


class KnownWrong(Part):
    """A negative control: an answer the item must fail, and the rule that must fail it."""

    answer: Answer
    """The wrong answer, as a model might give it."""
    rule: Tier0Rule
    """The Tier 0 rule that must reject it (``probepress audit`` checks it does)."""
    note: Annotated[str, Field(max_length=500)] = ""
    """Why it is wrong (for reviewers)."""


class Reference(Part):
    """An item's declared answers for the audit: one that passes, and known-wrong ones.

    Held out with its item: a held-out item's reference lives in the private store only.
    """

    answer: Annotated[str, Field(min_length=1, max_length=20_000)] | None = None
    """An answer that meets the pass criterion (and passes a Tier 0 item's check)."""
    known_wrong: list[KnownWrong] = Field(default=[], max_length=50)
    """Tier 0 only: answers that must fail, each with the rule that must fail it."""

    @model_validator(mode="after")
    def _something(self) -> Reference:
        if self.answer is None and not self.known_wrong:
            raise ValueError("a reference declares an answer, known-wrong answers, or both")
        return self


class ItemMeta(Record):
    """What the repository may know about any item, public or held out."""

    id: ItemId
    """Stable id; never reused."""
    category: Slug
    """One of the categories declared in ``bank/bank.yaml``."""
    tier: Literal[0, 1]
    """0: code decides with a mechanical check; 1: a grader model decides."""
    added_in: VersionId
    """Bank version that added the item."""
    core: bool
    """True for items of the first bank version: never removed, never reworded."""
    status: Status
    """Current validation status; only ``validated`` items count toward published rates."""
    validation: list[ValidationStep]
    """Review history, oldest first; its last step's status equals ``status``."""
    sources: list[Annotated[str, Field(max_length=500)]] = []
    """Where the probe idea or its facts come from."""

    @model_validator(mode="after")
    def _history_matches(self) -> ItemMeta:
        if not self.validation:
            raise ValueError("validation history is empty")
        if self.validation[-1].status != self.status:
            raise ValueError(
                f"status is {self.status!r} but the last validation step says "
                f"{self.validation[-1].status!r}"
            )
        problem = ladder.history_problem(self.validation)
        if problem is not None:
            raise ValueError(f"validation ladder: {problem}")
        return self


BANK_ITEM_SCHEMA_VERSION = 3
"""Version 2 adds the optional ``rubric`` and ``reference`` (reference and known-wrong
answers), version 3 ``canary`` and ``published``. Older lines still read; an item is
written at the oldest version that holds it, so published bank files keep their bytes."""

CANARY_VERSION: Final = 3  # the bank item version that introduced canary and published


class BankItem(ItemMeta):
    """A whole probe: one line of a public bank JSONL, or of the private held-out store."""

    supported_schema_version: ClassVar[int] = BANK_ITEM_SCHEMA_VERSION

    text_sha256: Sha256
    """SHA-256 of the canonical text (prompt, criterion, check): frozen for core items.
    Public items only publish it; a held-out item's index entry carries keyed
    commitments instead (``HeldOutEntry``), because a plain digest of a short text can be
    brute-forced."""
    prompt: str | list[Message]
    """The question: plain text or chat messages."""
    pass_criterion: Annotated[str, Field(min_length=1, max_length=4_000)]
    """What an answer must do to pass, written for a human or a grader."""
    check: Check | None = None
    """Tier 0 only: the mechanical rule that decides pass or fail."""
    rubric: Rubric | None = None
    """Tier 1 only, since schema version 2: the lines a grader answers yes or no for,
    which score the item instead of a single pass or fail (``pass_criterion`` then says
    in a sentence what the rubric measures). Part of the item's text (hashed, committed,
    held out like the criterion)."""

    def criterion_text(self) -> str:
        """The pass criterion and every rubric line, one per line: the item's graded text
        (held out like the prompt)."""
        lines = [] if self.rubric is None else [line.text for line in self.rubric.lines]
        return "\n".join([self.pass_criterion, *lines])

    canary: Canary | None = None
    """Since schema version 3: the bank's canary GUID (``bank/bank.yaml``), on every public
    line so a training-corpus search finds any copy of it (``generator.canary`` requires
    it before anything public is built); held-out items in the private store carry none."""
    published: dt.date | None = None
    """Since schema version 3, in the per-version downloads only: the release date of the
    bank version that added the item (the first day its text could be public), to filter
    by a model's knowledge cut-off. ``bank/public.jsonl`` leaves it to the manifest."""

    reference: Reference | None = None
    """The reference answer and known-wrong answers the audit tests the item with (since
    schema version 2; not part of ``text_sha256``, so a core item can gain them). A public
    item's reference is public like its prompt and criterion: it is in
    ``bank/public.jsonl`` and in that file's copy among the downloads (the bank sources the
    figures cite), so anyone can rerun the audit's reference test. The per-version
    ``bank_<version>_public.jsonl`` downloads leave it out (``public_dump``). A held-out
    item's reference lives in the private store only and reaches no public file (the
    holdout gate looks for it)."""

    def public_dump(self, published: dt.date | None = None) -> dict[str, object]:
        """The item as the per-version ``bank_<version>_public.jsonl`` downloads carry it:
        without its reference (the bank sources download carries a public item's), with
        its ``published`` date when given, at the oldest schema version that still holds
        the rest, so adding a reference never changes a published per-version download's
        bytes."""
        data: dict[str, object] = self.model_dump(
            mode="json", exclude_none=True, exclude={"reference"}
        )
        if published is not None:  # version 3 holds it, and no older version does
            version = max(self.schema_version, CANARY_VERSION)
            return {**data, "published": published.isoformat(), "schema_version": version}
        for version in range(1, self.schema_version):
            try:
                type(self).model_validate({**data, "schema_version": version})
            except ValueError:
                continue
            return {**data, "schema_version": version}
        return data

    def reference_texts(self) -> list[str]:
        """The reference answer and known-wrong answers (held-out text for a held-out
        item: the holdout gate looks for them)."""
        ref = self.reference
        if ref is None:
            return []
        return [*([ref.answer] if ref.answer else []), *(w.answer for w in ref.known_wrong)]

    def heldout_texts(self) -> list[str]:
        """Prompt, criterion (with rubric lines) and reference texts: what a held-out item
        keeps private."""
        return [self.prompt_text(), self.criterion_text(), *self.reference_texts()]

    def prompt_text(self) -> str:
        """The prompt as one text (chat messages' contents, one per line): what the leak
        scan looks for."""
        if isinstance(self.prompt, str):
            return self.prompt
        return "\n".join(m.content for m in self.prompt)

    @model_validator(mode="after")
    def _check_matches_tier(self) -> BankItem:
        if self.tier == 0 and self.check is None:
            raise ValueError("a Tier 0 item needs a mechanical check")
        if self.tier == 1 and self.check is not None:
            raise ValueError("a Tier 1 item is graded by a model and takes no check")
        if self.rubric is not None and self.tier != 1:
            raise ValueError("a rubric is graded by a model: only Tier 1 items carry one")
        if self.rubric is not None and self.schema_version < 2:
            raise ValueError("an item with a rubric is schema_version 2 (write schema_version: 2)")
        if self.reference is not None:
            self._reference_fits(self.reference)
        if (self.canary or self.published) and self.schema_version < CANARY_VERSION:
            raise ValueError(
                f"canary and published need schema_version {CANARY_VERSION} "
                f"(the item says {self.schema_version})"
            )
        return self

    def _reference_fits(self, reference: Reference) -> None:
        if self.schema_version < 2:  # the version that introduced references
            raise ValueError(
                f"reference needs schema_version 2 (the item says {self.schema_version})"
            )
        if reference.known_wrong and self.check is None:
            raise ValueError("known_wrong answers are for Tier 0 items (a Tier 1 item has no rule)")
        allowed = NUMBER_RULES if isinstance(self.check, NumberCheck) else PATTERN_RULES
        for n, wrong in enumerate(reference.known_wrong):
            if wrong.rule not in allowed:
                raise ValueError(
                    f"reference.known_wrong[{n}]: rule {wrong.rule!r} is not a rule of a "
                    f"{self.check.kind if self.check else 'missing'} check "
                    f"(one of {', '.join(sorted(allowed))})"
                )


COMMITMENT_SCHEME: Final = "hmac-sha256"
Commitment = Annotated[str, StringConstraints(pattern=r"^hmac-sha256:[0-9a-f]{64}$")]
"""A keyed commitment ``hmac-sha256:<hex>`` to a held-out text (``generator.commitments``):
testable only with the item's key, which only the private store can derive."""

HELDOUT_SCHEMA_VERSION = 2
"""Version 1 carried ``text_sha256``, a plain SHA-256 of the held-out text."""


class HeldOutEntry(ItemMeta):
    """One line of ``bank/heldout_index.jsonl``: a held-out item's metadata and keyed
    commitments to its text (never a plain digest of it)."""

    supported_schema_version: ClassVar[int] = HELDOUT_SCHEMA_VERSION
    oldest_schema_version: ClassVar[int] = HELDOUT_SCHEMA_VERSION
    older_schema_note: ClassVar[str] = (
        ": its text_sha256 is a plain SHA-256 of held-out text, which anyone can test "
        "guesses against; rewrite the index with prompt_commitment and criterion_commitment "
        "(`probepress demo` for the example)"
    )

    schema_version: int = Field(default=HELDOUT_SCHEMA_VERSION, ge=1)
    """Version of this file format (2: keyed commitments). Version 1 is refused."""
    prompt_commitment: Commitment
    """HMAC-SHA256 under the item's key of the canonical prompt (``hmac-sha256:<hex>``);
    frozen for core items."""
    criterion_commitment: Commitment
    """HMAC-SHA256 under the item's key of the canonical pass criterion and check."""

    @model_validator(mode="after")
    def _no_notes(self) -> HeldOutEntry:
        if any(step.resolution for step in self.validation):
            raise ValueError(
                "a held-out item's resolution text stays in the private store: write "
                "notes_private: true and an empty resolution"
            )
        return self


__all__ = [
    "BANK_ITEM_SCHEMA_VERSION",
    "COMMITMENT_SCHEME",
    "HELDOUT_SCHEMA_VERSION",
    "NUMBER_RULES",
    "PATTERN_RULES",
    "Answer",
    "BankItem",
    "BankManifest",
    "BankVersion",
    "Category",
    "Check",
    "Commitment",
    "HeldOutEntry",
    "ItemMeta",
    "KnownWrong",
    "Message",
    "NumberCheck",
    "PatternCheck",
    "Reference",
    "Status",
    "Tier0Rule",
    "ValidationStep",
]
"""Public names (``Status`` and ``ValidationStep`` live in ``models.validation``; the
manifest's ``BankManifest``, ``BankVersion`` and ``Category`` in ``models.manifest``)."""
