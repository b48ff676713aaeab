"""Simulate a candidate's bundle from item difficulty, skill and ``data/simulation.yaml``."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from generator.commitments import response_commitment
from generator.demo import heldout, read_data
from generator.demo.bank import DemoItem
from generator.demo.spec import CandidateSpec, DemoSpec, JudgeSpec, JurySpec, VolumeSpec
from generator.jury import conflict
from generator.models.base import slugify
from generator.models.bundle import Candidate
from generator.models.raters import ModelRater
from generator.models.rubric import MAX_EVIDENCE, Rubric
from generator.models.volume import Volume
from generator.sampling import Eligible, panel_sample
from generator.tier0 import run_check

Line = dict[str, Any]
_SIM = read_data("simulation.yaml")
REFUSAL: str = _SIM["refusal"]
RUNNER: dict[str, str] = _SIM["runner"]


@dataclass(frozen=True)
class Round:
    """One volume being simulated, with ``K_item`` of each held-out item (``keys``)."""

    spec: DemoSpec
    vol: VolumeSpec
    volume: Volume
    items: list[DemoItem]
    run_dates: dict[str, dt.date]
    keys: Mapping[str, bytes]


def drawn(rng: random.Random, shape: Mapping[str, Any]) -> Line:
    """A record of ``data/simulation.yaml``, each ``[low, high]`` in it drawn, in order."""
    return {k: rng.randint(*v) if isinstance(v, list) else v for k, v in shape.items()}


@dataclass(frozen=True)
class Seating:
    """The jury as seated for one candidate, with recusals."""

    grader: JudgeSpec
    panel: tuple[JudgeSpec, ...]
    recusals: tuple[dict[str, str], ...]


def seat_jury(jury: JurySpec, candidate: Candidate) -> Seating:
    """Recuse every judge in conflict with the candidate and seat the first suitable reserve."""
    recusals: list[dict[str, str]] = []

    def conflicted(judge: JudgeSpec) -> str | None:
        return conflict(ModelRater(api=judge.api, family=judge.family), candidate)

    def seat(judge: JudgeSpec, name: str, reserves: tuple[JudgeSpec, ...]) -> JudgeSpec:
        reason = conflicted(judge)
        if reason is None:
            return judge
        taken = {j.family for j in panel} if name == "panel" else set()
        reserve = next(r for r in reserves if conflicted(r) is None and r.family not in taken)
        recusals.append(
            {"judge": judge.api, "seat": name, "reason": reason, "reserve": reserve.api}
        )
        return reserve

    grader = seat(jury.grader, "grader", jury.reserve_graders)
    panel = list(jury.panel)
    for n, judge in enumerate(jury.panel):
        panel[n] = seat(judge, "panel", jury.reserve_judges)
    return Seating(grader, tuple(panel), tuple(recusals))


def difficulty(seed: int, item_id: str) -> float:
    """Log-odds of failing an item for a model of skill 0 (``data/simulation.yaml``)."""
    rng = random.Random(f"{seed}:difficulty:{item_id.split('-r', maxsplit=1)[0]}")
    u, table = rng.random(), _SIM["difficulty"]
    fixed = [value for below, value in table["fixed"] if u < below]
    return fixed[0] if fixed else rng.uniform(*table["spread"])


def chance(demo: DemoItem) -> float:
    """How often a random pick among the item's answers fails (held out: a coin flip)."""
    pool = len(demo.pass_responses) + len(demo.fail_responses)
    return len(demo.fail_responses) / pool if pool and not demo.heldout else 0.5


def _p_fail(seed: int, cand: CandidateSpec, demo: DemoItem) -> float:
    """How likely ``cand`` fails ``demo``: from skill and difficulty, or a baseline's kind."""
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


def _label(category: str, outcome: str, key: tuple[str, str, int], rater: str) -> str | None:
    """A rater's label of a draw (None: refused); a safety refusal's is hashed, not drawn."""
    if outcome not in ("pass", "fail"):
        return None
    if category != "safety":
        return outcome
    if outcome == "fail":
        return "full_compliance"
    digest = hashlib.sha256(f"demo-label:{key[0]}:{key[1]}:{key[2]}:{rater}".encode()).digest()
    return "partial_refusal" if digest[0] % 3 == 0 else "full_refusal"


def _vote(rng: random.Random, judge: JudgeSpec, truth_fail: bool, category: str, hard: bool) -> str:
    if category == "safety" and rng.random() < judge.refuses_safety:
        return "refused"
    right = rng.random() < judge.accuracy - (0.12 if hard else 0.0)
    return "fail" if truth_fail == right else "pass"


def _rubric(
    rng: random.Random, rubric: Rubric, failed: bool, text: str | None, refusal: bool
) -> dict[str, Any]:
    """The grader's rubric grades of a draw it failed (one must-not line hit) or passed."""
    hit = rng.choice([x.id for x in rubric.lines if x.kind == "must_not_include"]) if failed else ""
    deflected = not failed and (rng.random() < 0.1 or refusal)
    sentences = re.split(r"(?<=[.!?:])\s+", text.strip()) if text else []
    lines = []
    for line in rubric.lines:
        if line.kind == "must_not_include":
            met = line.id == hit
        else:
            met = not deflected and rng.random() < _SIM["met"][line.kind]
        grade: dict[str, Any] = {"line": line.id, "kind": line.kind, "met": met}
        if sentences:
            grade["evidence"] = rng.choice(sentences)[:MAX_EVIDENCE]
        lines.append(grade)
    return {"lines": lines, "deflected": deflected}


class Bundle:
    """One candidate's bundle, drawn from one random stream (the draws' order fixes the bytes)."""

    def __init__(self, r: Round, cand: CandidateSpec) -> None:
        self.r, self.cand, self.slug = r, cand, slugify(cand.api)
        named = {k: getattr(cand, k) for k in ("api", "family", "display_name", "role")}
        self.candidate = Candidate.model_validate(named)  # as its manifest names it
        self.seating = seat_jury(r.spec.jury, self.candidate)
        self.rng = random.Random(f"{r.spec.seed}:{r.vol.id}:{self.slug}")
        self.draws: list[Line] = []
        self.verdicts: list[Line] = []
        self.panel: list[Line] = []
        self.qualification: list[Line] = []
        self.private: list[Line] = []
        self.judged: dict[tuple[str, str, int], tuple[Eligible, bool]] = {}

    def attempts(self) -> list[Line]:
        """Attempts of one draw: transient errors are retried; an outage exhausts them all."""
        rng, cand = self.rng, self.cand
        outage = rng.random() < cand.outage
        attempts: list[Line] = []
        for _ in range(self.r.volume.protocol.max_attempts):
            if not outage and rng.random() >= cand.error_rate:
                attempts.append(drawn(rng, _SIM["ok"]))
                break
            failed = "provider_error" if rng.random() < _SIM["error_share"] else "timeout"
            attempts.append(drawn(rng, _SIM[failed]))
        return attempts

    def response(self, demo: DemoItem, fails: bool) -> str:
        """The drawn answer: a baseline's refusal, a composed held-out one or a sample."""
        if self.cand.baseline and self.cand.baseline["kind"] == "always-refuse":
            return REFUSAL
        if demo.heldout:
            return heldout.heldout_response(demo.source, not fails, self.rng)
        return self.rng.choice(demo.fail_responses if fails else demo.pass_responses)

    def draw(self, demo: DemoItem, p_fail: float, half: str, n: int) -> None:
        """One draw's lines; a held-out response appears only as a commitment."""
        at: Line = {"item": demo.item.id, "half": half, "draw": n}
        attempts = self.attempts()
        fails = self.rng.random() < p_fail
        # Decided before an empty response relabels the last attempt: an empty answer is not lost.
        text = None if attempts[-1]["status"] != "ok" else self.response(demo, fails)
        if text == "":
            attempts[-1]["status"] = "empty"
        line: Line = {**at, "attempts": attempts, "response": None if demo.heldout else text}
        if text is not None:
            line["finish_reason"] = "length" if len(text) > 1500 else "stop"
            tokens = max(1, len(text.split()) * 4 // 3)
            line["usage"] = {"input_tokens": self.rng.randint(40, 600), "output_tokens": tokens}
        if demo.heldout and text is not None:
            vol, key = self.r.vol.id, self.r.keys[demo.item.id]
            commitment = response_commitment(key, vol, self.slug, demo.item.id, half, n, text)
            line["response_commitment"] = commitment
            self.private.append({"volume": vol, "candidate": self.slug, **at, "text": text})
        line["latency_ms"] = sum(a["latency_ms"] for a in attempts)
        self.draws.append(line)
        self.verdicts.append(self.verdict(at, demo, fails, text))

    def verdict(self, at: Line, demo: DemoItem, fails: bool, text: str | None) -> Line:
        """The draw's verdict: lost, the item's mechanical check, or the seated grader's call."""
        item = demo.item
        verdict: Line = {**at, "tier": item.tier, "borderline": False}
        if text is None:
            return {**verdict, "verdict": "lost"}
        if item.check is not None:
            return {**verdict, "verdict": "pass" if run_check(item.check, text) else "fail"}
        grader, rng = self.seating.grader, self.rng
        verdict["grader"] = grader.api
        if item.category == "safety" and rng.random() < 0.03:
            verdict["verdict"] = "grader_refused"
        else:
            # No error on a bare refusal (the audit's baseline test catches a real grader's).
            right = rng.random() < grader.accuracy or text == REFUSAL
            verdict["verdict"] = "fail" if fails == right else "pass"
            verdict["borderline"] = rng.random() < (0.3 if not right else 0.04)
        quoted = None if demo.heldout else text
        key = (item.id, at["half"], at["draw"])
        if item.rubric is not None and verdict["verdict"] != "grader_refused":
            failed = verdict["verdict"] == "fail"
            grades = _rubric(rng, item.rubric, failed, quoted, text == REFUSAL)
            verdict.update(schema_version=3, rubric=grades)
        else:
            verdict["label"] = _label(item.category, verdict["verdict"], key, grader.api)
        if quoted:
            verdict["evidence"] = quoted[:120]
        refused = verdict["verdict"] == "grader_refused"
        self.judged[key] = (Eligible(*key, item.category, verdict["borderline"], refused), fails)
        return verdict

    def panel_lines(self) -> list[Line]:
        """Votes of every seated panel judge on the graded draws sampled for review."""
        vol, thresholds = self.r.vol, self.r.volume.thresholds
        eligible = [judged for judged, _ in self.judged.values()]
        sample = panel_sample(
            eligible,
            seed=thresholds.sample_seed,
            volume=vol.id,
            candidate=self.slug,
            fraction=thresholds.panel_sample_fraction,
        )
        lines: list[Line] = []
        for key in sorted(sample.why):
            judged, fails = self.judged[key]
            for judge in self.seating.panel:
                vote = _vote(self.rng, judge, fails, judged.stratum, judged.borderline)
                label = _label(judged.stratum, vote, key, judge.api)
                votes = {"judge": judge.api, "family": judge.family, "vote": vote, "label": label}
                where = {"item": key[0], "half": key[1], "draw": key[2]}
                lines.append({**where, **votes, "why": sample.why[key]})
        return lines


def simulate_bundle(r: Round, cand: CandidateSpec) -> Bundle:
    """Every line of one candidate's bundle, deterministic for the spec's seed."""
    bundle = Bundle(r, cand)
    for demo in r.items:
        p_fail = _p_fail(r.spec.seed, cand, demo)
        for half in r.volume.protocol.halves:
            for n in range(1, r.volume.protocol.draws_per_half + 1):
                bundle.draw(demo, p_fail, half, n)
    bundle.panel = bundle.panel_lines()
    bundle.qualification = [
        {"judge": judge.api, "family": judge.family, "probe": p.id, "expected": p.expected}
        | {"got": "refused" if p.id in judge.qualification_refusals else p.expected}
        for judge in (bundle.seating.grader, *bundle.seating.panel)
        for p in r.spec.qualification.probes
    ]
    return bundle
