"""Anchor probes: read a volume's ``anchor_probes.jsonl``, summarise a probe, record one.

A probe's summary is derived from its calls, never declared: liveness (every call
answered, some, or none), the HTTP-level outcomes, latency (median and max over the
answered calls) and the reasoning-token burn per answered call (or "not reported by
provider"). ``record_probe`` is what ``probepress probe-anchor`` runs: it validates a
runner's probe log against the volume and adds it to the file, all or nothing.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Literal, NoReturn

from pydantic import TypeAdapter, ValidationError

from generator import __version__
from generator.canonical import dumps_line, write_bytes
from generator.errors import InputError, Problem, UsageError, escape
from generator.models.anchors import ANCHOR_PROBES_FILE, ANSWERED, AnchorProbe, AnchorProbeLog
from generator.models.base import Name, slugify
from generator.models.volume import CandidateRef, Volume
from generator.store.jsonl import Bounds, Problems, iter_jsonl, load_document
from generator.store.paths import Layout, file_name_problem
from generator.store.rowtypes import BundleData

Liveness = Literal["live", "intermittent", "not live"]
NOT_REPORTED = "not reported by provider"

FIGURE_PREFIX = "anchor-probe"
"""Figures ``<vol>/anchor-probe/<slug>``: one per probed model (``generator.figures.anchors``)."""

_API: TypeAdapter[str] = TypeAdapter(Name)

Numbered = tuple[tuple[int, AnchorProbe], ...]
"""Probes with their 1-based line numbers, in file order."""


@dataclass(frozen=True)
class ProbeSummary:
    """What a probe showed, derived from its calls."""

    calls: int
    answered: int
    outcomes: tuple[str, ...]
    """Each outcome with its count and HTTP status, most frequent first, e.g.
    ``4 answered, HTTP 200`` or ``1 timeout, no response``."""
    latency_median_ms: Decimal | None
    """Median latency of the answered calls (None: no call answered)."""
    latency_max_ms: int | None
    reasoning_median: Decimal | None
    """Median reasoning tokens per answered call that reported them (None: none did)."""
    reasoning_max: int | None
    reasoning_reported: int
    """Answered calls whose provider reported their reasoning tokens."""

    @property
    def liveness(self) -> Liveness:
        """``live`` (every call answered), ``intermittent`` (some) or ``not live`` (none)."""
        if self.answered == self.calls:
            return "live"
        return "intermittent" if self.answered else "not live"

    def answered_text(self) -> str:
        """``5 of 5 calls answered``."""
        return f"{self.answered} of {self.calls} {'call' if self.calls == 1 else 'calls'} answered"

    def latency_text(self) -> str:
        """``median 1.24 s, max 2.90 s`` (or ``not measured: no call answered``)."""
        if self.latency_median_ms is None or self.latency_max_ms is None:
            return "not measured: no call answered"
        return f"median {_seconds(self.latency_median_ms)}, max {_seconds(self.latency_max_ms)}"

    def reasoning_text(self) -> str:
        """Reasoning tokens per answered call, or ``not reported by provider``."""
        if self.reasoning_median is None or self.reasoning_max is None:
            return NOT_REPORTED if self.answered else "not measured: no call answered"
        text = f"median {_number(self.reasoning_median)}, max {self.reasoning_max} tokens per call"
        if self.reasoning_reported < self.answered:
            text += f" (reported on {self.reasoning_reported} of {self.answered} answered calls)"
        return text


def _seconds(ms: Decimal | int) -> str:
    return f"{(Decimal(ms) / 1000).quantize(Decimal('0.01'))} s"


def _number(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.1")) if x != x.to_integral_value() else int(x))


def _median(values: Sequence[int]) -> Decimal:
    return Decimal(statistics.median_low(values) + statistics.median_high(values)) / 2


def summarise(probe: AnchorProbeLog) -> ProbeSummary:
    """The summary of ``probe``'s calls."""
    answered = [c for c in probe.calls if c.outcome == ANSWERED]
    counts = Counter(
        c.outcome.replace("_", " ")
        + (f", HTTP {c.http_status}" if c.http_status is not None else ", no response")
        for c in probe.calls
    )
    latencies = [c.latency_ms for c in answered if c.latency_ms is not None]
    reasoning = [c.reasoning_tokens for c in answered if c.reasoning_tokens is not None]
    return ProbeSummary(
        calls=len(probe.calls),
        answered=len(answered),
        outcomes=tuple(f"{n} {what}" for what, n in sorted(counts.items(), key=_by_count)),
        latency_median_ms=_median(latencies) if latencies else None,
        latency_max_ms=max(latencies) if latencies else None,
        reasoning_median=_median(reasoning) if reasoning else None,
        reasoning_max=max(reasoning) if reasoning else None,
        reasoning_reported=len(reasoning),
    )


def _by_count(entry: tuple[str, int]) -> tuple[int, str]:
    return -entry[1], entry[0]


def shown_time(at: dt.datetime) -> str:
    """``2026-11-03 09:14 UTC``."""
    return at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def anchor_probe_id(volume: str, api: str) -> str:
    """The figure id of the probe of ``api`` in ``volume``."""
    return f"{volume}/{FIGURE_PREFIX}/{slugify(api)}"


def probes_path(layout: Layout, volume: str) -> Path:
    """``bundles/<volume>/anchor_probes.jsonl``."""
    return layout.volume_dir(volume) / ANCHOR_PROBES_FILE


def read_probes(layout: Layout, volume: str, bounds: Bounds, problems: Problems) -> Numbered:
    """The volume's recorded probes (none when the file does not exist); every bad line
    is reported in ``problems``."""
    path = probes_path(layout, volume)
    if not path.exists() and not path.is_symlink():
        return ()
    return tuple(iter_jsonl(path, AnchorProbe, layout.rel(path), problems, bounds))


def run_start(volume: Volume, ref: CandidateRef, bundle: BundleData | None) -> dt.date | None:
    """The day ``ref``'s run started: its bundle's record, else the date the volume lists
    (None: unknown)."""
    started = bundle.manifest.run.started if bundle is not None else None
    return started or ref.run_date


def chosen_probe(
    probes: Numbered, api: str, start: dt.date | None
) -> tuple[tuple[int, AnchorProbe] | None, int]:
    """The probe of ``api`` that counts — the latest taken on or before ``start`` (any
    day when None) — and how many of its probes were taken after ``start``."""
    own = [(n, p) for n, p in probes if p.anchor == api]
    before = [(n, p) for n, p in own if start is None or p.probed_on() <= start]
    latest = max(before, key=lambda e: (e[1].probed_at, e[0])) if before else None
    return latest, len(own) - len(before)


@dataclass(frozen=True)
class Recorded:
    """What ``record_probe`` wrote."""

    path: str
    probe: AnchorProbe
    summary: ProbeSummary
    probes: int
    """Probes in the file now."""
    listed: bool
    """Whether the volume lists the probed model as an anchor."""


def _resolve(volume: Volume, shown: str, candidate: str, unlisted: bool) -> CandidateRef | None:
    """The listed anchor ``candidate`` names (API string or slug); None when it is an
    unlisted anchor candidate (allowed by ``unlisted``)."""
    ref = next((c for c in volume.candidates if candidate in (c.api, c.slug)), None)
    if ref is not None and ref.role != "anchor":
        raise UsageError(
            f"{candidate!r} is a {ref.role} of {volume.id} ({shown}), not an anchor: "
            "only anchors and anchor candidates are probed"
        )
    if ref is None and not unlisted:
        anchors = ", ".join(c.api for c in volume.candidates if c.role == "anchor") or "none"
        raise UsageError(
            f"{candidate!r} is not listed in {shown} (its anchors: {anchors}); pass "
            "--unlisted to record a probe of an anchor candidate the volume does not list"
        )
    if ref is None:
        try:
            _API.validate_python(candidate)
        except ValidationError as exc:
            message = exc.errors()[0]["msg"]
            raise UsageError(
                f"{escape(candidate[:80])!r} is not an API string: {message}"
            ) from None
    return ref


def _volume(layout: Layout, volume_id: str, bounds: Bounds) -> Volume:
    """The volume's ``volume.yaml``, read strictly."""
    path = layout.volume_file(volume_id)
    if file_name_problem(volume_id) is not None or not os.path.lexists(path):
        known = ", ".join(layout.volume_ids()) or "none"
        raise UsageError(
            f"no volume {volume_id!r} under {layout.rel(layout.bundles_dir)}/ (known: {known})"
        )
    problems = Problems()
    volume = load_document(path, Volume, layout.rel(path), problems, bounds.max_yaml_bytes)
    if volume is None:
        raise InputError(f"cannot read volume {volume_id}:", problems.items)
    return volume


def _refuse(problem: Problem) -> NoReturn:
    raise InputError("the probe cannot be recorded:", [problem])


def record_probe(
    layout: Layout,
    volume_id: str,
    candidate: str,
    source: Path,
    shown_source: str,
    *,
    unlisted: bool = False,
    bounds: Bounds | None = None,
) -> Recorded:
    """Validate the probe log ``source`` of ``candidate`` against ``volume_id`` and add
    it to the volume's ``anchor_probes.jsonl``; nothing is written on any problem.

    Raises:
        UsageError: The volume does not exist, or ``candidate`` is not one of its anchors
            (nor, with ``unlisted``, a model it does not list).
        InputError: ``volume.yaml``, the log or the existing probes file is invalid, the
            log is demonstration data for a real volume, or it was recorded already.
    """
    bounds = bounds or Bounds()
    volume = _volume(layout, volume_id, bounds)
    ref = _resolve(volume, layout.rel(layout.volume_file(volume_id)), candidate, unlisted)
    problems = Problems()
    log = load_document(source, AnchorProbeLog, shown_source, problems, bounds.max_yaml_bytes)
    if log is None:
        raise InputError(f"cannot read the probe log {shown_source}:", problems.items)
    if log.demonstration and not volume.demonstration:
        message = f"the probe is demonstration data but {volume_id} is not"
        fix = "record the probe the maintainer ran (demonstration: false)"
        _refuse(Problem(shown_source, None, "demonstration", message, fix))
    api = ref.api if ref is not None else candidate
    probe = AnchorProbe(
        **log.model_dump(exclude={"schema_version"}), anchor=api, probepress_version=__version__
    )
    path = probes_path(layout, volume_id)
    existing = read_probes(layout, volume_id, bounds, problems)
    if problems:
        raise InputError(f"cannot add to {layout.rel(path)}:", problems.items)
    for line, old in existing:
        if old.anchor == api and old.probed_at == probe.probed_at:
            message = f"the probe of {api} at {shown_time(probe.probed_at)} is recorded already"
            _refuse(Problem(layout.rel(path), line, "duplicate-probe", message))
    probes = sorted([p for _, p in existing] + [probe], key=lambda p: (p.probed_at, p.anchor))
    text = "".join(dumps_line(p.model_dump(mode="json", exclude_none=True)) for p in probes)
    write_bytes(path, text.encode("utf-8"), layout.root)
    return Recorded(layout.rel(path), probe, summarise(probe), len(probes), ref is not None)
