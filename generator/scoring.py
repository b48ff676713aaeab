"""A volume's scoring applied: which group an item is in, what a label derives, and what
the reference rater set decided on each draw.

The label rules are the pre-registered ``scoring`` of ``volume.yaml``
(``generator.models.scoring``). Without a declared label set the label set is
``pass``/``fail``, every item is in one implicit group (``all-items``) whose rule is the
identity (``pass`` → pass, ``fail`` → fail), and a verdict or vote without a label has its
verdict as its label; so every bundle written before labels existed scores as it did.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from generator.models.bank import ItemMeta
from generator.models.raters import HumanRater
from generator.models.scoring import DEFAULT_LABELS, Scoring
from generator.models.volume import Volume
from generator.store.rowtypes import BundleData, DrawKey, PanelRow, VerdictRow

DEFAULT_GROUP = "all-items"
IDENTITY = {"pass": "pass", "fail": "fail"}
VERDICT_OF = {"pass": "pass", "fail": "fail", "refused": "grader_refused"}
"""A grader's outcome as ``verdicts.jsonl`` records it."""
VOTE_OF = {"pass": "pass", "fail": "fail", "refused": "refused"}
"""A judge's outcome as ``panel.jsonl`` records it."""


@dataclass(frozen=True)
class LabelRules:
    """The label set and every item's group and rule."""

    declared: bool
    """False: no label set is declared (the default identity scoring)."""
    labels: tuple[str, ...]
    group_of: Mapping[str, str]
    """Item id → group id (items in no group, or in two, are absent; the gate says so)."""
    rules: Mapping[str, Mapping[str, str]]
    """Group id → label → outcome (``pass``, ``fail``, ``refused``)."""

    def label_of(self, label: str | None, recorded: str) -> str | None:
        """The label a record stands for: its own, or (no scheme declared) its verdict."""
        if label is not None:
            return label
        if not self.declared and recorded in IDENTITY:
            return recorded
        return None

    def outcome(self, item: str, label: str) -> str | None:
        """What ``label`` derives on ``item``; None: no group, or the group has no rule for it."""
        group = self.group_of.get(item)
        return None if group is None else self.rules[group].get(label)


def group_members(scoring: Scoring, items: Iterable[ItemMeta]) -> dict[str, list[str]]:
    """Item id → every declared group it belongs to, in declaration order."""
    out: dict[str, list[str]] = defaultdict(list)
    listed = [(g.id, set(g.categories), set(g.items)) for g in scoring.groups]
    for meta in items:
        for gid, cats, ids in listed:
            if meta.category in cats or meta.id in ids:
                out[meta.id].append(gid)
    return dict(out)


def label_rules(volume: Volume, items: Iterable[ItemMeta]) -> LabelRules:
    """The rules of ``volume`` over ``items`` (the bank's items the volume may score)."""
    scoring = volume.scoring_or_default()
    if scoring.labels is None:
        metas = list(items)
        return LabelRules(
            False,
            DEFAULT_LABELS,
            {m.id: DEFAULT_GROUP for m in metas},
            {DEFAULT_GROUP: IDENTITY},
        )
    members = group_members(scoring, items)
    return LabelRules(
        True,
        tuple(scoring.labels),
        {item: groups[0] for item, groups in members.items() if len(groups) == 1},
        {g.id: dict(g.rule) for g in scoring.groups},
    )


def panel_majority(
    panel: Iterable[PanelRow], exclude: Iterable[str] = ()
) -> dict[DrawKey, str | None]:
    """Majority vote of the independent panel per draw (None: tie or nobody voted).

    ``exclude``: seats whose votes are not independent ratings (an adjudication seat).
    """
    skip = frozenset(exclude)
    votes: dict[DrawKey, Counter[str]] = defaultdict(Counter)
    for vote in panel:
        if vote.judge in skip:
            continue
        counts = votes[vote.key]  # a draw every judge refused still gets an (empty) entry
        if vote.vote in ("pass", "fail"):
            counts[vote.vote] += 1
    out: dict[DrawKey, str | None] = {}
    for key, counts in votes.items():
        if counts["fail"] > counts["pass"]:
            out[key] = "fail"
        elif counts["pass"] > counts["fail"]:
            out[key] = "pass"
        else:
            out[key] = None
    return out


def adjudication_seat(volume: Volume) -> tuple[str, ...]:
    """The key of the jury's adjudication seat (``jury.adjudication``), if the volume
    declares one: its votes are not independent ratings, so no majority or agreement
    counts them, and with ``scoring.reference: adjudication`` its labels are the reference."""
    seat = volume.jury.adjudication
    return () if seat is None else (seat.rater.key,)


def judged(verdict: VerdictRow) -> bool:
    """A Tier 1 draw with an answer: the reference rater set decides it."""
    return verdict.tier == 1 and verdict.verdict != "lost"


def reference_decisions(
    volume: Volume, bundle: BundleData, majority: dict[DrawKey, str | None] | None = None
) -> dict[DrawKey, str | None]:
    """What the reference rater set decided on each judged draw it rated (``pass``,
    ``fail``; None: it did not decide — a tie, a refusal). Empty for the grader reference
    (the grader's verdicts are the decisions; ``generator.figures.tally``). ``majority``
    passes the bundle's panel majority already counted (None: counted here if needed)."""
    scoring = volume.scoring_or_default()
    if scoring.reference == "panel-majority":
        if majority is not None:
            return majority
        return panel_majority(bundle.panel, adjudication_seat(volume))
    if scoring.reference == "adjudication":
        seats = adjudication_seat(volume)
        out: dict[DrawKey, str | None] = {}
        for vote in bundle.panel:
            if vote.judge in seats:
                out[vote.key] = vote.vote if vote.vote in ("pass", "fail") else None
        return out
    return {}


REFERENCE_WORDS = {
    "grader": (
        "the Tier 1 grader: its verdict decides every judged draw; the panel majority "
        "decides the draws it refused to grade"
    ),
    "panel-majority": (
        "the panel majority: the majority of the independent panel votes decides every "
        "judged draw (the panel re-grades all of them); a tie or an all-refusing panel "
        "leaves a draw undecided"
    ),
    "adjudication": (
        "the adjudication seat {seat}: its label decides every judged draw; a draw it "
        "did not decide counts toward no rate"
    ),
}

LENIENCY_WORDS = {
    "grader": "",
    "panel-majority": (
        " The published rates come from the panel majority, so leniency shows how far the "
        "grader, which is not the reference, would have moved them."
    ),
    "adjudication": (
        " The published rates come from the adjudication seat; leniency compares the grader "
        "with the independent panel, neither of which is the reference."
    ),
}


def reference_statement(volume: Volume) -> str:
    """One sentence for every page: which rater set the published rates come from."""
    scoring = volume.scoring_or_default()
    adj = volume.jury.adjudication
    seat = None if adj is None else f"{adj.rater.label}, adjudicating {', '.join(adj.adjudicates)}"
    words = REFERENCE_WORDS[scoring.reference].format(seat=seat)
    return f"Reference rater set: {words}. Tier 0 draws are decided by their mechanical check."


def leniency_note(volume: Volume) -> str:
    """What leniency means beside the reference (empty for the grader reference)."""
    return LENIENCY_WORDS[volume.scoring_or_default().reference]


def reference_is_human(volume: Volume) -> bool:
    """Whether only humans decide the judged draws the published rates count: a human
    grader (``grader``), a panel of humans only (``panel-majority``) or a human adjudication
    seat (``adjudication``). No model judge's calibration then stands behind a rate."""
    reference = volume.scoring_or_default().reference
    jury = volume.jury
    if reference == "adjudication":
        return jury.adjudication is not None and isinstance(jury.adjudication.rater, HumanRater)
    if reference == "panel-majority":
        return all(isinstance(r, HumanRater) for r in jury.panel)
    return isinstance(jury.grader, HumanRater)
