"""The rubric scoring profile as the preflight gate checks it (not a gate of its own).

Volume: every rubric group names real categories and items; an item is in at most one
rubric group and never also in a label group; the items that carry a rubric are exactly
the items of the rubric groups, all Tier 1. Verdicts: every graded draw of a rubric item
carries rubric grades and no other draw does; every line of the item's rubric is graded
exactly once with its own kind and nothing else is graded; a public item's grades each
quote their evidence and a held-out item's quote none (its answers are never published;
the reader already bounds a quote's length and refuses a line graded twice and a
pass/fail that is not the grades' safety outcome). Why: a score is only reproducible
from grades that cover the pre-registered rubric, line by line.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext
from generator.gates.locate import line_of
from generator.models.bank import BankItem
from generator.rubric import Marks, rubric_members
from generator.scoring import group_members
from generator.store.rowtypes import BundleData
from generator.words import agrees, counted, noun

LISTED = 5


def _listed(keys: list[str]) -> str:
    more = f" and {len(keys) - LISTED} more" if len(keys) > LISTED else ""
    return ", ".join(keys[:LISTED]) + more


def scored_items(ctx: GateContext) -> frozenset[str]:
    """Ids of the volume's items that are in a rubric group."""
    scoring = ctx.data.volume.scoring_or_default()
    return frozenset(rubric_members(scoring, ctx.items.values()))


def check_groups(ctx: GateContext, out: Findings) -> None:
    """Rubric groups name real categories and items; membership is unambiguous and
    matches the items that carry rubrics."""
    scoring = ctx.data.volume.scoring_or_default()
    if not scoring.rubric_groups:
        _stray_rubrics(ctx, out, frozenset())
        return
    vfile = ctx.layout.volume_file(ctx.data.volume.id)
    known = {c.id for c in ctx.data.bank.manifest.categories}
    for n, group in enumerate(scoring.rubric_groups):
        where = f"scoring.rubric_groups[{n}] ({group.id})"
        for cat in group.categories:
            if cat not in known:
                out.add(
                    "rubric-category",
                    ctx.volume_file,
                    line_of(vfile, ["scoring", "rubric_groups", n, "categories"]),
                    f"{where}: {cat!r} is not a category of the bank",
                    "list category ids of bank/bank.yaml",
                )
        unknown = [i for i in group.items if i not in ctx.items]
        if unknown:
            out.add(
                "rubric-item",
                ctx.volume_file,
                line_of(vfile, ["scoring", "rubric_groups", n, "items"]),
                f"{where}: {counted(len(unknown), 'item')} not in bank "
                f"{ctx.data.volume.bank_version}: {_listed(unknown)}",
            )
    line = line_of(vfile, ["scoring", "rubric_groups"])
    members = rubric_members(scoring, ctx.items.values())
    twice = [f"{i} ({', '.join(g)})" for i, g in sorted(members.items()) if len(g) > 1]
    if twice:
        out.add(
            "rubric-overlap",
            ctx.volume_file,
            line,
            f"{counted(len(twice), 'item')} {agrees(len(twice), 'is', 'are')} in more than one "
            f"rubric group: {_listed(twice)}",
            "each rubric item is scored by exactly one pre-registered profile",
        )
    labelled = group_members(scoring, ctx.items.values())
    both = sorted(set(members) & set(labelled))
    if both:
        out.add(
            "rubric-and-label",
            ctx.volume_file,
            line,
            f"{counted(len(both), 'item')} {agrees(len(both), 'is', 'are')} in a rubric group "
            f"and a label group: {_listed(both)}",
            "a rubric item is scored by its rubric, not by a label rule",
        )
    _stray_rubrics(ctx, out, frozenset(members))


def _stray_rubrics(ctx: GateContext, out: Findings, scored: frozenset[str]) -> None:
    """Items whose rubric the volume ignores, or that it scores by a rubric they lack
    (checked where the item's text is readable: public, or held out with the store)."""
    bank = ctx.data.bank
    for item_id in sorted(ctx.items):
        full = bank.full_item(item_id)
        if full is None:
            continue
        where = ctx.layout.rel(
            ctx.layout.public_items if item_id in bank.public else ctx.layout.private_items
        )
        if full.rubric is not None and item_id not in scored:
            out.add(
                "rubric-ungrouped",
                where,
                None,
                f"item {item_id} carries a rubric but is in no scoring.rubric_groups of "
                f"{ctx.volume_file}",
                "add it to a rubric group (its profile is pre-registered), or drop its rubric",
            )
        elif full.rubric is None and item_id in scored:
            out.add(
                "rubric-absent",
                where,
                None,
                f"item {item_id} is in a rubric group but carries no rubric",
                "give the item its rubric lines, or take it out of scoring.rubric_groups",
            )
        elif full.rubric is not None and full.tier != 1:  # the bank model refuses it too
            out.add("rubric-tier", where, None, f"item {item_id} is Tier 0 but has a rubric")


def check_verdicts(
    ctx: GateContext, bundle: BundleData, scored: frozenset[str], out: Findings
) -> None:
    """Every graded verdict of a rubric item carries complete, well-quoted grades."""
    path = ctx.shown(bundle, "verdicts.jsonl")
    bank = ctx.data.bank
    for v in bundle.verdicts:
        item = v.key.item
        if item not in ctx.items:
            continue
        label = f"{item} {v.key.half}{v.key.draw}"
        graded = v.tier == 1 and v.verdict in ("pass", "fail")
        if item not in scored:
            if v.rubric is not None:
                out.add(
                    "rubric-unexpected",
                    path,
                    v.line,
                    f"{label} carries rubric grades but {item} is in no rubric group",
                    "grade it by its pass criterion, or pre-register a rubric group for it",
                )
            continue
        if v.rubric is None:
            if graded:
                out.add(
                    "rubric-missing",
                    path,
                    v.line,
                    f"{label} is a rubric item's graded draw without rubric grades",
                    "record every rubric line's yes/no and evidence, and the deflection flag",
                )
            continue
        full = bank.full_item(item)
        problem = _lines_problem(v.rubric, full)
        if problem is not None:
            out.add(problem[0], path, v.line, f"{label}: {problem[1]}", problem[2])
        problem = _evidence_problem(v.rubric, bank.is_heldout(item))
        if problem is not None:
            out.add(problem[0], path, v.line, f"{label}: {problem[1]}", problem[2])


def _lines_problem(marks: Marks, full: BankItem | None) -> tuple[str, str, str] | None:
    """(rule, message, fix) when the grades do not cover the item's rubric exactly."""
    graded = {m.line: m.kind for m in marks.lines}
    if full is None or full.rubric is None:  # held out without the private store
        if "must_include" not in graded.values():
            return (
                "rubric-no-core",
                "no must_include line is graded (core is undefined)",
                "grade every line of the item's rubric",
            )
        return None
    kinds = full.rubric.kinds()
    missing = [i for i in kinds if i not in graded]
    if missing:
        return (
            "rubric-line-missing",
            f"{counted(len(missing), 'rubric line')} not graded: {_listed(missing)}",
            "grade every line of the item's rubric exactly once",
        )
    unknown = [i for i in graded if i not in kinds]
    if unknown:
        return (
            "rubric-line-unknown",
            f"grades name {noun(len(unknown), 'a line', 'lines')} the item's rubric does not "
            f"have: {_listed(unknown)}",
            "grade only the lines of the item's rubric (ids as in the bank)",
        )
    wrong = [f"{i} ({graded[i]}, not {kinds[i]})" for i in kinds if graded[i] != kinds[i]]
    if wrong:
        return (
            "rubric-line-kind",
            f"line kind differs from the rubric: {_listed(wrong)}",
            "record each line's kind as the item's rubric gives it",
        )
    return None


def _evidence_problem(marks: Marks, heldout: bool) -> tuple[str, str, str] | None:
    """(rule, message, fix) when evidence quotes are missing (public) or present (held out)."""
    if heldout:
        quoted = [m.line for m in marks.lines if m.has_evidence]
        if quoted:
            return (
                "rubric-evidence-heldout",
                f"held-out item's grades quote the answer on {noun(len(quoted), 'line')} "
                f"{_listed(quoted)}",
                "held-out answers are never published: drop the evidence quotes",
            )
        return None
    bare = [m.line for m in marks.lines if not m.has_evidence]
    if bare:
        return (
            "rubric-evidence-missing",
            f"no evidence quote for {noun(len(bare), 'line')} {_listed(bare)}",
            "quote the words of the answer each grade rests on (a short quote)",
        )
    return None
