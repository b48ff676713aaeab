"""The reference-answer test and the negative controls.

A scorer that cannot pass its own benchmark should not benchmark anything else: every
Tier 0 check must pass its item's declared reference answer, a pseudo-candidate answering
every item with its reference answer must score the perfect value on every rate, and every
declared known-wrong answer must fail with the rule its declaration names.
"""

from __future__ import annotations

import numpy as np

from generator.audit.base import AuditContext, Case, Section, cases_or_skip
from generator.figures.builder import rate_display
from generator.models.bank import BankItem
from generator.stats.intervals import rate
from generator.tier0 import evaluate
from generator.words import counted

NAME = "reference"
CONTROLS = "controls"


def _reference_case(ctx: AuditContext, item: BankItem, answer: str) -> Case:
    name = f"{item.id}/reference"
    if item.check is None:
        # A Tier 1 item's reference is judged by the grader (a reference bundle), not here.
        return Case(name, "pass", "Tier 1: declared for the grader", ctx.where(item.id))
    outcome = evaluate(item.check, answer)
    if outcome.passed:
        return Case(name, "pass", "the Tier 0 check passes the reference answer")
    detail = "" if ctx.heldout(item.id) else f": {outcome.detail}"
    return Case(
        name,
        "fail",
        f"the Tier 0 check fails {item.id}'s reference answer with rule {outcome.rule}{detail} "
        "(a stale reference answer, or a check that rejects a right answer); fix the "
        "reference or the check",
        ctx.where(item.id),
        "stale-reference",
    )


def _pseudo_candidate(ctx: AuditContext, answers: dict[str, str]) -> Case:
    """Every rate of a candidate giving the reference answer to every draw: it must be 0."""
    per_item = ctx.data.volume.draws_per_item()
    failed = []
    for meta in ctx.items:
        item = ctx.full(meta)
        check = item.check if item is not None else None
        wrong = check is not None and not evaluate(check, answers[meta.id]).passed
        failed.append(per_item if wrong else 0)
    k = np.array(failed, np.int64)
    n = np.full(len(failed), per_item, np.int64)
    masks = {
        "full-bank rate": np.array([m.status == "validated" for m in ctx.items]),
        "core rate": np.array([m.core and m.status == "validated" for m in ctx.items]),
    }
    bad = [
        f"{label} {rate_display(rate(k[mask], n[mask]))}"
        for label, mask in masks.items()
        if mask.any() and rate(k[mask], n[mask]) != 0.0
    ]
    if bad:
        return Case(
            "pseudo-candidate",
            "fail",
            f"a candidate giving every reference answer scores {', '.join(bad)}, not the perfect 0",
            ctx.data.layout.rel(ctx.data.layout.volume_file(ctx.data.volume.id)),
            "reference-not-perfect",
        )
    return Case("pseudo-candidate", "pass", "every rate of the reference pseudo-candidate is 0")


def reference(ctx: AuditContext) -> Section:
    """Every item's reference answer passes its check; the pseudo-candidate scores 0."""
    cases: list[Case] = []
    answers: dict[str, str] = {}
    missing: list[str] = []
    unread = 0
    for meta in ctx.items:
        item = ctx.full(meta)
        if item is None:
            unread += 1
            continue
        answer = item.reference.answer if item.reference is not None else None
        if answer is None:
            missing.append(item.id)
            continue
        answers[item.id] = answer
        cases.append(_reference_case(ctx, item, answer))
    if missing:
        cases.append(_untested(f"{len(missing)} of {len(ctx.items)} items", missing, "answer"))
    if unread:
        cases.append(_unread(unread))
    if not missing and not unread and ctx.items:
        cases.append(_pseudo_candidate(ctx, answers))
    else:
        cases.append(
            Case(
                "pseudo-candidate",
                "skip",
                "the reference pseudo-candidate needs a reference answer for every item",
                rule="untested",
            )
        )
    return Section(NAME, "Reference answers", tuple(cases))


def _untested(count: str, ids: list[str], what: str) -> Case:
    shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
    noun, field = (
        ("reference answer", "answer")
        if what == "answer"
        else ("known-wrong answers", "known_wrong")
    )
    return Case(
        f"missing-{what}",
        "skip",
        f"could not test {count}: they declare no {noun} ({shown}); declare "
        f"reference.{field} on the bank item",
        rule="untested",
    )


def _unread(count: int) -> Case:
    return Case(
        "held-out",
        "skip",
        f"could not test {counted(count, 'held-out item')}: the private store was not read "
        "(pass --private DIR or set PROBEPRESS_PRIVATE)",
        rule="untested",
    )


def controls(ctx: AuditContext) -> Section:
    """Every known-wrong answer fails, with the rule its declaration expects."""
    cases: list[Case] = []
    missing: list[str] = []
    tier0 = [m for m in ctx.items if m.tier == 0]
    unread = 0
    for meta in tier0:
        item = ctx.full(meta)
        if item is None or item.check is None:
            unread += item is None
            continue
        wrongs = item.reference.known_wrong if item.reference is not None else []
        if not wrongs:
            missing.append(item.id)
        for n, wrong in enumerate(wrongs):
            outcome = evaluate(item.check, wrong.answer)
            name = f"{item.id}/known-wrong-{n + 1}"
            if not outcome.passed and outcome.rule == wrong.rule:
                cases.append(Case(name, "pass", f"fails with {wrong.rule}"))
                continue
            got = "passes" if outcome.passed else f"fails with {outcome.rule}"
            cases.append(
                Case(
                    name,
                    "fail",
                    f"known-wrong answer {n + 1} of {item.id} "
                    f"{ctx.shown(item.id, wrong.answer)} {got}, expected to fail with "
                    f"{wrong.rule}",
                    ctx.where(item.id),
                    "negative-control",
                )
            )
    if missing:
        cases.append(_untested(f"{len(missing)} of {len(tier0)} Tier 0 items", missing, "wrong"))
    if unread:
        cases.append(_unread(unread))
    return Section(
        CONTROLS, "Negative controls", cases_or_skip(cases, "controls", "no Tier 0 item")
    )
