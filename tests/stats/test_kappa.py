"""Cohen's κ, its interval and the error rates, checked against scikit-learn and by
simulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.stats.errors import StatsError
from generator.stats.kappa import cohen_kappa, error_rates, share

LABELS = ("pass", "fail")
pairs = st.lists(
    st.tuples(st.sampled_from(LABELS), st.sampled_from(LABELS)), min_size=1, max_size=60
)


@given(pairs)
def test_kappa_is_scikit_learns(units: list[tuple[str, str]]) -> None:
    a, b = [u[0] for u in units], [u[1] for u in units]
    k = cohen_kappa(a, b, LABELS)
    assert k.observed == pytest.approx(sum(x == y for x, y in units) / len(units))
    if k.value is None:  # one label on both sides: chance agreement 1
        assert len(set(a) | set(b)) == 1
        return
    from sklearn.metrics import cohen_kappa_score  # seconds to import: only where it runs

    assert k.value == pytest.approx(cohen_kappa_score(a, b, labels=list(LABELS)), abs=1e-9)
    assert k.ci_lo is not None and k.ci_hi is not None
    assert -1 <= k.ci_lo <= k.value <= k.ci_hi <= 1


def test_perfect_agreement_has_a_zero_width_interval() -> None:
    k = cohen_kappa(["pass", "fail", "pass"], ["pass", "fail", "pass"], LABELS)
    assert (k.value, k.se, k.ci_lo, k.ci_hi) == (1.0, 0.0, 1.0, 1.0)


def test_kappa_is_undefined_when_both_raters_use_one_label() -> None:
    k = cohen_kappa(["pass"] * 4, ["pass"] * 4, LABELS)
    assert k.value is None and k.observed == 1.0 and k.ci_lo is None


def test_fleiss_cohen_everitt_standard_error_by_hand() -> None:
    # 2x2 table of proportions [[.4, .1], [.1, .4]] over n = 100: p_o = .8, p_e = .5,
    # κ = .6; FCE variance = [.4(1-.4)^2*2 + .16*(.1*1 + .1*1) - (.6-.2)^2] / (100*.25)
    a = ["pass"] * 50 + ["fail"] * 50
    b = ["pass"] * 40 + ["fail"] * 10 + ["pass"] * 10 + ["fail"] * 40
    k = cohen_kappa(a, b, LABELS)
    expected = (2 * 0.4 * 0.6**2 + 0.16 * 0.2 - 0.4**2) / 25
    assert k.value == pytest.approx(0.6)
    assert k.se == pytest.approx(expected**0.5)


def test_bad_input_is_refused() -> None:
    with pytest.raises(StatsError, match="pair them first"):
        cohen_kappa(["pass"], [], LABELS)
    with pytest.raises(StatsError, match="not a declared category"):
        cohen_kappa(["maybe"], ["pass"], LABELS)
    with pytest.raises(StatsError, match="at least one unit"):
        cohen_kappa([], [], LABELS)


def test_the_interval_covers_near_nominal() -> None:
    """Two raters with true κ = 0.6 on 150 units: the 95% interval covers it in about
    95% of 2,000 seeded replications."""
    rng = np.random.default_rng(15)
    # joint cell probabilities with p_o = 0.8, p_e = 0.5, κ = 0.6
    cells = np.array([0.4, 0.1, 0.1, 0.4])
    hits = 0
    runs = 2000
    for counts in rng.multinomial(150, cells, size=runs):
        pp, pf, fp, ff = (int(c) for c in counts)
        a = ["pass"] * (pp + pf) + ["fail"] * (fp + ff)
        b = ["pass"] * pp + ["fail"] * pf + ["pass"] * fp + ["fail"] * ff
        k = cohen_kappa(a, b, LABELS)
        assert k.ci_lo is not None and k.ci_hi is not None
        hits += k.ci_lo <= 0.6 <= k.ci_hi
    assert 0.93 <= hits / runs <= 0.97


def test_error_rates_count_against_the_reference() -> None:
    judge = [True, True, False, False, True]
    reference = [True, False, False, True, True]
    rates = error_rates(judge, reference)
    assert (rates.false_accept.k, rates.false_accept.n) == (1, 2)
    assert (rates.false_reject.k, rates.false_reject.n) == (1, 3)
    assert share(0, 0).value is None


def test_wilson_interval_is_the_textbook_one() -> None:
    s = share(81, 263)  # Newcombe (1998), example: 81/263 -> 0.2553..0.3662
    assert (round(s.lo or 0, 4), round(s.hi or 0, 4)) == (0.2553, 0.3662)
