"""The panel's data as the agreement statistics need it."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from generator.sampling import Eligible, PanelSample, panel_sample
from generator.store.rowtypes import BundleData, DrawKey
from generator.store.volume import VolumeData

JUDGED = ("pass", "fail", "grader_refused")


@dataclass(frozen=True)
class RatedDraw:
    """One sampled draw with the independent panel seats' votes, in seat order (None: the
    rater refused or did not vote). An adjudication seat's vote is not among them: it is
    not independent of the seats it adjudicates."""

    candidate: str
    key: DrawKey
    category: str
    why: str
    grader: str
    votes: tuple[str | None, ...]


def categories(data: VolumeData) -> dict[str, str]:
    """Every bank item's category, by item id (public and held out)."""
    bank = data.bank
    return {i: m.category for i, m in [*bank.heldout.items(), *bank.public.items()]}


def reproduce_sample(data: VolumeData, bundle: BundleData) -> PanelSample:
    """The panel sample the recorded seed implies for ``bundle``."""
    thresholds = data.volume.thresholds
    category = categories(data)
    eligible = [
        Eligible(
            v.key.item,
            v.key.half,
            v.key.draw,
            category[v.key.item],
            v.borderline,
            v.verdict == "grader_refused",
        )
        for v in bundle.verdicts
        if v.tier == 1 and v.verdict in JUDGED
    ]
    return panel_sample(
        eligible,
        seed=thresholds.sample_seed,
        volume=data.volume.id,
        candidate=bundle.slug,
        fraction=thresholds.panel_sample_fraction,
    )


def rated_draws(data: VolumeData, bundle: BundleData) -> list[RatedDraw]:
    """Every draw with panel votes, votes ordered by the seated panel's independent seats."""
    seats = [j.key for j in bundle.manifest.jury.panel]
    votes: dict[DrawKey, dict[str, str]] = defaultdict(dict)
    whys: dict[DrawKey, str] = {}
    known = data.bank.public.keys() | data.bank.heldout.keys()
    for vote in bundle.panel:
        if vote.key.item not in known:
            continue  # a vote on no item of the bank: preflight's unknown-item finding
        votes[vote.key][vote.judge] = vote.vote
        whys[vote.key] = vote.why
    graders = {v.key: v.verdict for v in bundle.verdicts}
    out = []
    for key in sorted(votes):
        by_judge = votes[key]
        ordered = tuple(
            None if by_judge.get(api) in (None, "refused") else by_judge[api] for api in seats
        )
        out.append(
            RatedDraw(
                bundle.slug,
                key,
                data.bank.meta(key.item).category,
                whys[key],
                graders.get(key, "missing"),
                ordered,
            )
        )
    return out
