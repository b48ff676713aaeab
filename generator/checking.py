"""Run the gates over a volume (``probepress check``, ``probepress gate`` and ``publish``).

A gate has a part on the inputs (``check``) and, for the gates in
``gates.WITH_OUTPUTS``, a part on the finished tree (``check_outputs``). ``check`` runs
both on the tree as it is; ``publish`` runs the input parts before it renders anything
and the output parts once, on the finished staging tree. Gates only read the result
cache: the entries they learned come back in their results and are stored here.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

from generator.gates import GATES, WITH_OUTPUTS, GateContext, GateResult
from generator.progress import Progress, expect
from generator.store import Bounds, Layout, VolumeData, load_volume

Phase = Literal["inputs", "outputs"]
BOTH: tuple[Phase, ...] = ("inputs", "outputs")


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


def _parts(module: ModuleType, phases: Sequence[Phase]) -> list[Callable[[GateContext], Any]]:
    """The parts of a gate to run, input part first."""
    parts = [module.check] if "inputs" in phases else []
    if "outputs" in phases and module in WITH_OUTPUTS:
        parts.append(module.check_outputs)
    return parts


def _joined(name: str, results: list[GateResult]) -> GateResult:
    """One gate's verdict over the parts that ran (findings in the order they ran)."""
    return GateResult(
        name,
        tuple(f for r in results for f in r.findings),
        tuple(p for r in results for p in r.pending),
        tuple(n for r in results for n in r.notes),
        tuple(e for r in results for e in r.learned),
    )


def run_gates(
    layout: Layout,
    volume: str,
    names: Sequence[str] | None = None,
    *,
    strict: bool = False,
    bounds: Bounds | None = None,
    progress: Progress | None = None,
    options: dict[str, Any] | None = None,
    data: VolumeData | None = None,
    loaded: Mapping[str, VolumeData] | None = None,
    phases: Sequence[Phase] = BOTH,
) -> CheckReport:
    """Read ``volume`` once and run the named gates (all nine by default), collecting
    every finding before deciding; store what they learned in the result cache.

    Raises:
        UsageError, InputError: the volume cannot be read at all (``volume.yaml`` or the
            bank is unreadable); any other problem becomes a preflight finding.

    ``options`` reach every gate through its context (``repo_root``: the git checkout
    the inputs come from, when the layout is a staging copy). ``data``: the volume as
    already read for the gates (with the private store, leniently); ``loaded``: other
    volumes already read in this run. ``phases``: the gates' parts to run (a gate with
    no part in them reports nothing and is left out of the report).
    """
    if data is None:
        data = load_volume(layout, volume, bounds=bounds, strict=False)
    store = layout.cache
    ctx = GateContext(data, dict(options or {}), dict(loaded or {}), memo=store)
    chosen = [g for g in GATES if (names is None or g.NAME in names) and _parts(g, phases)]
    results: list[GateResult] = []
    # The volume's rows (hundreds of thousands of tuples) live until the gates are done;
    # frozen, the cyclic garbage collector stops walking them on every full collection.
    gc.freeze()
    expect(progress, len(chosen))
    try:
        for module in chosen:
            if progress is not None:
                progress(module.NAME)
            results.append(_joined(module.NAME, [part(ctx) for part in _parts(module, phases)]))
    finally:
        gc.unfreeze()
    if store is not None:
        for result in results:
            store.store(result.learned)
    return CheckReport(volume, tuple(results), strict)
