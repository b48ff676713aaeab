"""Full-size coverage table of the published interval methods, plus rejected baselines.

Run from the repository root:

    .venv/bin/python benchmarks/coverage.py                 # 4,000 repetitions a row
    .venv/bin/python benchmarks/coverage.py --repetitions 2000 --baseline-repetitions 400 \
        --resamples 300             # the RESULTS.md table: 15 minutes on a shared 2-core machine

Every row is seeded (``--seed``), so the table is reproducible. Coverage is the share of
simulated volumes whose interval contains the truth; "below"/"above" are the shares of
intervals lying entirely below/above it. Narrow rows hold the bank fixed (a few banks per
scenario) and vary only the draws; wide rows draw new items every repetition.

The baselines (design "rate*") are the methods considered and rejected, run on the rate
only: plug-in Wald, Wald with the unbiased per-item variance, a parametric bootstrap from
add-half smoothed item rates (percentile, and re-centred on the estimate), a t interval on
the item fractions and a cluster (item) bootstrap (percentile). The bootstraps are
vectorised over resamples (no Python loop over them).

The second block covers the protocol shapes with few draws (issue 14): 1, 2, 3 and 10
draws an item and uneven counts that include single draws, on flat banks (every item at
about 9% or 30%, where the single-draw bound is tight) and probe-like banks with the same
means. Its baseline row is the narrow method without pooling single-draw items.

The third block covers the mean-score intervals of rubric items (issue 15): bounded draw
scores (0 on a must-not hit, else 0.8 x core + 0.2 x depth) on simulated rubric banks
(``tests/stats/simulate_scores.py``). Its baseline row is the narrow method with the
plain Bernoulli variance bound (no dispersion factor): valid, but far wider than needed.

The fourth block covers the simultaneous statement of the rank ranges (issue 17): the
share of simulated volumes (bank fixed, draws random) in which *every* order the paired
Holm comparisons claim is true, beside how many of the truly ordered pairs they claim
(``tests/stats/simulate_ranks.py``). Its baselines are the overlap rule of earlier
volumes and paired comparisons without Holm's adjustment. ``--only-ranks`` prints it
alone (``--rank-repetitions`` a row; about half a second a volume of 8 candidates).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.stats._arrays import Bounds, FloatArray
from tests.stats.simulate import (
    SCENARIOS,
    SHAPES,
    Coverage,
    Design,
    Kind,
    RateMethod,
    difference_coverage,
    leniency_coverage,
    rate_coverage,
    unpooled_score,
)
from tests.stats.simulate_ranks import RANK_SCENARIOS, RankCoverage, rank_coverage
from tests.stats.simulate_scores import SCORE_SCENARIOS, score_coverage

DESIGNS: tuple[Design, ...] = ("split-half", "drift", "two-candidates", "unpaired")
KINDS: tuple[Kind, ...] = ("narrow", "wide")
_BOOT_CHUNK = 25


def plug_in_wald(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """Mean of item fractions +/- z * plug-in binomial standard error."""
    x = k / n
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    se = np.sqrt(np.sum(x * (1 - x) / n, axis=-1)) / k.shape[-1]
    return Bounds(np.mean(x, axis=-1) - z * se, np.mean(x, axis=-1) + z * se)


def unbiased_wald(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """Wald with the unbiased per-item variance k(n-k) / (n**2 (n-1))."""
    x = k / n
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    variance = np.sum(k * (n - k) / (n * n * np.maximum(n - 1, 1)), axis=-1)
    se = np.sqrt(variance) / k.shape[-1]
    return Bounds(np.mean(x, axis=-1) - z * se, np.mean(x, axis=-1) + z * se)


def item_t(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
    """Student t interval on the item fractions."""
    x = k / n
    items = x.shape[-1]
    q = float(stats.t.ppf(0.5 + confidence / 2, items - 1))
    se = np.std(x, axis=-1, ddof=1) / np.sqrt(items)
    return Bounds(np.mean(x, axis=-1) - q * se, np.mean(x, axis=-1) + q * se)


def bootstrap(resamples: int, seed: int, style: str) -> RateMethod:
    """Vectorised percentile bootstraps of the item mean.

    ``style``: "parametric" resamples draws from add-half smoothed item rates;
    "parametric-centred" shifts that percentile interval by the smoothing bias (basic
    bootstrap); "cluster" resamples items.
    """

    def interval(k: FloatArray, n: FloatArray, confidence: float) -> Bounds:
        rng = np.random.Generator(np.random.PCG64(seed))
        tail = (1 - confidence) / 2
        lo, hi = np.empty(k.shape[0]), np.empty(k.shape[0])
        for start in range(0, k.shape[0], _BOOT_CHUNK):
            part = slice(start, start + _BOOT_CHUNK)
            kk, nn = k[part], n[part]
            shape = (resamples, *kk.shape)
            smoothed = (kk + 0.5) / (nn + 1)
            if style == "cluster":
                pick = rng.integers(0, kk.shape[-1], size=shape)
                draws = np.take_along_axis(np.broadcast_to(kk / nn, shape), pick, axis=-1)
            else:
                draws = rng.binomial(nn.astype(np.int64), smoothed, size=shape) / nn
            means = np.mean(draws, axis=-1)
            q_lo, q_hi = np.quantile(means, [tail, 1 - tail], axis=0)
            if style == "parametric-centred":
                estimate, centre = np.mean(kk / nn, axis=-1), np.mean(smoothed, axis=-1)
                q_lo, q_hi = estimate - (q_hi - centre), estimate + (centre - q_lo)
            lo[part], hi[part] = q_lo, q_hi
        return Bounds(lo, hi)

    interval.__name__ = style.replace("-", "_") + "_bootstrap"
    return interval


HEADER = (
    f"{'scenario':<18} {'design':<15} {'kind':<7} {'method':<28} "
    f"{'cover%':>6} {'below%':>6} {'above%':>6} {'width':>8} {'reps':>6}"
)


def row(result: Coverage, design: str | None = None) -> str:
    """One table line (``design`` overrides the label, e.g. to mark a baseline)."""
    share = 100.0 / result.repetitions
    return (
        f"{result.scenario:<18} {design or result.design:<15} {result.kind:<7} "
        f"{result.method:<28} "
        f"{result.rate * 100:6.1f} {result.below * share:6.1f} {result.above * share:6.1f} "
        f"{result.mean_width:8.4f} {result.repetitions:6d}"
    )


def shapes(repetitions: int, baseline_repetitions: int, seed: int) -> None:
    """Rows of the small-draw protocol shapes (1, 2, 3, 10 draws an item; issue 14).

    Split-half rows of these scenarios have the scenario's draws in *each* half, so
    ``-d1`` is two halves of one draw. The rejected baseline is the narrow method before
    issue 14 (single-draw items not pooled), on the single-draw scenarios.
    """
    for number, scenario in enumerate(SHAPES):
        base = seed + 100_000 + 1000 * number
        for kind in KINDS:
            print(row(rate_coverage(scenario, kind, repetitions, base)), flush=True)
        for offset, design in enumerate(DESIGNS, start=1):
            for kind in KINDS:
                result = difference_coverage(scenario, design, kind, repetitions, base + offset)
                print(row(result), flush=True)
        if scenario.draws == 1:
            result = rate_coverage(
                scenario, "narrow", baseline_repetitions, base, method=unpooled_score
            )
            print(row(result, design="rate*"), flush=True)
        print(flush=True)


def score_block(repetitions: int, baseline_repetitions: int, seed: int) -> None:
    """Rows of the rubric mean-score intervals (issue 15), narrow and wide per scenario,
    plus the Bernoulli-bound baseline (``score*``) for the narrow one."""
    for number, scenario in enumerate(SCORE_SCENARIOS):
        base = seed + 200_000 + 1000 * number
        for kind in KINDS:
            print(row(score_coverage(scenario, kind, repetitions, base)), flush=True)
        result = score_coverage(scenario, "narrow", baseline_repetitions, base, dispersion=False)
        print(row(result, design="score*"), flush=True)
    print(flush=True)


RANK_HEADER = (
    f"{'scenario':<18} {'rule':<13} {'all claims true%':>16} {'claimed% of true orders':>23} "
    f"{'reps':>6}"
)


def rank_row(result: RankCoverage) -> str:
    """One line of the rank block."""
    return (
        f"{result.scenario:<18} {result.rule:<13} {result.rate * 100:16.1f} "
        f"{result.power * 100:23.1f} {result.repetitions:6d}"
    )


def rank_block(repetitions: int, seed: int) -> None:
    """Rows of the rank ranges' simultaneous statement (issue 17), every rule per scenario."""
    print(RANK_HEADER)
    for number, scenario in enumerate(RANK_SCENARIOS):
        for result in rank_coverage(scenario, repetitions, seed + 300_000 + 1000 * number):
            print(rank_row(result), flush=True)
    print("overlap* and unadjusted* = rejected baselines; family-wise target 95%.")


def main() -> None:
    """Print the coverage table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=4000)
    parser.add_argument("--baseline-repetitions", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument(
        "--scores",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="include the rubric mean-score block",
    )
    parser.add_argument(
        "--only-scores", action="store_true", help="print only the rubric mean-score block"
    )
    parser.add_argument("--rank-repetitions", type=int, default=1000)
    parser.add_argument("--only-ranks", action="store_true", help="print only the rank-range block")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.only_ranks:
        rank_block(args.rank_repetitions, args.seed)
        return
    if args.only_scores:
        print(HEADER)
        score_block(args.repetitions, args.baseline_repetitions, args.seed)
        print("score* = rejected baseline (Bernoulli bound without dispersion).")
        return
    print(HEADER)
    for number, scenario in enumerate(SCENARIOS):
        seed = args.seed + 1000 * number
        for kind in KINDS:
            print(row(rate_coverage(scenario, kind, args.repetitions, seed)), flush=True)
        for offset, design in enumerate(DESIGNS, start=1):
            for kind in KINDS:
                result = difference_coverage(
                    scenario, design, kind, args.repetitions, seed + offset
                )
                print(row(result), flush=True)
        baselines: list[tuple[Kind, RateMethod]] = [
            ("narrow", plug_in_wald),
            ("narrow", unbiased_wald),
            ("narrow", bootstrap(args.resamples, seed, "parametric")),
            ("narrow", bootstrap(args.resamples, seed, "parametric-centred")),
            ("wide", item_t),
            ("wide", bootstrap(args.resamples, seed, "cluster")),
        ]
        for kind, method in baselines:
            result = rate_coverage(scenario, kind, args.baseline_repetitions, seed, method=method)
            print(row(result, design="rate*"), flush=True)
        print(flush=True)
    shapes(args.repetitions, args.baseline_repetitions, args.seed)
    if args.scores:
        score_block(args.repetitions, args.baseline_repetitions, args.seed)
    for draws in (60, 150, 400):
        print(row(leniency_coverage(draws, (0.70, 0.08, 0.04, 0.18), args.repetitions, args.seed)))
    print("\nrate* = rejected baseline, shown for comparison.\n")
    rank_block(args.rank_repetitions, args.seed)
    print(f"elapsed {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
