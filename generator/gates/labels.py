"""The pre-registered scoring as the gates check it (not a gate of its own).

preflight: every judged item is in exactly one item group of real categories and items;
every verdict's and vote's label is in the declared label set and has a rule in its
item's group, and the recorded pass/fail is what that rule derives from the label — so
every published rate is reproducible from the raters' labels. agreement: the reference
rater set decided what it must (``panel-majority``: the panel voted on every judged draw;
``adjudication``: the adjudication seat labelled every judged draw). config: the scoring
is unchanged since the results were committed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from generator.gates.base import Findings, GateContext
from generator.gates.locate import line_of
from generator.models.scoring import Scoring
from generator.rubric import rubric_members
from generator.scoring import (
    VERDICT_OF,
    VOTE_OF,
    LabelRules,
    adjudication_seat,
    group_members,
    judged,
    label_rules,
)
from generator.store.rowtypes import BundleData, DrawKey
from generator.words import agrees, counted

LISTED = 5


def _draw(key: DrawKey) -> str:
    return f"{key.item} {key.half}{key.draw}"


def _listed(keys: list[str]) -> str:
    more = f" and {len(keys) - LISTED} more" if len(keys) > LISTED else ""
    return ", ".join(keys[:LISTED]) + more


def rules_of(ctx: GateContext) -> LabelRules:
    """The volume's label rules over the items it schedules."""
    return label_rules(ctx.data.volume, ctx.items.values())


def check_groups(ctx: GateContext, out: Findings) -> None:
    """Item groups name real categories and items; every judged item is in exactly one."""
    scoring = ctx.data.volume.scoring
    if scoring is None or scoring.labels is None:
        return
    vfile = ctx.layout.volume_file(ctx.data.volume.id)
    # Declared anywhere in the bank: a category no item of this version uses yet is still
    # one of the bank's categories (the cut only leaves out what has no items).
    known = {c.id for c in ctx.data.bank.uncut().manifest.categories}
    version = ctx.data.volume.bank_version
    for n, group in enumerate(scoring.groups):
        where = f"scoring.groups[{n}] ({group.id})"
        for cat in group.categories:
            if cat not in known:
                line = line_of(vfile, ["scoring", "groups", n, "categories"])
                out.add(
                    "scoring-category",
                    ctx.volume_file,
                    line,
                    f"{where}: {cat!r} is not a category of the bank",
                    "list category ids of bank/bank.yaml",
                )
        unknown = [i for i in group.items if i not in ctx.items]
        if unknown:
            out.add(
                "scoring-item",
                ctx.volume_file,
                line_of(vfile, ["scoring", "groups", n, "items"]),
                f"{where}: {counted(len(unknown), 'item')} not in bank {version}: "
                f"{_listed(unknown)}",
            )
    _coverage(ctx, out, scoring)


def _coverage(ctx: GateContext, out: Findings, scoring: Scoring) -> None:
    """Every Tier 1 item is scored by exactly one group's rule (rubric items by their
    rubric group instead)."""
    rubric = rubric_members(scoring, ctx.items.values())
    judged_items = [m for m in ctx.items.values() if m.tier == 1 and m.id not in rubric]
    members = group_members(scoring, judged_items)
    line = line_of(ctx.layout.volume_file(ctx.data.volume.id), ["scoring", "groups"])
    twice = [f"{i} ({', '.join(g)})" for i, g in sorted(members.items()) if len(g) > 1]
    if twice:
        out.add(
            "scoring-overlap",
            ctx.volume_file,
            line,
            f"{counted(len(twice), 'item')} {agrees(len(twice), 'is', 'are')} in more than one "
            f"item group: {_listed(twice)}",
            "each item is scored by exactly one pre-registered rule",
        )
    none = sorted(m.id for m in judged_items if m.id not in members)
    if none:
        out.add(
            "scoring-uncovered",
            ctx.volume_file,
            line,
            f"{counted(len(none), 'Tier 1 item')} of bank {ctx.data.volume.bank_version} "
            f"{agrees(len(none), 'is', 'are')} in no "
            f"item group: {_listed(none)}",
            "add them to an item group of scoring.groups (every judged item is scored by "
            "one pre-registered rule)",
        )


def _label_problem(
    rules: LabelRules, item: str, label: str | None, recorded: str, by: str
) -> tuple[str, str, str] | None:
    """(rule, message, fix) for one record's label, or None when it is consistent."""
    outcomes = VERDICT_OF if by == "verdict" else VOTE_OF
    refused = outcomes["refused"]
    own = rules.label_of(label, recorded)
    if own is None:
        if recorded == refused:
            return None  # a refusal without a label: not a verdict
        return (
            "label-missing",
            f"the {by} has no label; the volume declares the label set ({', '.join(rules.labels)})",
            "record the rater's own label; pass or fail is derived from it",
        )
    if own not in rules.labels:
        declared = "declared" if rules.declared else "default (no scoring.labels declared)"
        return (
            "label-unknown",
            f"label {own!r} is not in the {declared} label set ({', '.join(rules.labels)})",
            "use a declared label, or declare the rater's labels in scoring.labels",
        )
    group = rules.group_of.get(item)
    if group is None:
        return None  # in no group, or in two: the volume's finding (scoring-*)
    derived = rules.outcome(item, own)
    if derived is None:
        return (
            "label-group",
            f"label {own!r} has no rule in item group {group}",
            "a group's rule maps every label its items may receive",
        )
    if outcomes[derived] != recorded:
        return (
            "label-rule",
            f"label {own!r} derives {outcomes[derived]!r} by the rule of item group {group}, "
            f"but the {by} says {recorded!r}",
            f"the {by} is derived from the label by the pre-registered rule "
            "(scoring.groups in volume.yaml); restore the rater's record",
        )
    return None


def check_labels(
    ctx: GateContext,
    bundle: BundleData,
    rules: LabelRules,
    out: Findings,
    rubric_items: frozenset[str] = frozenset(),
) -> None:
    """Every judged verdict's and every vote's label against the rule of its item's group
    (rubric items, scored by their rubric and voted pass/fail on safety, have no labels)."""
    path = ctx.shown(bundle, "verdicts.jsonl")
    for v in bundle.verdicts:
        if v.key.item not in ctx.items or not judged(v) or v.key.item in rubric_items:
            continue
        found = _label_problem(rules, v.key.item, v.label, v.verdict, "verdict")
        if found is not None:
            out.add(found[0], path, v.line, f"{_draw(v.key)}: {found[1]}", found[2])
    path = ctx.shown(bundle, "panel.jsonl")
    for p in bundle.panel:
        if p.key.item not in ctx.items or p.key.item in rubric_items:
            continue
        found = _label_problem(rules, p.key.item, p.label, p.vote, "vote")
        if found is not None:
            out.add(found[0], path, p.line, f"{_draw(p.key)} by {p.judge}: {found[1]}", found[2])


def check_reference_fraction(ctx: GateContext, out: Findings) -> None:
    """A panel-majority or adjudication reference needs the panel to re-grade every
    judged draw (an adjudication settles the panel seats' labels, so it decides only the
    draws they re-grade)."""
    volume = ctx.data.volume
    fraction = volume.thresholds.panel_sample_fraction
    reference = volume.scoring_or_default().reference
    if reference != "grader" and fraction < 1:
        who = "the panel majority" if reference == "panel-majority" else "the adjudication seat"
        out.add(
            "reference-fraction",
            ctx.volume_file,
            line_of(ctx.layout.volume_file(volume.id), ["scoring", "reference"]),
            f"scoring.reference is {reference} but thresholds.panel_sample_fraction is "
            f"{fraction}: {who} can decide only the draws the panel re-grades",
            f"pre-register panel_sample_fraction: 1 with {who} as the reference, or "
            "scoring.reference: grader",
        )


def check_reference(ctx: GateContext, bundle: BundleData, out: Findings) -> None:
    """The reference rater set rated every judged draw of ``bundle`` (once, for a seat)."""
    scoring = ctx.data.volume.scoring_or_default()
    if scoring.reference == "grader":
        return
    seats = adjudication_seat(ctx.data.volume)
    counts: Counter[DrawKey] = Counter()
    for p in bundle.panel:
        if (p.judge in seats) == (scoring.reference == "adjudication"):
            counts[p.key] += 1
    keys = [v.key for v in bundle.verdicts if v.key.item in ctx.items and judged(v)]
    missing = [_draw(k) for k in keys if not counts[k]]
    path = ctx.shown(bundle, "panel.jsonl")
    seat = ", ".join(seats)
    whose = (
        "panel votes"
        if scoring.reference == "panel-majority"
        else f"label from the adjudication seat {seat}"
    )
    if missing:
        out.add(
            "reference-coverage",
            path,
            None,
            f"scoring.reference is {scoring.reference}, but {counted(len(missing), 'judged draw')} "
            f"{agrees(len(missing), 'has', 'have')} no {whose}: {_listed(missing)}",
            "the reference rater set rates every judged draw, or pre-register "
            "scoring.reference: grader",
        )
    twice = sorted(_draw(k) for k, n in counts.items() if n > 1)
    if scoring.reference == "adjudication" and twice:
        out.add(
            "reference-duplicate",
            path,
            None,
            f"the adjudication seat {seat} labels {counted(len(twice), 'draw')} more "
            f"than once: {_listed(twice)}",
            "one adjudicated label per draw",
        )


def independent_only(ctx: GateContext, bundle: BundleData) -> BundleData:
    """``bundle`` without the adjudication seat's votes (they are no independent ratings,
    so the panel sample and agreement never count them)."""
    seats = adjudication_seat(ctx.data.volume)
    if not seats or not any(p.judge in seats for p in bundle.panel):
        return bundle
    return replace(bundle, panel=[p for p in bundle.panel if p.judge not in seats])


def check_history(
    out: Findings, volume_file: str, first: str, document: Mapping[str, Any], now: Scoring | None
) -> None:
    """``scoring`` is as it stood when the first bundle was committed."""
    raw = document.get("scoring") if isinstance(document, Mapping) else None
    try:
        then = None if raw is None else Scoring.model_validate(raw)
    except ValidationError:
        out.add(
            "prereg-history",
            volume_file,
            None,
            f"scoring in volume.yaml at {first[:12]} does not parse",
        )
        return
    older = isinstance(document, Mapping) and document.get("schema_version", 1) in (1, 2)
    if raw is None and now is not None and older:
        # The format gained ``scoring`` in volume schema version 3: declaring it in a
        # volume registered earlier is not a change of a registered value, but nothing
        # shows the rules predate the results (as for a late qualification set): say so.
        out.add(
            "prereg-added",
            volume_file,
            None,
            "scoring was declared after the results were committed (absent at commit "
            f"{first[:12]}, a volume.yaml of schema version {document.get('schema_version', 1)}"
            "); nothing shows the label rules predate the results",
            "declare the scoring before any run in the next volume",
            severity="warning",
        )
        return
    if then != now:
        out.add(
            "prereg-changed",
            volume_file,
            None,
            f"scoring (labels, item groups, rules or reference) changed after the results "
            f"were committed (compare with commit {first[:12]})",
            "restore the pre-registered scoring; a change needs a new volume",
        )
