"""Tier 0: the mechanical checks that decide pass or fail without a judge."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from generator.models.bank import NumberCheck, PatternCheck

# A number as people write it: optional sign, digits with optional thousands separators,
# optional decimal part. Thousands separators are dropped before comparing.
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-−]?\d+(?:\.\d+)?")


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.MULTILINE)


def last_number(text: str) -> Decimal | None:
    """The last number written in ``text``, or None."""
    found = _NUMBER.findall(text)
    if not found:
        return None
    raw = found[-1].replace(",", "").replace("−", "-")
    try:
        return Decimal(raw)
    except InvalidOperation:
        return None


def run_check(check: NumberCheck | PatternCheck, response: str) -> bool:
    """True when ``response`` passes ``check``."""
    if isinstance(check, NumberCheck):
        number = last_number(response)
        return number is not None and abs(number - check.expected) <= check.tolerance
    if check.max_words is not None and len(response.split()) > check.max_words:
        return False
    if any(_compiled(p).search(response) is None for p in check.required):
        return False
    return not any(_compiled(p).search(response) for p in check.forbidden)
