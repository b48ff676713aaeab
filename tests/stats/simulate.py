"""Monte Carlo coverage of the interval methods, on banks that look like probe banks.

A scenario fixes a number of items, draws per item and a *difficulty mix*: the share of
items a model always passes (p = 0), always fails (p = 1), and a Beta distribution for
the rest. Volumes are simulated by drawing binomial fail counts.

* narrow: a few banks are drawn from the mix and then held fixed; only draws vary. The
  truth is the mean of the bank's true p_i (or the difference of two such means).
* wide: every repetition draws new items from the mix. The truth is the mix's mean.

Test-only code, so it lives under tests/: used by ``tests/stats/test_coverage.py`` (small,
fast) and ``benchmarks/coverage.py`` (full size). Every procedure takes an explicit
seed and uses ``PCG64``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from scipy import stats

from generator.stats import crossing, narrow, paired, wide
from generator.stats._arrays import Bounds, FloatArray

Kind = Literal["narrow", "wide"]
Design = Literal["split-half", "drift", "two-candidates", "unpaired"]
RateMethod = Callable[[FloatArray, FloatArray, float], Bounds]
_CHUNK = 2000
_DRIFT_SHARE = 0.25  # share of items whose true rate changes between volumes
_COPULA_RHO = 0.8  # item-difficulty correlation between two candidates


@dataclass(frozen=True)
class ItemMix:
    """Distribution of true per-item fail probabilities."""

    at_zero: float
    at_one: float
    beta_a: float
    beta_b: float

    def mean(self) -> float:
        """Population mean fail probability."""
        middle = 1.0 - self.at_zero - self.at_one
        return self.at_one + middle * self.beta_a / (self.beta_a + self.beta_b)

    def quantile(self, u: FloatArray) -> FloatArray:
        """Fail probability at uniform quantile ``u`` (0 for the easiest items)."""
        middle = max(1.0 - self.at_zero - self.at_one, 1e-12)
        v = np.clip((u - self.at_zero) / middle, 0.0, 1.0)
        beta = np.asarray(stats.beta.ppf(v, self.beta_a, self.beta_b), dtype=np.float64)
        return np.where(u < self.at_zero, 0.0, np.where(u >= 1.0 - self.at_one, 1.0, beta))


@dataclass(frozen=True)
class Scenario:
    """A simulated bank: items, draws per item (optionally uneven) and difficulty mixes."""

    name: str
    items: int
    draws: int
    mix: ItemMix
    other: ItemMix  # candidate B (two-candidates, unpaired) or changed items (drift)
    min_draws: int | None = None  # when set, n_i is uniform on [min_draws, draws]
    half_draws: int | None = None  # draws in each half for split-half (default draws // 2)

    def split_draws(self) -> int:
        """Draws per item in each of the two halves of a split-half comparison."""
        return self.half_draws or self.draws // 2


PROBE_BANK = ItemMix(0.55, 0.05, 0.6, 1.4)  # most items clean, a few always fail
STRONGER = ItemMix(0.70, 0.03, 0.6, 1.6)

SCENARIOS = (
    Scenario("bank-63", 63, 10, PROBE_BANK, STRONGER),
    Scenario("bank-103", 103, 10, PROBE_BANK, STRONGER),
    Scenario("uneven-draws-63", 63, 10, PROBE_BANK, STRONGER, min_draws=6),
    Scenario("small-30", 30, 10, PROBE_BANK, STRONGER),
    Scenario("all-easy-63", 63, 10, ItemMix(0.80, 0.0, 0.5, 4.0), ItemMix(0.85, 0.0, 0.5, 6.0)),
    Scenario(
        "very-easy-103", 103, 10, ItemMix(0.90, 0.0, 0.3, 10.0), ItemMix(0.92, 0.0, 0.3, 12.0)
    ),
    Scenario("hard-63", 63, 10, ItemMix(0.20, 0.30, 2.0, 2.0), ItemMix(0.30, 0.20, 2.0, 2.5)),
)
"""Scenarios of the benchmark; the tests use ``bank-63`` and ``uneven-draws-63``."""

FLAT_09 = ItemMix(0.0, 0.0, 900.0, 9100.0)  # every item fails about 9% of its draws
FLAT_07 = ItemMix(0.0, 0.0, 700.0, 9300.0)
FLAT_30 = ItemMix(0.0, 0.0, 3000.0, 7000.0)  # every item about 30%
FLAT_25 = ItemMix(0.0, 0.0, 2500.0, 7500.0)
PROBE_09 = ItemMix(0.70, 0.02, 0.5, 1.5)  # mean 0.09, most items clean
PROBE_07 = ItemMix(0.75, 0.02, 0.5, 1.5)
PROBE_30 = ItemMix(0.35, 0.10, 0.8, 1.4)  # mean 0.30
PROBE_25 = ItemMix(0.42, 0.08, 0.8, 1.4)


def _shapes() -> tuple[Scenario, ...]:
    """Protocol shapes: 1, 2, 3 and 10 draws per item, at rates near 0.09 and 0.3.

    Flat mixes (every item alike) are where the single-draw bound is tight, so they test
    that it is not too wide; the probe-like mixes test it on banks like the example's.
    Split-half rows of these scenarios have the scenario's draws in *each* half.
    """
    mixes = (
        ("flat-09", FLAT_09, FLAT_07),
        ("flat-30", FLAT_30, FLAT_25),
        ("probe-09", PROBE_09, PROBE_07),
        ("probe-30", PROBE_30, PROBE_25),
    )
    out = [
        Scenario(f"{name}-d{draws}", 63, draws, mix, other, half_draws=draws)
        for name, mix, other in mixes
        for draws in (1, 2, 3, 10)
    ]
    out += [
        Scenario("flat-30-d1to3", 63, 3, FLAT_30, FLAT_25, min_draws=1, half_draws=3),
        Scenario("probe-09-d1to3", 63, 3, PROBE_09, PROBE_07, min_draws=1, half_draws=3),
        Scenario("bank-d1to10", 63, 10, PROBE_BANK, STRONGER, min_draws=1, half_draws=5),
    ]
    return tuple(out)


SHAPES = _shapes()
"""Small-draw scenarios of the benchmark (issue 14); the tests use some of them."""


@dataclass(frozen=True)
class Coverage:
    """How often an interval method covered the truth."""

    scenario: str
    design: str
    kind: str
    method: str
    repetitions: int
    covered: int
    below: int  # interval entirely below the truth
    above: int  # interval entirely above the truth
    mean_width: float

    @property
    def rate(self) -> float:
        """Empirical coverage."""
        return self.covered / self.repetitions


def narrow_rate_bounds(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """The published narrow method, vectorised over repetitions."""
    return narrow.score_bounds(k, n, np.full(k.shape[-1], 1.0 / k.shape[-1]), confidence)


def unpooled_score(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """The narrow method before issue 14, kept as a rejected baseline: every single-draw
    item its own cell (the variance collapses: 66-92% coverage at one draw an item)."""
    weights = np.full(k.shape[-1], 1.0 / k.shape[-1])
    scale = np.asarray(float(np.max(n)) / float(np.min(weights)))
    block = max(1, min(crossing.GRID.size, narrow._WORKING_SET // k.size))
    return narrow._score_bounds(k, n, weights, confidence, scale, narrow._Steps(block, block), None)


def rate_coverage(
    scenario: Scenario,
    kind: Kind,
    repetitions: int,
    seed: int,
    confidence: float = 0.95,
    banks: int = 4,
    method: RateMethod | None = None,
) -> Coverage:
    """Coverage of a rate interval (default: the published method for ``kind``).

    Args:
        scenario: Bank size, draws and difficulty mix to simulate.
        kind: ``"narrow"`` (a few fixed banks, draws vary) or ``"wide"`` (new items each
            repetition).
        repetitions: Number of simulated volumes.
        seed: Seed of the ``PCG64`` generator; equal seeds give equal results.
        confidence: Two-sided confidence level of the intervals.
        banks: Number of fixed banks the narrow repetitions are split over.
        method: A vectorised interval ``(k, n, confidence) -> Bounds`` to check instead
            of the published one; reported under its ``__name__``.

    Returns:
        The tally of covered and missed intervals.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    default = narrow_rate_bounds if kind == "narrow" else wide.deff_wilson_bounds
    chosen = method or default
    tally = _Tally()
    for size in _batches(repetitions, banks if kind == "narrow" else 1):
        if kind == "narrow":
            p = np.broadcast_to(
                scenario.mix.quantile(rng.random(scenario.items)), (size, scenario.items)
            )
            n = np.broadcast_to(_draw_counts(rng, scenario, 1), (size, scenario.items))
            truth: FloatArray | float = np.mean(p, axis=-1)
        else:
            p = scenario.mix.quantile(rng.random((size, scenario.items)))
            n = _draw_counts(rng, scenario, size)
            truth = scenario.mix.mean()
        k = rng.binomial(n.astype(np.int64), p).astype(np.float64)
        tally.add(chosen(k, n.astype(np.float64), confidence), truth)
    name = chosen.__name__ if method else "published-" + kind
    return tally.result(scenario.name, "rate", kind, name)


def difference_coverage(
    scenario: Scenario,
    design: Design,
    kind: Kind,
    repetitions: int,
    seed: int,
    confidence: float = 0.95,
    banks: int = 4,
) -> Coverage:
    """Coverage of the published difference interval for one design.

    Every item gets the scenario's draw count on each side (``split_draws()`` for
    split-half); with ``min_draws`` set, each side's count per item is uniform on
    ``[min_draws, that count]`` (held fixed with the bank for narrow runs).

    Args:
        scenario: Bank size, draws and the two difficulty mixes to simulate.
        design: ``"split-half"`` (same rates, halves of the draws), ``"drift"`` (a
            quarter of the items change rate), ``"two-candidates"`` (correlated item
            difficulty, same items) or ``"unpaired"`` (different items).
        kind: ``"narrow"`` or ``"wide"``.
        repetitions: Number of simulated pairs of volumes.
        seed: Seed of the ``PCG64`` generator.
        confidence: Two-sided confidence level of the intervals.
        banks: Number of fixed banks the narrow repetitions are split over.

    Returns:
        The tally of covered and missed intervals.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    tally = _Tally()
    draws = scenario.split_draws() if design == "split-half" else scenario.draws
    side = replace(scenario, draws=draws, min_draws=_side_min(scenario, draws))
    for size in _batches(repetitions, banks if kind == "narrow" else 1):
        rows = 1 if kind == "narrow" else size
        p_a, p_b = _pair_rates(rng, scenario, design, rows)
        n_a, n_b = _draw_counts(rng, side, rows), _draw_counts(rng, side, rows)
        if kind == "narrow":
            full = (size, scenario.items)
            p_a, p_b = np.broadcast_to(p_a, full), np.broadcast_to(p_b, full)
            n_a, n_b = np.broadcast_to(n_a, full), np.broadcast_to(n_b, full)
            truth: FloatArray | float = np.mean(p_a, axis=-1) - np.mean(p_b, axis=-1)
        else:
            truth = _population_difference(scenario, design)
        k_a = rng.binomial(n_a.astype(np.int64), p_a).astype(np.float64)
        k_b = rng.binomial(n_b.astype(np.int64), p_b).astype(np.float64)
        bounds = _difference_bounds(k_a, k_b, (n_a, n_b), design, kind, confidence)
        tally.add(bounds, truth)
    return tally.result(scenario.name, design, kind, "published-" + kind)


def _side_min(scenario: Scenario, draws: int) -> int | None:
    """Fewest draws of an item on one side of a difference (None: always ``draws``)."""
    return None if scenario.min_draws is None else min(scenario.min_draws, draws)


def leniency_coverage(
    draws: int, cells: tuple[float, float, float, float], repetitions: int, seed: int
) -> Coverage:
    """Coverage of the leniency (Tango) interval for independent paired draws.

    Args:
        draws: Paired draws per simulated panel sample.
        cells: Probabilities of (grader pass, majority pass), (pass, fail), (fail, pass)
            and (fail, fail); the truth is ``cells[1] - cells[2]``.
        repetitions: Number of simulated samples.
        seed: Seed of the ``PCG64`` generator.

    Returns:
        The tally of covered and missed intervals (on the proportion scale).
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = rng.multinomial(draws, np.asarray(cells), size=repetitions).astype(np.float64)
    total = np.full(repetitions, float(draws))
    tally = _Tally()
    tally.add(paired.tango_bounds(counts[:, 1], counts[:, 2], total, 0.95), cells[1] - cells[2])
    return tally.result(f"leniency-{draws}-draws", "paired-draws", "iid", "tango-score")


def _difference_bounds(
    k_a: FloatArray,
    k_b: FloatArray,
    n: tuple[FloatArray, FloatArray],
    design: Design,
    kind: Kind,
    confidence: float,
) -> Bounds:
    """The published narrow or wide difference interval, vectorised."""
    items = k_a.shape[-1]
    n_a, n_b = n
    if kind == "narrow":
        weights = np.concatenate([np.full(items, 1.0 / items), np.full(items, -1.0 / items)])
        k = np.concatenate([k_a, k_b], axis=-1)
        return narrow.score_bounds(k, np.concatenate([n_a, n_b], axis=-1), weights, confidence)
    x_a, x_b = k_a / n_a, k_b / n_b
    r = 0.0 if design == "unpaired" else wide.item_correlation(x_a, x_b)
    a = wide.deff_wilson_bounds(k_a, n_a, confidence)
    b = wide.deff_wilson_bounds(k_b, n_b, confidence)
    return wide.mover_bounds(np.mean(x_a, axis=-1), a, np.mean(x_b, axis=-1), b, r)


def _pair_rates(
    rng: np.random.Generator, scenario: Scenario, design: Design, rows: int
) -> tuple[FloatArray, FloatArray]:
    """True per-item rates of sides A and B, shape ``(rows, items)``."""
    shape = (rows, scenario.items)
    u = rng.random(shape)
    p_a = scenario.mix.quantile(u)
    if design == "split-half":
        return p_a, p_a
    if design == "drift":
        changed = rng.random(shape) < _DRIFT_SHARE
        return p_a, np.where(changed, scenario.other.quantile(rng.random(shape)), p_a)
    if design == "two-candidates":
        latent = _COPULA_RHO * stats.norm.ppf(u) + np.sqrt(1.0 - _COPULA_RHO**2) * rng.normal(
            size=shape
        )
        return p_a, scenario.other.quantile(np.asarray(stats.norm.cdf(latent)))
    return p_a, scenario.other.quantile(rng.random(shape))


def _population_difference(scenario: Scenario, design: Design) -> float:
    """Population truth of ``E[p_A] - E[p_B]`` for the wide intervals."""
    if design == "split-half":
        return 0.0
    if design == "drift":
        return _DRIFT_SHARE * (scenario.mix.mean() - scenario.other.mean())
    return scenario.mix.mean() - scenario.other.mean()


def _draw_counts(rng: np.random.Generator, scenario: Scenario, rows: int) -> FloatArray:
    """Usable draws per item, shape ``(rows, items)``."""
    shape = (rows, scenario.items)
    if scenario.min_draws is None:
        return np.full(shape, float(scenario.draws))
    return rng.integers(scenario.min_draws, scenario.draws + 1, size=shape).astype(np.float64)


def _batches(repetitions: int, parts: int) -> list[int]:
    """Split repetitions into ``parts`` banks, each further cut into bounded chunks."""
    sizes = [repetitions // parts + (1 if i < repetitions % parts else 0) for i in range(parts)]
    if parts > 1:
        return [s for s in sizes if s > 0]
    return [min(_CHUNK, repetitions - start) for start in range(0, repetitions, _CHUNK)]


class _Tally:
    """Accumulates coverage counts over batches."""

    def __init__(self) -> None:
        self.repetitions = self.covered = self.below = self.above = 0
        self.width = 0.0

    def add(self, bounds: Bounds, truth: FloatArray | float) -> None:
        """Count one batch of intervals against their truths."""
        slack = 1e-12  # limits that equal the truth up to rounding cover it
        below = bounds.hi < truth - slack
        above = bounds.lo > truth + slack
        self.repetitions += int(below.size)
        self.below += int(np.sum(below))
        self.above += int(np.sum(above))
        self.covered += int(np.sum(~below & ~above))
        self.width += float(np.sum(bounds.hi - bounds.lo))

    def result(self, scenario: str, design: str, kind: str, method: str) -> Coverage:
        """The tally as a ``Coverage``."""
        return Coverage(
            scenario=scenario,
            design=design,
            kind=kind,
            method=method,
            repetitions=self.repetitions,
            covered=self.covered,
            below=self.below,
            above=self.above,
            mean_width=self.width / self.repetitions,
        )
