"""Fixtures of the leak scanner tests."""

from __future__ import annotations

import pytest

from generator.leaks import LeakIndex, Secret
from tests.leaks.leak_samples import CHINESE, PROMPT, RESPONSE, SHORT


@pytest.fixture(scope="module")
def secrets() -> list[Secret]:
    """The held-out texts most tests scan for."""
    return [
        Secret("item:h-0003", "prompt", PROMPT),
        Secret("draw:vol-001/acme-m1/h-0003/A/2", "response", RESPONSE),
        Secret("item:h-0007", "prompt", CHINESE),
        Secret("item:h-0009", "prompt", SHORT),
    ]


@pytest.fixture(scope="module")
def index(secrets: list[Secret]) -> LeakIndex:
    """An index over ``secrets`` with the default thresholds."""
    return LeakIndex.build(secrets)
