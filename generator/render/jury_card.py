"""Context of a candidate's jury card (``templates/jury_card.html``).

Besides figures, a jury card lists records: the seated jury and its recusals (from the
bundle manifest) and the draws where the panel majority differs from the grader, with
their texts for public items. Held-out items appear by id only: their texts are never
loaded (the volume is read without the private store) and ``read_responses`` returns
nothing for them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from generator.figures.tally import panel_majority
from generator.models.base import slugify
from generator.models.bundle import Recusal
from generator.models.volume import Judge
from generator.render.context import Candidate, Inputs, base_context, jury_card_path
from generator.render.text import Clipped, clip
from generator.store.bundle import DrawKey, read_responses

REASONS = {
    "same_family": "same family as the candidate",
    "is_candidate": "is the candidate",
}


@dataclass(frozen=True)
class Seat:
    """A seat of the jury as seated for this candidate."""

    seat: str
    judge: Judge
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
    seated = [("grader", jury.grader)] + [
        (f"panel {n}", judge) for n, judge in enumerate(jury.panel, start=1)
    ]
    vid = inputs.volume_id
    return [
        Seat(seat, judge, f"{vid}/jury/{slugify(judge.api)}/qualification")
        for seat, judge in seated
    ]


def _recusals(inputs: Inputs, candidate: Candidate) -> list[SeatedRecusal]:
    families = {j.api: j.family for j in inputs.data.volume.jury.members()}
    return [
        SeatedRecusal(r, REASONS.get(r.reason, r.reason), families.get(r.reserve))
        for r in candidate.bundle.manifest.jury.recusals
    ]


def _listed(inputs: Inputs, candidate: Candidate) -> tuple[list[Listed], list[Listed]]:
    """(disagreements, grader refusals) among the draws the panel re-graded."""
    bundle = candidate.bundle
    bank = inputs.data.bank
    seats = [j.api for j in bundle.manifest.jury.panel]
    votes: dict[DrawKey, dict[str, str]] = defaultdict(dict)
    whys: dict[DrawKey, str] = {}
    for row in bundle.panel:
        votes[row.key][row.judge] = row.vote
        whys[row.key] = row.why
    verdicts = {v.key: v.verdict for v in bundle.verdicts}
    majority = panel_majority(bundle)
    disagree = sorted(
        k
        for k, m in majority.items()
        if m is not None and verdicts.get(k) in ("pass", "fail") and verdicts[k] != m
    )
    refused = sorted(k for k in votes if verdicts.get(k) == "grader_refused")
    texts = read_responses(inputs.data.layout, bundle, bank, set(disagree))

    def listed(key: DrawKey, with_text: bool) -> Listed:
        by_judge = votes[key]
        order = [j for j in seats if j in by_judge] + sorted(set(by_judge) - set(seats))
        base = Listed(
            key=key,
            category=bank.meta(key.item).category,
            heldout=bank.is_heldout(key.item),
            why=whys[key],
            grader=verdicts.get(key, "missing"),
            votes=tuple((j, by_judge[j]) for j in order),
            majority=majority.get(key) or "undecided",
        )
        item = bank.public.get(key.item)
        if not with_text or base.heldout or item is None:
            return base
        prompt = (
            (Message("user", clip(item.prompt)),)
            if isinstance(item.prompt, str)
            else tuple(Message(m.role, clip(m.content)) for m in item.prompt)
        )
        found = texts.get(key)
        response = found.response if found is not None else None
        return replace(
            base,
            prompt=prompt,
            criterion=item.pass_criterion,
            response=clip(response) if response is not None else None,
            evidence=found.evidence if found is not None else None,
        )

    return [listed(k, True) for k in disagree], [listed(k, False) for k in refused]


def jury_card_context(inputs: Inputs, candidate: Candidate) -> dict[str, Any]:
    """Everything ``jury_card.html`` prints for ``candidate``."""
    vid = inputs.volume_id
    page = jury_card_path(vid, candidate.slug)
    title = f"{inputs.data.volume.title}: jury card of {candidate.ref.display_name}"
    context = base_context(inputs, page, title)
    disagreements, refusals = _listed(inputs, candidate)
    context.update(
        {
            "candidate": candidate,
            "manifest": candidate.bundle.manifest,
            "seats": _seats(inputs, candidate),
            "recusals": _recusals(inputs, candidate),
            "disagreements": disagreements,
            "refusals": refusals,
            "leaderboard": "../leaderboard.html",
        }
    )
    return context
