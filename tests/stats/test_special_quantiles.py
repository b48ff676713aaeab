"""The quantiles the statistics take from ``scipy.special`` are ``scipy.stats``'s, exactly.

``generator.stats`` no longer imports ``scipy.stats`` (twice the import time of
``scipy.special``) for its normal and t quantiles; each call site evaluates the function
``scipy.stats`` evaluates. Compared with ``==`` (NaN with NaN), limits included.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from generator.stats.wide import t_quantile

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999, 1 - 1e-9, 0.9999999999999999]
PROBABILITIES = sorted({0.5 + c / 2.0 for c in LEVELS} | {0.0, 1.0, 1e-300, 0.3, 1.5, -0.1})
DF = np.array([-1.0, 0.0, np.nan, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 29.0, 1e3, 1e9, np.inf])


@pytest.mark.parametrize("p", PROBABILITIES)
def test_t_quantile_is_scipy_stats_t_ppf(p: float) -> None:
    expected = np.asarray(stats.t.ppf(p, DF), dtype=np.float64)
    assert np.array_equal(t_quantile(p, DF), expected, equal_nan=True)
    for df in DF:
        one = np.asarray(stats.t.ppf(p, df), dtype=np.float64)
        assert np.array_equal(t_quantile(p, np.asarray(df)), one, equal_nan=True)


@pytest.mark.parametrize("p", [*PROBABILITIES, float("nan")])
def test_ndtri_is_scipy_stats_norm_ppf(p: float) -> None:
    assert np.array_equal(special.ndtri(p), stats.norm.ppf(p), equal_nan=True)


def test_ndtr_is_scipy_stats_norm_cdf() -> None:
    x = np.array([-np.inf, -40.0, -8.0, -1.96, -0.5, 0.0, 1e-12, 0.7, 1.96, 8.0, 40.0, np.inf])
    assert np.array_equal(special.ndtr(x), stats.norm.cdf(x), equal_nan=True)
    rng = np.random.default_rng(19)
    many = rng.normal(0.0, 3.0, 10_000)
    assert np.array_equal(special.ndtr(many), stats.norm.cdf(many))
    q = rng.uniform(0.0, 1.0, 10_000)
    assert np.array_equal(special.ndtri(q), stats.norm.ppf(q))
    df = rng.uniform(1.0, 200.0, 10_000)
    assert np.array_equal(t_quantile(0.975, df), stats.t.ppf(0.975, df))


def test_the_package_does_not_import_scipy_stats() -> None:
    import subprocess
    import sys

    code = (
        "import sys, generator.stats.intervals, generator.stats.scores, generator.stats.paired, "
        "generator.stats.agreement, generator.figures.volume; "
        "print('scipy.stats' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
