"""The example's anchor probes (``bundles/<volume>/anchor_probes.jsonl``): demonstration
data, labelled as such, in the shape a maintainer records with ``probepress
probe-anchor``.

Every anchor is probed a few days before its run through the endpoint the run uses:
five calls, each answered, with simulated latencies; the first anchor's provider does not
report reasoning tokens, the others' do. A volume with two or more anchors also records
the probe of an anchor candidate it did not choose (it never answered), the evidence
that the choice was made by a probe.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from generator import __version__
from generator.demo import RUNNER, read_data
from generator.demo.spec import CandidateSpec, DemoSpec, VolumeSpec
from generator.hashing import sha256_text
from generator.models.anchors import AnchorProbe

_PROBE = read_data("simulation.yaml")["anchor_probe"]


def _call(rng: random.Random, n: int, answered: bool, reports: bool) -> dict[str, Any]:
    """The ``n``-th call of a probe: answered, or an HTTP error and a timeout in turn."""
    if answered:
        answer = {"outcome": "answered", "http_status": 200, "latency_ms": rng.randint(420, 2600)}
        answer["output_tokens"] = rng.randint(2, 6)
        return answer | {"reasoning_tokens": rng.randint(140, 900) if reports else None}
    if n % 2:
        return {"outcome": "http_error", "http_status": 503, "latency_ms": rng.randint(80, 240)}
    return {"outcome": "timeout"}


def _probe(
    seed: str, api: str, via: CandidateSpec, run_date: dt.date, answered: bool, reports: bool
) -> AnchorProbe:
    """The probe of ``api`` through ``via``'s endpoint, one to five days before its run."""
    rng = random.Random(f"{seed}:{api}")
    day = run_date - dt.timedelta(days=rng.randint(1, 5))
    at = dt.datetime.combine(day, dt.time(rng.randint(8, 17), rng.randint(0, 59)), dt.UTC)
    calls = [_call(rng, n, answered, reports) for n in range(_PROBE["calls"])]
    return AnchorProbe.model_validate(
        {
            "anchor": api,
            "provider": via.provider,
            "gateway": via.gateway,
            "probed_at": at,
            "ran_by": _PROBE["ran_by"],
            "runner": RUNNER,
            "prompt_sha256": sha256_text(_PROBE["prompt"]),
            "calls": calls,
            "demonstration": True,
            "probepress_version": __version__,
        }
    )


def anchor_probes(
    spec: DemoSpec, vol: VolumeSpec, run_dates: dict[str, dt.date]
) -> list[AnchorProbe]:
    """The volume's recorded probes, oldest first (none without anchors)."""
    seed = f"{spec.seed}:{vol.id}:probe"
    anchors = [c for c in vol.candidates if c.role == "anchor"]
    out = [_probe(seed, c.api, c, run_dates[c.api], True, n > 0) for n, c in enumerate(anchors)]
    if len(anchors) >= 2:
        first = min(run_dates[c.api] for c in anchors)
        out.append(_probe(seed, _PROBE["rejected"], anchors[0], first, False, False))
    return sorted(out, key=lambda p: (p.probed_at, p.anchor))
