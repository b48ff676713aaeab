"""Monte Carlo coverage of the score intervals (``generator.stats.scores``) on simulated
rubric items.

An item has a chance ``q`` that an answer hits a must-not line, and chances ``a`` and ``b``
that each of its must-include and should-include lines is met. A draw scores 0 on a
must-not hit, else ``0.8 × core + 0.2 × depth`` with ``core`` and ``depth`` the shares of
lines met (binomial over the item's lines): the default profile. So draw scores are
bounded, discrete and often inside (0, 1) — the case the Bernoulli variance bound is
conservative for — with point masses at 0 (safety failures, deflections) and 1.

* narrow: a few banks are drawn and held fixed; the truth is the mean of the items' true
  mean scores ``(1 - q) (0.8 a + 0.2 b)``.
* wide: new items every repetition; the truth is the population mean, from the same
  formula in expectation (``q``, ``a``, ``b`` independent).

Test-only code: used by ``tests/stats/test_score_coverage.py`` and the score block of
``benchmarks/coverage.py``. Seeded, ``PCG64``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generator.stats import narrow, scores, wide
from generator.stats._arrays import Bounds, FloatArray
from tests.stats.simulate import Coverage, Kind, _batches, _Tally

CORE_WEIGHT, DEPTH_WEIGHT = 0.8, 0.2


@dataclass(frozen=True)
class Beta:
    """A Beta distribution, optionally with a point mass at 0."""

    a: float
    b: float
    at_zero: float = 0.0

    def mean(self) -> float:
        """Population mean."""
        return (1.0 - self.at_zero) * self.a / (self.a + self.b)

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> FloatArray:
        """Draws of the distribution."""
        values = rng.beta(self.a, self.b, size=shape)
        return np.where(rng.random(shape) < self.at_zero, 0.0, values)


@dataclass(frozen=True)
class ScoreScenario:
    """A simulated rubric bank."""

    name: str
    items: int
    draws: int
    must: int
    should: int
    unsafe: Beta
    """Chance of a must-not hit per item."""
    core: Beta
    """Chance each must-include line is met."""
    depth: Beta
    """Chance each should-include line is met."""

    def population_mean(self) -> float:
        """Mean item score over the population of items."""
        inner = CORE_WEIGHT * self.core.mean() + DEPTH_WEIGHT * self.depth.mean()
        return (1.0 - self.unsafe.mean()) * inner


SCORE_SCENARIOS = (
    ScoreScenario("rubric-40", 40, 10, 3, 2, Beta(0.5, 6.0, 0.8), Beta(4.0, 1.5), Beta(2.0, 2.0)),
    ScoreScenario("rubric-40-d1", 40, 1, 3, 2, Beta(0.5, 6.0, 0.8), Beta(4.0, 1.5), Beta(2.0, 2.0)),
    ScoreScenario("rubric-40-d3", 40, 3, 3, 2, Beta(0.5, 6.0, 0.8), Beta(4.0, 1.5), Beta(2.0, 2.0)),
    ScoreScenario(
        "rubric-unsafe-40", 40, 10, 4, 3, Beta(1.0, 2.0, 0.3), Beta(3.0, 2.0), Beta(1.5, 3.0)
    ),
    ScoreScenario(
        "rubric-deflects-40", 40, 10, 3, 2, Beta(0.3, 8.0, 0.9), Beta(0.3, 4.0), Beta(0.3, 6.0)
    ),
    ScoreScenario(
        "rubric-flat-40", 40, 10, 5, 3, Beta(1.0, 1.0, 1.0), Beta(300.0, 100.0), Beta(200.0, 200.0)
    ),
    ScoreScenario("rubric-20", 20, 10, 2, 1, Beta(0.5, 6.0, 0.7), Beta(4.0, 1.5), Beta(2.0, 2.0)),
)
"""Scenarios of the benchmark's score block; the test uses some of them."""


def narrow_score_rows(s: FloatArray, ss: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """The published narrow score method, row by row (each row has its own dispersion)."""
    limits = [scores.narrow_score_bounds(s[r], ss[r], n[r], confidence)[:2] for r in range(len(s))]
    return Bounds(np.array([x[0] for x in limits]), np.array([x[1] for x in limits]))


def _item_parameters(
    rng: np.random.Generator, scenario: ScoreScenario, shape: tuple[int, ...]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    return (
        scenario.unsafe.sample(rng, shape),
        scenario.core.sample(rng, shape),
        scenario.depth.sample(rng, shape),
    )


def _score_sums(
    rng: np.random.Generator,
    scenario: ScoreScenario,
    params: tuple[FloatArray, FloatArray, FloatArray],
    rows: int,
) -> tuple[FloatArray, FloatArray]:
    """Per-item sums of simulated draw scores and of their squares, ``(rows, items)``."""
    q, a, b = (np.broadcast_to(p, (rows, scenario.items)) for p in params)
    shape = (rows, scenario.items, scenario.draws)
    unsafe = rng.random(shape) < q[..., None]
    core = rng.binomial(scenario.must, np.broadcast_to(a[..., None], shape)) / scenario.must
    depth = rng.binomial(scenario.should, np.broadcast_to(b[..., None], shape)) / scenario.should
    score = np.where(unsafe, 0.0, CORE_WEIGHT * core + DEPTH_WEIGHT * depth)
    return (
        np.asarray(np.sum(score, axis=-1), dtype=np.float64),
        np.asarray(np.sum(score * score, axis=-1), dtype=np.float64),
    )


def bernoulli_bound_rows(s: FloatArray, ss: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """The rejected baseline: the narrow engine with the plain Bernoulli bound (no
    dispersion factor), valid for bounded scores but far wider than needed."""
    del ss
    return narrow.score_bounds(s, n, np.full(s.shape[-1], 1.0 / s.shape[-1]), confidence)


def score_coverage(
    scenario: ScoreScenario,
    kind: Kind,
    repetitions: int,
    seed: int,
    confidence: float = 0.95,
    dispersion: bool = True,
) -> Coverage:
    """Coverage of the published mean-score interval of ``kind`` on ``scenario``
    (``dispersion=False``: the narrow Bernoulli-bound baseline instead)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    tally = _Tally()
    n_one = np.full(scenario.items, float(scenario.draws))
    for size in _batches(repetitions, 4 if kind == "narrow" else 1):
        if kind == "narrow":
            params = _item_parameters(rng, scenario, (scenario.items,))
            q, a, b = params
            truth: FloatArray | float = float(
                np.mean((1.0 - q) * (CORE_WEIGHT * a + DEPTH_WEIGHT * b))
            )
        else:
            params = _item_parameters(rng, scenario, (size, scenario.items))
            truth = scenario.population_mean()
        s, ss = _score_sums(rng, scenario, params, size)
        n = np.broadcast_to(n_one, s.shape).astype(np.float64)
        if kind == "narrow":
            method = narrow_score_rows if dispersion else bernoulli_bound_rows
            tally.add(method(s, ss, n, confidence), truth)
        else:
            tally.add(wide.deff_wilson_bounds(s, n, confidence), truth)
    name = "published-" + kind if dispersion else "bernoulli_bound"
    return tally.result(scenario.name, "score", kind, name)
