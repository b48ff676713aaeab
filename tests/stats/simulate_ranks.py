"""Monte Carlo coverage of the simultaneous statement the rank ranges make (issue 17).

A volume of several candidates answers one bank; the bank is drawn once per scenario and
held fixed (the rank ranges use the narrow comparison: this bank, draws random), so the
truth is each candidate's mean true fail probability over the bank's items. Items share
their difficulty across candidates (a Gaussian copula, as in ``simulate.py``), and some
candidates are *clones*, with exactly the same true rate on every item: their order is
a true tie, so any claim between them is wrong.

The statement checked is the one the leaderboard prints: every order it claims holds at
once. A volume *covers* when no claim is wrong; then every candidate's true rank lies in
its range. Rejected baselines, on the same simulated volumes:

* ``overlap``: the rule of earlier volumes (non-overlapping narrow rate intervals);
* ``unadjusted``: paired differences at the per-pair confidence, no Holm adjustment.

Test-only code: ``tests/stats/test_rank_coverage.py`` (small) and
``benchmarks/coverage.py`` (full size). Seeded with ``PCG64``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from generator.stats import holm_separations
from generator.stats._arrays import FloatArray
from generator.stats.differences import narrow_differences
from generator.stats.intervals import narrow_intervals
from tests.stats.simulate import PROBE_BANK, ItemMix

Claims = set[tuple[int, int]]
"""Claimed orders ``(better, worse)`` by candidate index."""
Rule = Callable[[list[tuple[FloatArray, FloatArray]], float], Claims]


@dataclass(frozen=True)
class RankScenario:
    """Candidates on one bank: a difficulty mix per candidate; equal names are clones."""

    name: str
    items: int
    draws: int
    mixes: tuple[ItemMix, ...]
    clones: tuple[int, ...]
    """For each candidate, the index of the candidate whose item rates it copies (itself
    when it has its own)."""
    rho: float = 0.8


def _scaled(mix: ItemMix, zero: float) -> ItemMix:
    return ItemMix(zero, mix.at_one, mix.beta_a, mix.beta_b)


LADDER = tuple(_scaled(PROBE_BANK, z) for z in (0.70, 0.62, 0.55, 0.50, 0.40, 0.30))

RANK_SCENARIOS = (
    RankScenario("ladder-8-of-63", 63, 10, LADDER[:4] + LADDER[:4], (0, 1, 2, 3, 0, 1, 6, 7)),
    RankScenario("ladder-6-of-103", 103, 10, LADDER, (0, 1, 2, 3, 4, 5)),
    RankScenario("all-tied-6-of-63", 63, 10, (PROBE_BANK,) * 6, (0, 0, 0, 0, 0, 0)),
    RankScenario("two-draws-8-of-63", 63, 2, LADDER[:4] * 2, (0, 1, 2, 3, 0, 1, 2, 3)),
)
"""The benchmark's scenarios; the test uses the first and the all-tied one."""


@dataclass(frozen=True)
class RankCoverage:
    """How often a rule's claims were all true, and how many it made."""

    scenario: str
    rule: str
    repetitions: int
    covered: int
    """Volumes with no wrong claim (the simultaneous statement held)."""
    claims: int
    """Claims made, summed over volumes."""
    true_orders: int
    """Pairs that are truly ordered, per volume (the most claims a rule could get right)."""

    @property
    def rate(self) -> float:
        """Share of volumes whose every claim was true."""
        return self.covered / self.repetitions

    @property
    def power(self) -> float:
        """Mean share of the truly ordered pairs a volume claimed."""
        return self.claims / (self.repetitions * self.true_orders) if self.true_orders else 0.0


def item_rates(scenario: RankScenario, seed: int) -> FloatArray:
    """True per-item fail probabilities, shape ``(candidates, items)``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    shared = rng.normal(size=scenario.items)
    rows = []
    for mix in scenario.mixes:
        own = rng.normal(size=scenario.items)
        latent = scenario.rho * shared + np.sqrt(1 - scenario.rho**2) * own
        rows.append(mix.quantile(np.asarray(stats.norm.cdf(latent))))
    return np.stack([rows[c] for c in scenario.clones])


def holm_rule(counts: list[tuple[FloatArray, FloatArray]], confidence: float) -> Claims:
    """The published rule: ``holm_separations`` on the candidates' counts."""
    names = [f"c{i:02d}" for i in range(len(counts))]
    found = holm_separations(dict(zip(names, counts, strict=True)), confidence)
    return {(int(s.better[1:]), int(s.worse[1:])) for s in found}


def overlap_rule(counts: list[tuple[FloatArray, FloatArray]], confidence: float) -> Claims:
    """Earlier volumes' rule: ``i`` before ``j`` when ``i``'s interval lies below ``j``'s."""
    ivs = narrow_intervals(counts, confidence)
    return {(i, j) for i, a in enumerate(ivs) for j, b in enumerate(ivs) if i != j and a.hi < b.lo}


def unadjusted_rule(counts: list[tuple[FloatArray, FloatArray]], confidence: float) -> Claims:
    """Every pair at the per-pair confidence: what Holm's adjustment corrects."""
    pairs = [(i, j) for i in range(len(counts)) for j in range(i + 1, len(counts))]
    sides = [(*counts[i], *counts[j]) for i, j in pairs]
    ivs = narrow_differences(sides, paired=True, confidence=confidence)
    claims: Claims = set()
    for (i, j), iv in zip(pairs, ivs, strict=True):
        if iv.hi < 0:
            claims.add((i, j))
        elif iv.lo > 0:
            claims.add((j, i))
    return claims


RULES: dict[str, Rule] = {
    "paired-holm": holm_rule,
    "overlap*": overlap_rule,
    "unadjusted*": unadjusted_rule,
}


def rank_coverage(
    scenario: RankScenario, repetitions: int, seed: int, confidence: float = 0.95
) -> list[RankCoverage]:
    """Coverage of the simultaneous statement for every rule in ``RULES``.

    Args:
        scenario: Candidates, bank size and draws to simulate.
        repetitions: Simulated volumes (draws vary, the bank is fixed).
        seed: Seed of the bank and of the draws.
        confidence: Family-wise confidence (Holm) or per-claim confidence (baselines).

    Returns:
        One tally per rule, in ``RULES`` order.
    """
    p = item_rates(scenario, seed)
    truth = p.mean(axis=1)
    count = len(truth)
    true_orders = sum(1 for i in range(count) for j in range(count) if truth[i] < truth[j])
    rng = np.random.Generator(np.random.PCG64(seed + 1))
    n = np.full(p.shape, float(scenario.draws))
    covered = dict.fromkeys(RULES, 0)
    claimed = dict.fromkeys(RULES, 0)
    for _ in range(repetitions):
        k = rng.binomial(scenario.draws, p).astype(np.float64)
        counts = [(k[c], n[c]) for c in range(count)]
        for name, rule in RULES.items():
            claims = rule(counts, confidence)
            claimed[name] += len(claims)
            covered[name] += all(truth[i] < truth[j] for i, j in claims)
    return [
        RankCoverage(scenario.name, name, repetitions, covered[name], claimed[name], true_orders)
        for name in RULES
    ]
