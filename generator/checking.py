"""Run the gates over a volume (``probepress check`` and ``probepress gate``)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from types import ModuleType
from typing import Any

from generator.forked import Forked, usable_cpus
from generator.gates import GATES, GateContext, GateResult, holdout
from generator.store import Bounds, Layout, load_volume


@dataclass(frozen=True)
class CheckReport:
    """Every gate's result for one volume."""

    volume: str
    results: tuple[GateResult, ...]
    strict: bool

    @property
    def passed(self) -> bool:
        """True when no gate failed."""
        return all(r.passed(self.strict) for r in self.results)

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "volume": self.volume,
            "passed": self.passed,
            "strict": self.strict,
            "gates": [r.as_json(self.strict) for r in self.results],
        }


PARALLEL_OPTION = "parallel"
"""Gate option: True or False forces the leak scan aside (or not); by default it runs in
a forked child when the process has a single thread, there is a second CPU and the
volume has ``PARALLEL_MIN_DRAWS``."""
PARALLEL_MIN_DRAWS = 20_000
"""Below this many draws the scan takes about as long as forking: it runs in line."""


def _scan_aside(ctx: GateContext, chosen: Sequence[ModuleType]) -> bool:
    """Whether the holdout gate's leak scan runs in a forked child beside the other gates."""
    if holdout not in chosen or len(chosen) < 2 or not ctx.data.bank.private:
        return False
    forced = ctx.options.get(PARALLEL_OPTION)
    if forced is not None:
        return bool(forced)
    if threading.active_count() > 1:
        return False  # forking a threaded process can leave the child waiting on a lock
    draws = sum(len(b.draws) for b in ctx.data.bundles.values())
    return usable_cpus() >= 2 and draws >= PARALLEL_MIN_DRAWS


def run_gates(
    layout: Layout,
    volume: str,
    names: Sequence[str] | None = None,
    *,
    strict: bool = False,
    bounds: Bounds | None = None,
    progress: Callable[[str], None] | None = None,
    options: dict[str, Any] | None = None,
) -> CheckReport:
    """Read ``volume`` once and run the named gates (all nine by default), collecting
    every finding before deciding.

    Raises:
        UsageError, InputError: the volume cannot be read at all (``volume.yaml`` or the
            bank is unreadable); any other problem becomes a preflight finding.

    ``options`` reach every gate through its context (``repo_root``: the git checkout
    the inputs come from, when the layout is a staging copy; ``parallel``: see
    ``PARALLEL_OPTION``).
    """
    data = load_volume(layout, volume, bounds=bounds, strict=False)
    ctx = GateContext(data, dict(options or {}))
    chosen = [g for g in GATES if names is None or g.NAME in names]
    results: dict[str, GateResult] = {}
    order = list(chosen)
    # The volume's rows (hundreds of thousands of tuples) live until the gates are done;
    # frozen, the cyclic garbage collector stops walking them on every full collection.
    gc.freeze()
    try:
        if _scan_aside(ctx, chosen):
            ctx.options[holdout.LEAKS_OPTION] = Forked(partial(holdout.leak_scan, ctx))
            order.remove(holdout)  # collected last, when the child has had the most time
            order.append(holdout)
        for module in order:
            if progress is not None:
                progress(module.NAME)
            results[module.NAME] = module.check(ctx)
    finally:
        gc.unfreeze()
        aside = ctx.options.pop(holdout.LEAKS_OPTION, None)
        if aside is not None and holdout.NAME not in results:  # a gate raised: not wanted
            aside.cancel()
    return CheckReport(volume, tuple(results[m.NAME] for m in chosen), strict)
