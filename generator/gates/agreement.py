"""agreement: the panel re-graded what the seed says it must, and agreed enough.

For each bundle the panel sample is reproduced from the recorded seed with the same
function that drew it (``generator.sampling.panel_sample``): every stratum (category)
contributes at least the pre-registered fraction of its judged draws, every borderline
draw and every draw the grader refused is included, and nothing else is; every sampled
draw has one vote from each independent panel seat, and at most one from the
adjudication seat when the volume declares one. Across the volume, Gwet's AC1 among the
independent seats only (``generator.stats.gwet_ac1``) must reach the pre-registered floor;
below it the grading is not reliable enough to publish. An adjudicated label is derived
from the seats it adjudicates, so counting it as a rater would inflate agreement. When the
reference rater set is not the grader, it rated every judged draw
(``generator.gates.labels``). A declared calibration set must meet its pre-registered rule
against the humans (``generator.calibration``); without one the gate passes and says every
judged number is judge-unvalidated.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from functools import partial

from generator.calibration import report
from generator.calibration.check import calibrate
from generator.gates import labels
from generator.gates.base import Findings, GateContext, GateResult
from generator.panel import categories, rated_draws, reproduce_sample
from generator.sampling import PanelSample
from generator.stats.agreement import gwet_ac1
from generator.stats.errors import StatsError
from generator.store.rowtypes import BundleData
from generator.words import agrees, counted

NAME = "agreement"
LISTED = 5


def _label(key: tuple[str, str, int]) -> str:
    return f"{key[0]} {key[1]}{key[2]}"


CATEGORIES = ("pass", "fail")


def _known_items(category: dict[str, str], bundle: BundleData) -> BundleData:
    """``bundle`` without verdicts and votes on items the bank does not have.

    Such records are preflight's findings (``unknown-item``); here they belong to no
    stratum and have no category, so they are left out rather than guessed at.
    """
    known = category.__contains__
    if all(known(v.key.item) for v in bundle.verdicts) and all(
        known(p.key.item) for p in bundle.panel
    ):
        return bundle
    return replace(
        bundle,
        verdicts=[v for v in bundle.verdicts if known(v.key.item)],
        panel=[p for p in bundle.panel if known(p.key.item)],
    )


_Key = tuple[str, str, int]


@dataclass(frozen=True)
class _Votes:
    """One bundle's panel votes by draw: first reason and line, vote count, judges."""

    recorded: dict[_Key, str]
    lines: dict[_Key, int]
    counts: Counter[_Key]
    by_judge: dict[_Key, set[str]]
    adjudicated: Counter[_Key]
    """Votes by the adjudication seat, by draw (counted in ``counts`` too)."""


def _tally(bundle: BundleData) -> _Votes:
    """The bundle's panel votes grouped by draw, in file order."""
    votes = _Votes({}, {}, Counter(), defaultdict(set), Counter())
    adjudication = bundle.manifest.jury.adjudication
    adjudicator = adjudication.rater.key if adjudication is not None else None
    for vote in bundle.panel:
        key = (vote.key.item, vote.key.half, vote.key.draw)
        votes.recorded.setdefault(key, vote.why)
        votes.lines.setdefault(key, vote.line)
        votes.counts[key] += 1
        votes.by_judge[key].add(vote.judge)
        if vote.judge == adjudicator:
            votes.adjudicated[key] += 1
    return votes


def _missing_draws(out: Findings, path: str, sample: PanelSample, votes: _Votes) -> None:
    """Every draw the sample requires was re-graded, by reason of its selection."""
    for why in ("borderline", "grader_refused", "stratified"):
        missing = sorted(k for k, w in sample.why.items() if w == why and k not in votes.recorded)
        if missing:
            shown = ", ".join(_label(k) for k in missing[:LISTED])
            more = f" and {len(missing) - LISTED} more" if len(missing) > LISTED else ""
            out.add(
                f"missing-{why.replace('_', '-')}",
                path,
                None,
                f"{counted(len(missing), why.replace('_', ' ') + ' draw')} the sample requires "
                f"{agrees(len(missing), 'was', 'were')} "
                f"not re-graded: {shown}{more}",
                "the panel re-grades every draw the seeded sample selects",
            )


def _outside_sample(out: Findings, path: str, sample: PanelSample, votes: _Votes) -> None:
    """Every re-graded draw is in the sample, recorded for the reason the sample gives."""
    extra = sorted(k for k in votes.recorded if k not in sample.why)
    if extra:
        out.add(
            "not-reproducible",
            path,
            votes.lines[extra[0]],
            f"{counted(len(extra), 're-graded draw')} {agrees(len(extra), 'is', 'are')} not in "
            "the sample the seed reproduces "
            f"(first: {_label(extra[0])})",
            "draw the panel sample with generator.sampling.panel_sample and the recorded seed",
        )
    for key, why in sorted(votes.recorded.items()):
        expected = sample.why.get(key)
        if expected is not None and expected != why:
            out.add(
                "sample-reason",
                path,
                votes.lines[key],
                f"{_label(key)} is recorded as {why!r} but the sample says {expected!r}",
            )


def _votes_per_draw(out: Findings, path: str, bundle: BundleData, votes: _Votes) -> None:
    """Every re-graded draw has exactly one vote from each independent seat, and at most
    one from the adjudicator."""
    seats = {j.key for j in bundle.manifest.jury.panel}
    adjudication = bundle.manifest.jury.adjudication
    adjudicator = adjudication.rater.key if adjudication is not None else None
    for key, n in sorted(votes.counts.items()):
        judges = votes.by_judge[key] - {adjudicator}
        extra = votes.adjudicated[key]
        if n - extra != len(seats) or judges != seats:
            out.add(
                "votes-per-draw",
                path,
                votes.lines[key],
                f"{_label(key)} has {counted(n - extra, 'vote')} from "
                f"{counted(len(judges), 'independent seat')}; every seated judge votes once",
            )
        if extra > 1:
            out.add(
                "votes-per-draw",
                path,
                votes.lines[key],
                f"{_label(key)} has {extra} votes from the adjudicator {adjudicator}; it "
                "adjudicates a draw once",
            )


def _stratum_coverage(
    out: Findings, path: str, sample: PanelSample, votes: _Votes, category: dict[str, str]
) -> None:
    """Every stratum has at least its pre-registered quota of sampled draws re-graded."""
    # A vote on an unknown item is preflight's finding; it is in no stratum here.
    covered_by: Counter[str] = Counter(
        category[k[0]] for k in votes.recorded if k in sample.why and k[0] in category
    )
    for stratum, (size, quota) in sorted(sample.strata.items()):
        covered = covered_by[stratum]
        if covered < quota:
            out.add(
                "stratum-coverage",
                path,
                None,
                f"stratum {stratum}: {covered} of {size} judged draws re-graded, fewer than "
                f"the pre-registered {quota}",
            )


def _ac1_floor(ctx: GateContext, out: Findings, ratings: list[tuple[str | None, ...]]) -> list[str]:
    """AC1 across the volume reaches the pre-registered floor; returns the gate's notes."""
    floor = ctx.data.volume.thresholds.ac1_floor
    notes: list[str] = []
    try:
        result = gwet_ac1(
            ratings, CATEGORIES, confidence=float(ctx.data.volume.thresholds.confidence)
        )
    except StatsError as exc:
        out.add(
            "ac1",
            ctx.volume_file,
            None,
            f"panel agreement cannot be computed: {exc}",
            "the panel must re-grade at least two draws with two or more votes each",
        )
        return notes
    level = f"{float(result.confidence):.0%}"
    notes.append(
        f"AC1 = {result.value:.3f} ({level} CI {result.ci_lo:.3f}..{result.ci_hi:.3f}) over "
        f"{result.n_subjects} draws, independent seats only; floor {floor}"
    )
    if result.value < float(floor):
        out.add(
            "ac1-floor",
            ctx.volume_file,
            None,
            f"panel agreement AC1 = {result.value:.3f} is below the pre-registered floor "
            f"{floor} ({result.n_subjects} draws)",
            "the grading is not reliable enough to publish; review the rubric and re-grade "
            "under a new volume",
        )
    return notes


def check(ctx: GateContext) -> GateResult:
    """Run the agreement gate."""
    out = Findings(NAME)
    ratings: list[tuple[str | None, ...]] = []
    category = categories(ctx.data)
    labels.check_reference_fraction(ctx, out)
    for bundle in map(partial(_known_items, category), ctx.bundles()):
        labels.check_reference(ctx, bundle, out)
        path = ctx.shown(bundle, "panel.jsonl")
        sample = reproduce_sample(ctx.data, bundle)
        votes = _tally(bundle)  # the adjudication seat's votes too: it votes on the sample
        _missing_draws(out, path, sample, votes)
        _outside_sample(out, path, sample, votes)
        _votes_per_draw(out, path, bundle, votes)
        _stratum_coverage(out, path, sample, votes, category)
        independent = labels.independent_only(ctx, bundle)
        ratings.extend(r.votes for r in rated_draws(ctx.data, independent))
    notes = _ac1_floor(ctx, out, ratings)
    calibration = calibrate(ctx.data)
    out.extend(report.findings(calibration, ctx.volume_file))
    return out.result(notes=[*notes, *report.notes(calibration)])
