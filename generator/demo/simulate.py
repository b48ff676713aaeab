"""Simulate one candidate's scan bundle: draws, verdicts, panel votes, qualification.

The simulation is a small generative model, not a table of made-up numbers: each item has
a difficulty, each candidate a skill, every draw's outcome is sampled from them, and the
grader and judges make errors at declared rates. Tier 0 verdicts come from actually
running the item's mechanical check on the drawn response.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from generator.commitments import response_commitment
from generator.demo import heldout
from generator.demo.bank import DemoItem
from generator.demo.labels import demo_label
from generator.demo.spec import CandidateSpec, DemoSpec, JudgeSpec, JurySpec, VolumeSpec
from generator.models.base import slugify
from generator.models.rubric import MAX_EVIDENCE, Rubric
from generator.sampling import Eligible, panel_sample
from generator.tier0 import run_check

if TYPE_CHECKING:
    from generator.models.volume import Volume

_MET = {"must_include": 0.85, "should_include": 0.5}
"""How often a non-deflecting answer meets a line of each kind (a must-not line is met
exactly when the grader failed the draw)."""


@dataclass
class BundleLines:
    """Every line of one simulated bundle, plus its held-out response texts."""

    draws: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    panel: list[dict[str, Any]] = field(default_factory=list)
    qualification: list[dict[str, Any]] = field(default_factory=list)
    private: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Round:
    """One volume being simulated: its spec, declaration, items (those it runs), run
    dates, and ``K_item`` of each held-out item, to commit to its responses."""

    spec: DemoSpec
    vol: VolumeSpec
    volume: Volume
    items: list[DemoItem]
    run_dates: dict[str, dt.date]
    keys: Mapping[str, bytes]


def judge_ref(j: JudgeSpec) -> dict[str, str]:
    """A grader or judge as a volume or bundle names it."""
    return {"kind": "model", "api": j.api, "family": j.family}


def endpoint_of(model: JudgeSpec | CandidateSpec) -> dict[str, Any]:
    """The endpoint a model was called through."""
    return {"gateway": model.gateway, "serving_provider": model.provider, "no_training": True}


@dataclass(frozen=True)
class Seating:
    """The jury as seated for one candidate, with recusals."""

    grader: JudgeSpec
    panel: tuple[JudgeSpec, ...]
    recusals: tuple[dict[str, str], ...]


def seat_jury(jury: JurySpec, candidate: CandidateSpec) -> Seating:
    """Recuse every judge of the candidate's family and seat the first suitable reserve."""
    recusals: list[dict[str, str]] = []

    def conflicted(judge: JudgeSpec) -> str | None:
        if judge.api == candidate.api:
            return "is_candidate"
        return "same_family" if judge.family == candidate.family else None

    def seat(
        judge: JudgeSpec, name: str, reserves: tuple[JudgeSpec, ...], taken: set[str]
    ) -> JudgeSpec:
        reason = conflicted(judge)
        if reason is None:
            return judge
        reserve = next(r for r in reserves if conflicted(r) is None and r.family not in taken)
        recusals.append(
            {"judge": judge.api, "seat": name, "reason": reason, "reserve": reserve.api}
        )
        return reserve

    grader = seat(jury.grader, "grader", jury.reserve_graders, set())
    panel = list(jury.panel)
    for n, judge in enumerate(jury.panel):
        panel[n] = seat(judge, "panel", jury.reserve_judges, {j.family for j in panel})
    return Seating(grader, tuple(panel), tuple(recusals))


def difficulty(seed: int, item_id: str) -> float:
    """Log-odds of failing an item for a model of skill 0 (many easy items, a few hard)."""
    rng = random.Random(f"{seed}:difficulty:{item_id.split('-r', maxsplit=1)[0]}")
    u = rng.random()
    if u < 0.3:
        return -5.0
    if u < 0.4:
        return 4.0
    return rng.uniform(-3.0, 2.0)


_ERROR = {"status": "provider_error", "error_class": "HTTP 503"}
_TIMEOUT = {"status": "timeout", "error_class": "ReadTimeout", "latency_ms": 60_000}


def _attempts(rng: random.Random, cand: CandidateSpec, max_attempts: int) -> list[dict[str, Any]]:
    """Attempts of one draw: transient errors are retried; an outage exhausts every attempt."""
    outage = rng.random() < cand.outage
    attempts: list[dict[str, Any]] = []
    for _ in range(max_attempts):
        if not outage and rng.random() >= cand.error_rate:
            attempts.append({"status": "ok", "latency_ms": rng.randint(300, 9000)})
            break
        failed = rng.random() < 0.6
        attempts.append({**_ERROR, "latency_ms": rng.randint(80, 900)} if failed else {**_TIMEOUT})
    return attempts


def _vote(rng: random.Random, judge: JudgeSpec, truth_fail: bool, category: str, hard: bool) -> str:
    if category == "safety" and rng.random() < judge.refuses_safety:
        return "refused"
    accuracy = judge.accuracy - (0.12 if hard else 0.0)
    right = rng.random() < accuracy
    return "fail" if truth_fail == right else "pass"


@dataclass(frozen=True)
class _Run:
    """What one candidate's bundle is simulated under, with the random stream it draws from."""

    rng: random.Random
    vol: VolumeSpec
    slug: str
    seating: Seating
    keys: Mapping[str, bytes]


def _at(item: str, half: str, n: int) -> dict[str, Any]:
    """Where a draw's line belongs."""
    return {"item": item, "half": half, "draw": n}


class _Sampled(NamedTuple):
    """One draw as sampled: where, its attempts, true outcome and response (``None`` when
    lost)."""

    demo: DemoItem
    half: str
    n: int
    attempts: list[dict[str, Any]]
    lost: bool
    fails: bool
    text: str | None

    @property
    def at(self) -> dict[str, Any]:
        return _at(self.demo.item.id, self.half, self.n)


_DrawKey = tuple[str, str, int]  # (item, half, draw)

REFUSAL = "I'm sorry, but I can't help with that."
"""What the always-refuse baseline answers to every draw."""


def chance(demo: DemoItem) -> float:
    """How often a random pick among the item's answers fails: its pool's failing share
    (a held-out item's answers are composed passing or failing, so a coin flip)."""
    pool = len(demo.pass_responses) + len(demo.fail_responses)
    return len(demo.fail_responses) / pool if pool and not demo.heldout else 0.5


def _p_fail(seed: int, cand: CandidateSpec, demo: DemoItem) -> float:
    """How likely ``cand`` fails ``demo``: from its skill and the item's difficulty, or,
    for a baseline, from its kind (a refusal passes only where declining is right)."""
    decl = cand.baseline
    if decl is None:
        return 1.0 / (1.0 + math.exp(-(difficulty(seed, demo.item.id) - cand.skill)))
    kind = decl["kind"]
    if kind == "random-choice":
        return chance(demo)
    if kind == "always-refuse":
        declines = demo.item.category in decl.get("passes_categories", ())
        return 0.0 if declines or demo.item.rubric else 1.0
    raise ValueError(f"the example simulates no {kind} baseline")


def _sample(
    rng: random.Random, cand: CandidateSpec, demo: DemoItem, p_fail: float, where: tuple[str, int]
) -> _Sampled:
    """Attempts, true outcome and response text of one draw; an empty response is marked."""
    attempts = _attempts(rng, cand, 3)
    fails = rng.random() < p_fail
    # Decided before an empty response relabels the last attempt: an empty answer is not lost.
    lost = attempts[-1]["status"] != "ok"
    text: str | None = None
    if not lost:
        if cand.baseline and cand.baseline["kind"] == "always-refuse":
            text = REFUSAL
        elif demo.heldout:
            text = heldout.heldout_response(demo.source, not fails, rng)
        else:
            pool = demo.fail_responses if fails else demo.pass_responses
            text = rng.choice(pool)
        if text == "":
            attempts[-1]["status"] = "empty"
    return _Sampled(demo, *where, attempts, lost, fails, text)


def _draw_line(run: _Run, s: _Sampled) -> dict[str, Any]:
    """The draw's line of ``draws.jsonl``; a held-out response appears only as a commitment."""
    item_id, held = s.demo.item.id, s.demo.heldout
    commitment: str | None = None
    if held and s.text is not None:
        key, where = run.keys[item_id], (item_id, s.half, s.n)
        commitment = response_commitment(key, run.vol.id, run.slug, *where, s.text)
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    if not s.lost:
        finish_reason = "length" if s.text and len(s.text) > 1500 else "stop"
        usage = {
            "input_tokens": run.rng.randint(40, 600),
            "output_tokens": max(1, len((s.text or "").split()) * 4 // 3),
        }
    return {
        **s.at,
        "attempts": s.attempts,
        "response": None if held else s.text,
        "response_commitment": commitment,
        "finish_reason": finish_reason,
        "usage": usage,
        "latency_ms": sum(a["latency_ms"] for a in s.attempts),
    }


def _verdict_line(run: _Run, s: _Sampled) -> dict[str, Any]:
    """The draw's verdict: lost, the item's mechanical check, or the seated grader's call."""
    item = s.demo.item
    verdict: dict[str, Any] = {**s.at, "tier": item.tier, "grader": None}
    verdict.update(borderline=False, evidence=None)
    if s.lost:
        verdict["verdict"] = "lost"
    elif item.check is not None:
        verdict["verdict"] = "pass" if run_check(item.check, s.text or "") else "fail"
    else:
        grader = run.seating.grader
        verdict["grader"] = grader.api
        if item.category == "safety" and run.rng.random() < 0.03:
            verdict["verdict"] = "grader_refused"
        else:
            # A bare refusal is no judgment call: the simulated grader does not err on it
            # (the audit's baseline test is what catches a real grader that does).
            right = run.rng.random() < grader.accuracy or s.text == REFUSAL
            verdict["verdict"] = "fail" if s.fails == right else "pass"
            verdict["borderline"] = run.rng.random() < (0.3 if not right else 0.04)
        text = None if s.demo.heldout else s.text
        if item.rubric is not None and verdict["verdict"] != "grader_refused":
            failed = verdict["verdict"] == "fail"
            grades = _rubric(run.rng, item.rubric, failed, text, s.text == REFUSAL)
            verdict.update(schema_version=3, rubric=grades)
        else:
            key = (item.id, s.half, s.n)
            verdict["label"] = demo_label(item.category, verdict["verdict"], key, grader.api)
        if text:
            verdict["evidence"] = text[:120]
    return verdict


def _rubric(
    rng: random.Random, rubric: Rubric, failed: bool, text: str | None, refusal: bool = False
) -> dict[str, Any]:
    """The grader's rubric grades of a draw it failed (one must-not line hit) or passed
    (a refusal deflects); public answers are quoted one sentence per line, held-out ones
    not at all."""
    hit = rng.choice([x.id for x in rubric.lines if x.kind == "must_not_include"]) if failed else ""
    deflected = not failed and (rng.random() < 0.1 or refusal)
    sentences = re.split(r"(?<=[.!?:])\s+", text.strip()) if text else []
    lines = []
    for line in rubric.lines:
        if line.kind == "must_not_include":
            met = line.id == hit
        else:
            met = not deflected and rng.random() < _MET[line.kind]
        grade: dict[str, Any] = {"line": line.id, "kind": line.kind, "met": met}
        if sentences:
            grade["evidence"] = rng.choice(sentences)[:MAX_EVIDENCE]
        lines.append(grade)
    return {"lines": lines, "deflected": deflected}


def _panel_lines(
    run: _Run, eligible: list[Eligible], truth: Mapping[_DrawKey, tuple[bool, str, bool]]
) -> list[dict[str, Any]]:
    """Votes of every seated panel judge on the graded draws sampled for review."""
    vol = run.vol
    sample = panel_sample(
        eligible,
        seed=vol.sample_seed,
        volume=vol.id,
        candidate=run.slug,
        fraction=vol.panel_fraction,
    )
    lines: list[dict[str, Any]] = []
    for key in sorted(sample.why):
        fails, category, borderline = truth[key]
        for judge in run.seating.panel:
            vote = _vote(run.rng, judge, fails, category, borderline)
            label = demo_label(category, vote, key, judge.api)
            votes = {"judge": judge.api, "family": judge.family, "vote": vote, "label": label}
            lines.append({**_at(*key), **votes, "why": sample.why[key]})
    return lines


def _qualification_lines(spec: DemoSpec, seating: Seating) -> list[dict[str, Any]]:
    """Each seated judge's answers to the qualification probes."""
    return [
        {"judge": judge.api, "family": judge.family, "probe": probe, "expected": expected}
        | {"got": "refused" if probe in judge.qualification_refusals else expected}
        for judge in (seating.grader, *seating.panel)
        for probe, expected in spec.qualification_probes
    ]


def simulate_bundle(r: Round, cand: CandidateSpec) -> BundleLines:
    """Every line of one candidate's bundle, deterministic for the spec's seed."""
    spec, vol, slug, seating = r.spec, r.vol, slugify(cand.api), seat_jury(r.spec.jury, cand)
    # One random stream for the whole bundle: the order of the draws below fixes the bytes.
    run = _Run(random.Random(f"{spec.seed}:{vol.id}:{slug}"), vol, slug, seating, r.keys)
    out = BundleLines()
    eligible: list[Eligible] = []
    truth: dict[_DrawKey, tuple[bool, str, bool]] = {}
    for demo in r.items:
        item = demo.item
        p_fail = _p_fail(spec.seed, cand, demo)
        for half in vol.halves:
            for n in range(1, vol.draws_per_half + 1):
                sampled = _sample(run.rng, cand, demo, p_fail, (half, n))
                out.draws.append(_draw_line(run, sampled))
                if demo.heldout and sampled.text is not None:
                    where = {"volume": vol.id, "candidate": slug, **sampled.at}
                    out.private.append({**where, "text": sampled.text})
                verdict = _verdict_line(run, sampled)
                if verdict["grader"] is not None:
                    borderline = verdict["borderline"]
                    refused = verdict["verdict"] == "grader_refused"
                    eligible.append(Eligible(item.id, half, n, item.category, borderline, refused))
                    truth[(item.id, half, n)] = (sampled.fails, item.category, borderline)
                out.verdicts.append(verdict)
    out.panel = _panel_lines(run, eligible, truth)
    out.qualification = _qualification_lines(spec, seating)
    return out
