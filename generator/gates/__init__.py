"""The nine publication gates, in the order they run.

Each gate module exposes ``NAME``, a docstring saying what it checks and why, and
``check(ctx) -> GateResult``: its checks of the inputs (the volume as read, the figures
registry, the commit). The gates in ``WITH_OUTPUTS`` also expose ``check_outputs(ctx) ->
GateResult``: their checks of the finished tree (the leak scan of every public file, the
downloads, citations, the archive), which ``publish`` runs once, after the site is built;
``check`` runs both parts and reports one verdict per gate. Gates read; they never
repair, print, exit or write a cache.
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

WITH_OUTPUTS: tuple[ModuleType, ...] = (holdout, publishing)
"""The gates with a part on the finished tree (``check_outputs``)."""

__all__ = ["GATES", "NAMES", "WITH_OUTPUTS", "GateContext", "GateResult"]
