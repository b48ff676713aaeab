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
from generator.demo.spec import CandidateSpec, DemoSpec, VolumeSpec
from generator.hashing import sha256_text
from generator.models.anchors import AnchorProbe

CALLS = 5
PROMPT = "Reply with the single word: ready"
REJECTED = "demo-ibis/ibis-ref-0"
"""The anchor candidate the example probed and did not choose (it never answered)."""
RUNNER = {"name": "demo-runner", "version": "1.4.2"}


def _answered(rng: random.Random, reports: bool) -> dict[str, Any]:
    return {
        "outcome": "answered",
        "http_status": 200,
        "latency_ms": rng.randint(420, 2600),
        "output_tokens": rng.randint(2, 6),
        "reasoning_tokens": rng.randint(140, 900) if reports else None,
    }


def _unanswered(rng: random.Random, n: int) -> dict[str, Any]:
    if n % 2:
        return {"outcome": "http_error", "http_status": 503, "latency_ms": rng.randint(80, 240)}
    return {"outcome": "timeout"}


def _probe(
    api: str, gateway: str, provider: str, at: dt.datetime, calls: list[dict[str, Any]]
) -> AnchorProbe:
    return AnchorProbe.model_validate(
        {
            "anchor": api,
            "provider": provider,
            "gateway": gateway,
            "probed_at": at,
            "ran_by": "demo-maintainer (demonstration)",
            "runner": RUNNER,
            "prompt_sha256": sha256_text(PROMPT),
            "calls": calls,
            "demonstration": True,
            "probepress_version": __version__,
        }
    )


def _when(rng: random.Random, run_date: dt.date) -> dt.datetime:
    day = run_date - dt.timedelta(days=rng.randint(1, 5))
    return dt.datetime.combine(day, dt.time(rng.randint(8, 17), rng.randint(0, 59)), dt.UTC)


def anchor_probes(
    spec: DemoSpec, vol: VolumeSpec, run_dates: dict[str, dt.date]
) -> list[AnchorProbe]:
    """The volume's recorded probes, oldest first (none without anchors)."""
    anchors: list[CandidateSpec] = [c for c in vol.candidates if c.role == "anchor"]
    out = []
    for n, cand in enumerate(anchors):
        rng = random.Random(f"{spec.seed}:{vol.id}:probe:{cand.api}")
        at = _when(rng, run_dates[cand.api])
        calls = [_answered(rng, reports=n > 0) for _ in range(CALLS)]
        out.append(_probe(cand.api, cand.gateway, cand.provider, at, calls))
    if len(anchors) >= 2:
        rng = random.Random(f"{spec.seed}:{vol.id}:probe:{REJECTED}")
        at = _when(rng, min(run_dates[c.api] for c in anchors))
        calls = [_unanswered(rng, n) for n in range(CALLS)]
        out.append(_probe(REJECTED, anchors[0].gateway, anchors[0].provider, at, calls))
    return sorted(out, key=lambda p: (p.probed_at, p.anchor))
