"""circuit-breaker: provider failures did not eat the evidence, and nobody re-rolled answers.

Per bundle, the share of draws lost to provider or transport failures stays under the
pre-registered threshold (a tripped bundle blocks the whole volume); a retry follows only
a declared failure class, never a valid answer (re-asking until an answer looks better
would bias the rate); no draw exceeds the protocol's attempts.
"""

from __future__ import annotations

from generator.gates.base import Findings, GateContext, GateResult

NAME = "circuit-breaker"


def check(ctx: GateContext) -> GateResult:
    """Run the circuit-breaker gate."""
    out = Findings(NAME)
    protocol = ctx.data.volume.protocol
    limit = ctx.data.volume.thresholds.circuit_breaker_error_share
    retryable = set(protocol.retry_on)
    notes = []
    for bundle in ctx.bundles():
        path = ctx.shown(bundle, "draws.jsonl")
        total = len(bundle.draws)
        lost = sum(row.lost for row in bundle.draws)
        for row in bundle.draws:
            label = f"{row.key.item} {row.key.half}{row.key.draw}"
            if len(row.statuses) > protocol.max_attempts:
                out.add(
                    "max-attempts",
                    path,
                    row.line,
                    f"{label} took {len(row.statuses)} attempts; the protocol allows "
                    f"{protocol.max_attempts}",
                )
            for n, status in enumerate(row.statuses[:-1], start=1):
                if status not in retryable:
                    out.add(
                        "retry-after-answer",
                        path,
                        row.line,
                        f"{label} was retried after attempt {n} returned {status!r}; retries "
                        f"are allowed only after {', '.join(sorted(retryable))}",
                        "keep the first valid answer; never re-ask to get a different one",
                    )
                    break
        if total:
            share = lost / total
            notes.append(f"{bundle.slug}: {lost}/{total} draws lost ({share:.1%})")
            if share >= limit:
                out.add(
                    "tripped",
                    path,
                    None,
                    f"{lost} of {total} draws ({share:.1%}) were lost to provider or transport "
                    f"failures, at or over the pre-registered {float(limit):.1%}",
                    "re-run the bundle when the provider is healthy; a tripped bundle blocks "
                    "the volume",
                )
    return out.result(notes=notes)
