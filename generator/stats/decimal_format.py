"""Numbers as decimal strings with declared precision, never as float reprs.

Conversion goes through ``repr(x)``: the shortest decimal that round-trips to the same
float, i.e. the number a reader of the data would write down. Rounding is half-to-even
on that decimal (so 0.125 -> "0.12", 2.675 -> "2.68" although the binary double is
slightly below 2.675). A result that rounds to zero is written without a sign.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache

from generator.stats.errors import StatsError


def to_decimal_str(x: float, places: int) -> str:
    """Format ``x`` with exactly ``places`` digits after the point.

    Args:
        x: A finite number.
        places: Digits after the decimal point, 0 or more (0 gives an integer string).

    Returns:
        E.g. ``to_decimal_str(0.1234, 3) == "0.123"``; never ``"-0.000"``.

    Raises:
        StatsError: If ``x`` is NaN or infinite, or ``places`` is negative.
    """
    return _format(_exact(x), places)


def percent_str(x: float, places: int = 1) -> str:
    """Format a proportion as a percentage: ``percent_str(0.1234) == "12.3%"``.

    The multiplication by 100 is done in decimal arithmetic, so it adds no binary
    rounding of its own.

    Args:
        x: A finite proportion (any finite value is accepted, e.g. a difference).
        places: Digits after the decimal point of the percentage.

    Returns:
        The percentage with ``places`` decimals and a ``%`` sign.

    Raises:
        StatsError: If ``x`` is NaN or infinite, or ``places`` is negative.
    """
    return _format(_exact(x).scaleb(2), places) + "%"


def _exact(x: float) -> Decimal:
    """The decimal value of ``repr(float(x))``."""
    value = float(x)
    if not math.isfinite(value):
        raise StatsError(f"cannot write {value!r} as a decimal string")
    return Decimal(repr(value))


def _format(value: Decimal, places: int) -> str:
    """Round half-even to ``places`` decimals and write in fixed notation without ``-0``."""
    if isinstance(places, bool) or not isinstance(places, int) or places < 0:
        raise StatsError(f"places must be a non-negative integer, got {places!r}")
    # Enough precision that quantize never fails for large magnitudes.
    rounded = value.quantize(
        _quantum(places), context=_context(max(28, value.adjusted() + places + 3))
    )
    if rounded.is_zero():
        rounded = rounded.copy_abs()
    return f"{rounded:f}"


@lru_cache(maxsize=64)  # bounded: a hostile magnitude must not grow it without end
def _quantum(places: int) -> Decimal:
    """``10 ** -places`` (a figure computation formats tens of thousands of numbers)."""
    return Decimal(1).scaleb(-places)


@lru_cache(maxsize=64)
def _context(prec: int) -> Context:
    """The rounding context of ``prec`` digits. Shared: a context's flags only record what
    happened (its traps, as a new one's, raise whatever they record)."""
    return Context(prec=prec, rounding=ROUND_HALF_EVEN)
