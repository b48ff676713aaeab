"""The nine publication gates, in the order they run.

Each gate module exposes ``NAME``, a docstring saying what it checks and why, and
``check(ctx) -> GateResult``. Gates read; they never repair, print or exit.
"""

from __future__ import annotations

from types import ModuleType

from generator.gates import (
    agreement,
    circuit_breaker,
    config,
    holdout,
    judge_conflict,
    naming,
    preflight,
    publishing,
    recusal,
)
from generator.gates.base import GateContext, GateResult

GATES: tuple[ModuleType, ...] = (
    preflight,
    config,
    circuit_breaker,
    judge_conflict,
    recusal,
    agreement,
    holdout,
    naming,
    publishing,
)

NAMES: tuple[str, ...] = tuple(g.NAME for g in GATES)


__all__ = ["GATES", "NAMES", "GateContext", "GateResult"]
