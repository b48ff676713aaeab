"""Run the gates over a volume (``probepress check`` and ``probepress gate``)."""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from generator.gates import GATES, GateContext, GateResult
from generator.progress import Progress
from generator.store import Bounds, Layout, VolumeData, load_volume


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
) -> CheckReport:
    """Read ``volume`` once and run the named gates (all nine by default), collecting
    every finding before deciding.

    Raises:
        UsageError, InputError: the volume cannot be read at all (``volume.yaml`` or the
            bank is unreadable); any other problem becomes a preflight finding.

    ``options`` reach every gate through its context (``repo_root``: the git checkout
    the inputs come from, when the layout is a staging copy). ``data``: the volume as
    already read for the gates (with the private store, leniently); ``loaded``: other
    volumes already read in this run.
    """
    if data is None:
        data = load_volume(layout, volume, bounds=bounds, strict=False)
    ctx = GateContext(data, dict(options or {}), dict(loaded or {}))
    chosen = [g for g in GATES if names is None or g.NAME in names]
    results: dict[str, GateResult] = {}
    # The volume's rows (hundreds of thousands of tuples) live until the gates are done;
    # frozen, the cyclic garbage collector stops walking them on every full collection.
    gc.freeze()
    try:
        for module in chosen:
            if progress is not None:
                progress(module.NAME)
            results[module.NAME] = module.check(ctx)
    finally:
        gc.unfreeze()
    return CheckReport(volume, tuple(results[m.NAME] for m in chosen), strict)
