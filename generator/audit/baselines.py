"""Weak baselines: each scores as it declares, none sits among the ranked models, and the
reference bundle passes its pre-registered share.

A benchmark a shortcut can pass measures the shortcut. Every ``baseline`` of the volume
(always refuse, the format with no content, a random pick …) declares what it should
score: failing every item whose criterion requires an answer, a core rate (e.g. chance)
within a tolerance, or both; the audit recomputes its counts from its verdicts as the
figures do. A baseline listed as a candidate or anchor, or a baseline with a rank in the
figures registry, fails: a baseline is never ranked. A ``reference`` bundle (the grader
run on the reference answers) must pass ``thresholds.reference_pass_share`` of its items.
"""

from __future__ import annotations

import re

import numpy as np

from generator.audit.base import AuditContext, Case, Section, cases_or_skip
from generator.errors import InputError
from generator.figures import load_registry
from generator.figures.builder import rate_display
from generator.figures.tally import Tally, tally_bundle
from generator.models.bank import PatternCheck
from generator.models.base import slugify
from generator.models.volume import BASELINE_KINDS, Baseline, CandidateRef
from generator.rubric import rubric_items
from generator.stats.intervals import rate
from generator.words import agrees, counted

NAME = "baselines"
_NAMES = tuple(
    re.compile(rf"(?:^|-)({word})(?:-|$)")
    for word in (*(k for k in BASELINE_KINDS if k != "reference"), "baseline")
)
"""A baseline's kind (or the word) inside a slug: how a baseline listed as a candidate
looks; a kind is named before the word."""
_RANKED_FIGURES = ("rank_best", "rank_worst", "tie_group")


def _shown(ids: list[str]) -> str:
    return ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")


def _volume_file(ctx: AuditContext) -> str:
    return ctx.data.layout.rel(ctx.data.layout.volume_file(ctx.data.volume.id))


def _placed(ctx: AuditContext, ref: CandidateRef) -> Case | None:
    """Why ranked ``ref`` looks like a baseline (a declaration, its name), or None."""
    name = f"{ref.slug}/placement"
    if ref.baseline is not None:
        why = f"declares baseline kind {ref.baseline.kind}"
    else:
        slug = slugify(f"{ref.api} {ref.display_name}")
        found = next((m.group(1) for p in _NAMES if (m := p.search(slug))), None)
        if found is None:
            return None
        why = f"is named like a baseline ({found})"
    return Case(
        name,
        "fail",
        f"{ref.display_name} ({ref.api}) {why} but has role {ref.role}: a baseline placed "
        "among the ranked models; give it role: baseline and its declaration",
        _volume_file(ctx),
        "baseline-ranked",
    )


def _registry_cases(ctx: AuditContext) -> list[Case]:
    """A baseline with a rank, or a rank counted over more models than are ranked."""
    vid = ctx.data.volume.id
    try:
        registry = load_registry(ctx.data.layout)
    except InputError:
        return [Case("ranking", "skip", "could not read the figures registry", rule="untested")]
    where = ctx.data.layout.rel(ctx.data.layout.figures_registry)
    ranked = len(ctx.data.volume.ranked())
    out = []
    for ref in ctx.data.volume.baselines():
        ranks = [f for f in _RANKED_FIGURES if f"{vid}/{ref.slug}/{f}" in registry.figures]
        moved = f"{vid}/movement/{ref.slug}/core" in registry.figures
        if ranks or moved:
            what = ", ".join([*ranks, *(["movement"] if moved else [])])
            out.append(
                Case(
                    f"{ref.slug}/ranking",
                    "fail",
                    f"baseline {ref.display_name} is in the ranking ({what} registered): a "
                    "baseline is never ranked or compared; recompute with `probepress figures`",
                    where,
                    "baseline-ranked",
                )
            )
    for fid, fig in registry.figures.items():
        of = fig.detail.get("of") if fid.startswith(f"{vid}/") else None
        if fid.endswith("/rank_best") and isinstance(of, int) and of > ranked:
            out.append(
                Case(
                    "ranking",
                    "fail",
                    f"{fid} ranks among {of} models but {vid} ranks {ranked}: baselines were "
                    "counted in the ranking; recompute with `probepress figures`",
                    where,
                    "baseline-ranked",
                )
            )
            break
    return out


def _answer_required(ctx: AuditContext, tally: Tally, decl: Baseline) -> tuple[list[int], int]:
    """Positions of the items whose criterion requires an answer, and how many Tier 0
    items could not be told (held-out text not read)."""
    keep, unread = [], 0
    for pos, meta in enumerate(ctx.items):
        if tally.n[pos] == 0:
            continue
        if meta.tier == 1:
            if meta.category not in decl.passes_categories:
                keep.append(pos)
            continue
        item = ctx.full(meta)
        if item is None:
            unread += 1
        elif not isinstance(item.check, PatternCheck) or item.check.required:
            keep.append(pos)
    return keep, unread


def _fails_answer_items(ctx: AuditContext, ref: CandidateRef, tally: Tally) -> list[Case]:
    assert ref.baseline is not None
    keep, unread = _answer_required(ctx, tally, ref.baseline)
    name = f"{ref.slug}/fails-answer-items"
    passed = [ctx.items[p].id for p in keep if tally.k[p] < tally.n[p]]
    out = []
    if passed:
        draws = int(sum(tally.n[p] - tally.k[p] for p in keep))
        out.append(
            Case(
                name,
                "fail",
                f"baseline {ref.display_name} ({ref.baseline.kind}) passes "
                f"{counted(draws, 'draw')} of "
                f"{counted(len(passed), 'item')} whose criterion requires an answer "
                f"({_shown(passed)}): "
                "the check or the grader accepts a non-answer; fix it, or the declaration",
                ctx.data.layout.rel(ctx.data.bundles[ref.slug].directory / "verdicts.jsonl"),
                "baseline-passes",
            )
        )
    else:
        items = counted(len(keep), "item")
        what = f"every decided draw of the {items} whose criterion requires an answer"
        out.append(Case(name, "pass", f"fails {what}"))
    if unread:
        out.append(
            Case(
                f"{ref.slug}/held-out",
                "skip",
                f"could not tell whether {counted(unread, 'held-out Tier 0 item')} "
                f"{agrees(unread, 'requires', 'require')} an answer: "
                "the private store was not read (pass --private DIR or set PROBEPRESS_PRIVATE)",
                rule="untested",
            )
        )
    return out


def _core_rate(ctx: AuditContext, ref: CandidateRef, tally: Tally) -> Case:
    decl = ref.baseline
    assert decl is not None and decl.core_rate is not None and decl.tolerance is not None
    name = f"{ref.slug}/core-rate"
    core = np.array([m.core and m.status == "validated" for m in ctx.items]) & (tally.n > 0)
    if not core.any():
        return Case(name, "skip", "no decided draw of a core item", rule="untested")
    got = rate(tally.k[core], tally.n[core])
    want = float(decl.core_rate)
    said = f"core rate {rate_display(got)}, declared {rate_display(want)}"
    if abs(got - want) <= float(decl.tolerance):
        return Case(name, "pass", f"scores {said} ± {rate_display(float(decl.tolerance))}")
    return Case(
        name,
        "fail",
        f"baseline {ref.display_name} ({decl.kind}) scores {said} ± "
        f"{rate_display(float(decl.tolerance))}: it does not score as declared (a bank a "
        "shortcut beats, or a wrong declaration)",
        _volume_file(ctx),
        "baseline-rate",
    )


def _reference_share(ctx: AuditContext, ref: CandidateRef, tally: Tally) -> Case:
    """The reference bundle passes at least the pre-registered share of its items."""
    name = f"{ref.slug}/reference-share"
    share = ctx.data.volume.thresholds.reference_pass_share
    if share is None:
        return Case(
            name,
            "skip",
            "could not test the reference bundle: the volume declares no "
            "thresholds.reference_pass_share",
            _volume_file(ctx),
            "untested",
        )
    decided = [p for p in range(len(ctx.items)) if tally.n[p] > 0]
    failed = [ctx.items[p].id for p in decided if tally.k[p] > 0]
    got = (len(decided) - len(failed)) / len(decided) if decided else 0.0
    said = (
        f"reference bundle {ref.display_name} passes {len(decided) - len(failed)} of "
        f"{len(decided)} items in every draw ({rate_display(got)}; pre-registered share "
        f"{rate_display(float(share))})"
    )
    named = f"; failed: {_shown(failed)}" if failed else ""
    if decided and got >= float(share):
        return Case(name, "pass", said + named)
    return Case(
        name,
        "fail",
        f"{said}, below the share{named}: the grader rejects right answers, or the "
        "reference answers are stale",
        ctx.data.layout.rel(ctx.data.bundles[ref.slug].directory / "verdicts.jsonl"),
        "reference-share",
    )


def _declared(ctx: AuditContext, ref: CandidateRef) -> list[Case]:
    """Whether one baseline scores as its declaration says."""
    decl, bundle = ref.baseline, ctx.data.bundles.get(ref.slug)
    if decl is None or bundle is None:
        return []
    volume = ctx.data.volume
    index = {m.id: n for n, m in enumerate(ctx.items)}
    skip = rubric_items(volume, ctx.items)
    tally = tally_bundle(bundle, index, list(volume.protocol.halves), volume, skip)
    if decl.kind == "reference":
        return [_reference_share(ctx, ref, tally)]
    out = _fails_answer_items(ctx, ref, tally) if decl.fails_answer_items else []
    return out + ([_core_rate(ctx, ref, tally)] if decl.core_rate is not None else [])


def baselines(ctx: AuditContext) -> Section:
    """Every baseline scores as declared; none is ranked; the reference share holds."""
    volume = ctx.data.volume
    cases = [c for ref in volume.ranked() if (c := _placed(ctx, ref)) is not None]
    cases += _registry_cases(ctx)
    if volume.baselines() and not cases:
        cases.append(Case("placement", "pass", "no baseline is ranked or listed as a model"))
    for ref in volume.baselines():
        cases += _declared(ctx, ref)
    kinds = {ref.baseline.kind for ref in volume.baselines() if ref.baseline is not None}
    if volume.thresholds.reference_pass_share is not None and "reference" not in kinds:
        cases.append(
            Case(
                "reference-share",
                "skip",
                "thresholds.reference_pass_share is declared but no baseline of kind "
                "reference (the grader run on the reference answers) is listed",
                _volume_file(ctx),
                "untested",
            )
        )
    return Section(
        NAME,
        "Weak baselines",
        cases_or_skip(
            cases,
            "baselines",
            "no baseline is listed: list weak baselines (role: baseline, e.g. always-refuse, "
            "random-choice) in volume.yaml to show what a shortcut scores",
        ),
    )
