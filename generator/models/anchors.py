"""Anchor probes (``bundles/<volume>/anchor_probes.jsonl``): the live probe that chose
each anchor (DESIGN §14).

An anchor is a reference model measured in every volume; which model it is, is evidence
in its own right. Before the run the maintainer probes each anchor candidate through the
endpoint the run will use: a few calls, each with its HTTP-level outcome, its latency and
the reasoning tokens it burned (when the provider reports them). The runner's log of that
probe (:class:`AnchorProbeLog`, an import format) is recorded with ``probepress
probe-anchor``, which adds the API string and the probepress version that recorded it
(:class:`AnchorProbe`, one line of the volume's file, oldest first). The config gate
requires a live, recent probe of every anchor through its run's provider; the jury card
and the site's jury page show it.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import AwareDatetime, Field, model_validator

from generator.models.base import Name, Part, Record, Sha256
from generator.models.bundle import Runner

ANCHOR_PROBES_FILE = "anchor_probes.jsonl"
"""The file, in the volume's folder beside ``volume.yaml``."""
DEFAULT_PROBE_MAX_AGE_DAYS = 30
"""The maximum age of an anchor probe ``probepress init`` pre-registers."""
MAX_PROBE_CALLS = 1_000

CallOutcome = Literal[
    "answered", "empty", "content_filter", "http_error", "timeout", "connection_error"
]
"""What one probe call came back with: an answer (HTTP 2xx with text), an empty answer, a
refusal by the provider's filter, an HTTP error status, no response in time, or no
connection at all."""
ANSWERED: CallOutcome = "answered"
NO_RESPONSE: tuple[CallOutcome, ...] = ("timeout", "connection_error")


class ProbeCall(Part):
    """One call of an anchor probe."""

    outcome: CallOutcome
    """``answered``, ``empty``, ``content_filter``, ``http_error``, ``timeout`` or
    ``connection_error``."""
    http_status: int | None = Field(default=None, ge=100, le=599)
    """The HTTP status of the response (omitted when no response came: a timeout or a
    connection error)."""
    latency_ms: int | None = Field(default=None, ge=0, le=3_600_000)
    """Milliseconds from sending the request to the last byte of the response (required
    for an answer; omitted when no response came)."""
    output_tokens: int | None = Field(default=None, ge=0, le=10_000_000)
    """Output tokens the provider billed for the call (omitted: not reported)."""
    reasoning_tokens: int | None = Field(default=None, ge=0, le=10_000_000)
    """Reasoning tokens the provider reported for the call (omitted: not reported by the
    provider; ``0``: reported as none)."""

    @model_validator(mode="after")
    def _consistent(self) -> ProbeCall:
        status, ok = (
            self.http_status,
            self.http_status is not None and 200 <= self.http_status < 300,
        )
        if self.outcome in NO_RESPONSE:
            if status is not None:
                raise ValueError(f"a {self.outcome} got no response: omit http_status")
        elif status is None:
            raise ValueError(f"an {self.outcome} call had a response: give its http_status")
        elif self.outcome == "http_error" and ok:
            raise ValueError(f"http_status {status} is a success, not an http_error")
        elif self.outcome in ("answered", "empty") and not ok:
            raise ValueError(f"an {self.outcome} call has a 2xx http_status, not {status}")
        if self.outcome == ANSWERED and self.latency_ms is None:
            raise ValueError("an answered call gives its latency_ms")
        return self


class AnchorProbeLog(Record):
    """A runner's log of one live probe of an anchor candidate: the file ``probepress
    probe-anchor VOLUME CANDIDATE --from FILE`` records (JSON or YAML)."""

    provider: Name
    """The serving provider the probe reached (must be the anchor's run's, which the
    config gate compares with its bundle)."""
    gateway: Name
    """The gateway or API the probe called."""
    probed_at: AwareDatetime
    """When the probe started, with its UTC offset (e.g. ``2026-11-03T09:14:00Z``)."""
    ran_by: Name
    """Who ran the probe (a person's name or handle)."""
    runner: Runner
    """The program that made the calls, with its version."""
    prompt_sha256: Sha256 | None = None
    """SHA-256 of the probe's prompt (omitted: not recorded)."""
    calls: list[ProbeCall] = Field(min_length=1, max_length=MAX_PROBE_CALLS)
    """Every call of the probe, in the order made."""
    demonstration: bool = False
    """True for demonstration data (the example's probes); every output then says so."""

    def probed_on(self) -> dt.date:
        """The probe's day in UTC."""
        return self.probed_at.astimezone(dt.UTC).date()


class AnchorProbe(AnchorProbeLog):
    """One line of ``bundles/<volume>/anchor_probes.jsonl``: a recorded anchor probe."""

    anchor: Name
    """The exact API string probed (a listed anchor, or an anchor candidate the volume
    does not list, e.g. one the probe ruled out)."""
    probepress_version: Name
    """The probepress version that recorded the probe."""


__all__ = [
    "ANCHOR_PROBES_FILE",
    "DEFAULT_PROBE_MAX_AGE_DAYS",
    "AnchorProbe",
    "AnchorProbeLog",
    "CallOutcome",
    "ProbeCall",
]
