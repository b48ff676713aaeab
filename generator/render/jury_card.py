"""Context of a candidate's jury card (``templates/jury_card.html``).

Besides figures, a jury card lists records: the seated jury and its recusals (from the
bundle manifest) and the draws where the panel majority differs from the grader, with
their texts for public items, and what the candidate gets wrong (``generator.render.wrong``)
with the start of each public item's first failing response. Both kinds of draw are read
in one pass over the bundle. Held-out items appear by id only: their texts are never
loaded (the volume is read without the private store) and ``read_responses`` returns
nothing for them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from generator.anchors import anchor_probe_id
from generator.figures.tally import panel_majority
from generator.models.base import slugify
from generator.models.bundle import Recusal
from generator.models.raters import Rater
from generator.render import contamination
from generator.render.context import Candidate, Inputs, base_context, jury_card_path
from generator.render.text import Clipped, clip
from generator.render.wrong import failures, rubric_lines_context
from generator.scoring import adjudication_seat
from generator.store.bank import Bank
from generator.store.rowtypes import BundleData, DrawKey
from generator.store.texts import DrawTexts, read_responses

REASONS = {
    "same_family": "same family as the candidate",
    "is_candidate": "is the candidate",
}


@dataclass(frozen=True)
class Seat:
    """A seat of the jury as seated for this candidate."""

    seat: str
    judge: Rater
    qualification: str
    """Figure id of the judge's qualification outcome."""


@dataclass(frozen=True)
class SeatedRecusal:
    """A recusal with the reserve's family (from the volume's reserves)."""

    recusal: Recusal
    reason: str
    reserve_family: str | None


@dataclass(frozen=True)
class Message:
    """One message of a public item's prompt, clipped for display."""

    role: str
    text: Clipped


@dataclass(frozen=True)
class Listed:
    """A re-graded draw listed on the card."""

    key: DrawKey
    category: str
    heldout: bool
    why: str
    grader: str
    votes: tuple[tuple[str, str], ...]
    majority: str
    prompt: tuple[Message, ...] = ()
    criterion: str | None = None
    response: Clipped | None = None
    evidence: str | None = None


def _seats(inputs: Inputs, candidate: Candidate) -> list[Seat]:
    jury = candidate.bundle.manifest.jury
    seated: list[tuple[str, Rater]] = [("grader", jury.grader)]
    seated += [(f"panel {n}", judge) for n, judge in enumerate(jury.panel, start=1)]
    if jury.adjudication is not None:
        seated.append(("adjudication", jury.adjudication.rater))
    vid = inputs.volume_id
    return [
        Seat(seat, judge, f"{vid}/jury/{slugify(judge.key)}/qualification")
        for seat, judge in seated
    ]


def _recusals(inputs: Inputs, candidate: Candidate) -> list[SeatedRecusal]:
    families = {j.key: j.family or "human" for j in inputs.data.volume.jury.members()}
    return [
        SeatedRecusal(r, REASONS.get(r.reason, r.reason), families.get(r.reserve))
        for r in candidate.bundle.manifest.jury.recusals
    ]


@dataclass(frozen=True)
class _Panel:
    """The panel's records of one bundle, by draw."""

    votes: dict[DrawKey, dict[str, str]]
    whys: dict[DrawKey, str]
    majority: dict[DrawKey, str | None]
    verdicts: dict[DrawKey, str]
    seats: list[str]

    @classmethod
    def of(cls, bundle: BundleData, exclude: tuple[str, ...] = ()) -> _Panel:
        votes: dict[DrawKey, dict[str, str]] = defaultdict(dict)
        whys: dict[DrawKey, str] = {}
        for row in bundle.panel:
            votes[row.key][row.judge] = row.vote
            whys[row.key] = row.why
        verdicts = {v.key: v.verdict for v in bundle.verdicts}
        seats = [j.key for j in bundle.manifest.jury.seated()[1:]]
        return cls(dict(votes), whys, panel_majority(bundle, exclude), verdicts, seats)

    def disagreements(self) -> list[DrawKey]:
        """Draws whose panel majority differs from the grader's pass or fail."""
        return sorted(
            k
            for k, m in self.majority.items()
            if m is not None and self.verdicts.get(k) in ("pass", "fail") and self.verdicts[k] != m
        )

    def grader_refusals(self) -> list[DrawKey]:
        """Re-graded draws the grader refused to grade."""
        return sorted(k for k in self.votes if self.verdicts.get(k) == "grader_refused")

    def listed(self, key: DrawKey, bank: Bank) -> Listed:
        """The draw's record, without texts; votes in seat order."""
        by_judge = self.votes[key]
        order = [j for j in self.seats if j in by_judge] + sorted(set(by_judge) - set(self.seats))
        return Listed(
            key=key,
            category=bank.meta(key.item).category,
            heldout=bank.is_heldout(key.item),
            why=self.whys[key],
            grader=self.verdicts.get(key, "missing"),
            votes=tuple((j, by_judge[j]) for j in order),
            majority=self.majority.get(key) or "undecided",
        )


def _with_texts(listed: Listed, bank: Bank, texts: DrawTexts | None) -> Listed:
    """``listed`` with its public item's prompt and criterion and the draw's texts."""
    item = bank.public.get(listed.key.item)
    if listed.heldout or item is None:
        return listed
    prompt = (
        (Message("user", clip(item.prompt)),)
        if isinstance(item.prompt, str)
        else tuple(Message(m.role, clip(m.content)) for m in item.prompt)
    )
    response = texts.response if texts is not None else None
    return replace(
        listed,
        prompt=prompt,
        criterion=item.pass_criterion,
        response=clip(response) if response is not None else None,
        evidence=texts.evidence if texts is not None else None,
    )


def _listed(inputs: Inputs, candidate: Candidate) -> dict[str, Any]:
    """The disagreements with their texts, the grader refusals among the draws the panel
    re-graded, and what the candidate gets wrong (None for a baseline), with the texts
    of both read in one pass over the bundle."""
    bank = inputs.data.bank
    panel = _Panel.of(candidate.bundle, adjudication_seat(inputs.data.volume))
    disagree = panel.disagreements()
    wrong = failures(inputs, candidate)
    keys = {*disagree, *(wrong.quoted if wrong is not None else ())}
    texts = read_responses(inputs.data.layout, candidate.bundle, bank, keys) if inputs.texts else {}
    return {
        "disagreements": [_with_texts(panel.listed(k, bank), bank, texts.get(k)) for k in disagree],
        "refusals": [panel.listed(k, bank) for k in panel.grader_refusals()],
        "wrong": wrong.context(inputs, texts) if wrong is not None else None,
    }


def jury_card_context(inputs: Inputs, candidate: Candidate) -> dict[str, Any]:
    """Everything ``jury_card.html`` prints for ``candidate``."""
    vid = inputs.volume_id
    page = jury_card_path(vid, candidate.slug)
    title = f"{inputs.data.volume.title}: jury card of {candidate.ref.display_name}"
    context = base_context(inputs, page, title)
    context.update(
        {
            "candidate": candidate,
            "manifest": candidate.bundle.manifest,
            "seats": _seats(inputs, candidate),
            "recusals": _recusals(inputs, candidate),
            **_listed(inputs, candidate),
            "leaderboard": "../leaderboard.html",
            "rubric_lines": rubric_lines_context(inputs, candidate),
            "anchor_probe": anchor_probe_id(vid, candidate.ref.api) if candidate.anchor else None,
            "contamination_explained": contamination.EXPLAINED,
            "contamination_reading": contamination.reading,
        }
    )
    return context
