"""Decimal strings with declared precision."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.stats import StatsError, percent_str, to_decimal_str

finite = st.floats(allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize(
    ("x", "places", "expected"),
    [
        (0.125, 2, "0.12"),  # half to even
        (0.375, 2, "0.38"),
        (2.675, 2, "2.68"),  # the repr, not the binary value 2.67499999...
        (1.5, 0, "2"),
        (2.5, 0, "2"),
        (-0.0004, 3, "0.000"),  # never -0.000
        (-0.0, 2, "0.00"),
        (-0.0006, 3, "-0.001"),
        (1e-7, 3, "0.000"),
        (1e21, 1, "1000000000000000000000.0"),
        (0.1 + 0.2, 2, "0.30"),
    ],
)
def test_examples(x: float, places: int, expected: str) -> None:
    assert to_decimal_str(x, places) == expected


@pytest.mark.parametrize(
    ("x", "places", "expected"),
    [(0.1234, 1, "12.3%"), (0.12345, 2, "12.34%"), (1.0, 0, "100%"), (-0.00001, 1, "0.0%")],
)
def test_percent_examples(x: float, places: int, expected: str) -> None:
    assert percent_str(x, places) == expected


@given(finite, st.integers(0, 12))
def test_shape_sign_and_error_bound(x: float, places: int) -> None:
    text = to_decimal_str(x, places)
    pattern = r"-?\d+" + (rf"\.\d{{{places}}}" if places else "")
    assert re.fullmatch(pattern, text)
    assert not re.fullmatch(r"-0(\.0*)?", text)
    assert abs(Decimal(text) - Decimal(repr(x))) <= Decimal(5).scaleb(-places - 1)


@given(st.integers(-(10**12), 10**12), st.integers(0, 6))
def test_round_trip_of_written_decimals(units: int, places: int) -> None:
    # A decimal with at most 13 significant digits survives float() and comes back as is.
    written = f"{Decimal(units).scaleb(-places):.{places}f}"
    assert to_decimal_str(float(written), places) == written


@given(finite.filter(lambda v: abs(v) < 1e12), st.integers(0, 6))
def test_idempotent(x: float, places: int) -> None:
    once = to_decimal_str(x, places)
    assert to_decimal_str(float(once), places) == once


@given(st.floats(-10, 10, allow_nan=False), st.integers(0, 4))
def test_percent_is_decimal_string_of_hundred_times(x: float, places: int) -> None:
    assert percent_str(x, places) == to_decimal_str(float(Decimal(repr(x)).scaleb(2)), places) + "%"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_refuses_non_finite(bad: float) -> None:
    with pytest.raises(StatsError, match="decimal string"):
        to_decimal_str(bad, 2)


@pytest.mark.parametrize("places", [-1, 1.5, True])
def test_refuses_bad_places(places: object) -> None:
    with pytest.raises(StatsError, match="places"):
        to_decimal_str(1.0, places)  # type: ignore[arg-type]
