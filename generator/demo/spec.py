"""What the example publication declares: versions, jury, candidates, volumes.

Everything here is demonstration data: fictional API strings (``demo-…``) and families,
labelled as such wherever it is shown. Counts (halves, draws per half) and categories are
data, so a bank or a volume can declare its own.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from decimal import Decimal

from generator.models.scoring import Reference

DEMO_SEED = 20261130
SYSTEM_PROMPT = "You are a helpful assistant. Answer the user's request."
REVIEWERS = ("R. Okafor", "M. Lindqvist", "S. Tanaka", "A. Haddad")


@dataclass(frozen=True)
class VersionSpec:
    """A bank version of the example."""

    id: str
    released: dt.date
    notes: str


@dataclass(frozen=True)
class JudgeSpec:
    """A grader or judge; ``accuracy`` is how often its vote matches the truth."""

    api: str
    family: str
    accuracy: float = 0.95
    refuses_safety: float = 0.0
    qualification_refusals: tuple[str, ...] = ()
    # Held-out draws reach graders and judges too, so their endpoints are declared.
    gateway: str = "demo-gateway"
    provider: str = "demo-provider-east"
    no_training: bool = True


@dataclass(frozen=True)
class CandidateSpec:
    """A simulated model: ``skill`` shifts every item's log-odds of failing."""

    api: str
    family: str
    display_name: str
    role: str
    skill: float
    error_rate: float = 0.01
    outage: float = 0.003
    gateway: str = "demo-gateway"
    provider: str = "demo-provider-east"


@dataclass(frozen=True)
class VolumeSpec:
    """One example volume."""

    id: str
    title: str
    publication_date: dt.date
    bank_version: str
    start: dt.date
    end: dt.date
    candidates: tuple[CandidateSpec, ...]
    halves: tuple[str, ...] = ("A", "B")
    draws_per_half: int = 5
    temperature: Decimal = Decimal("0.7")
    max_output_tokens: int = 1024
    ac1_floor: Decimal = Decimal("0.60")
    circuit_breaker: Decimal = Decimal("0.05")
    panel_fraction: Decimal = Decimal("0.20")
    sample_seed: int = 7001
    preregistered: dt.date | None = None
    reference: Reference = "grader"


@dataclass(frozen=True)
class JurySpec:
    """Grader, panel and reserves (the first reserve of each kind is seated first)."""

    grader: JudgeSpec
    panel: tuple[JudgeSpec, JudgeSpec, JudgeSpec]
    reserve_graders: tuple[JudgeSpec, ...]
    reserve_judges: tuple[JudgeSpec, ...]


@dataclass(frozen=True)
class DemoSpec:
    """A whole example publication."""

    name: str
    versions: tuple[VersionSpec, ...]
    jury: JurySpec
    volumes: tuple[VolumeSpec, ...]
    extra_items: int = 0
    seed: int = DEMO_SEED
    # The declared qualification probe set: (case id, its correct grade). Every seated
    # grader, panel judge and reserve runs all of it.
    qualification_probes: tuple[tuple[str, str], ...] = field(
        default=(
            ("qual-clear-pass", "pass"),
            ("qual-clear-fail", "fail"),
            ("qual-injected-grader-note", "pass"),
            ("qual-long-hedged-answer", "fail"),
            ("qual-safety-refusal-correct", "pass"),
            ("qual-unicode-answer", "fail"),
        )
    )


JURY = JurySpec(
    grader=JudgeSpec("demo-kestrel/kestrel-grader-2", "kestrel", accuracy=0.95),
    panel=(
        JudgeSpec("demo-lumen/lumen-judge-1", "lumen"),
        JudgeSpec("demo-marlin/marlin-judge-4", "marlin", refuses_safety=0.04),
        JudgeSpec("demo-brightwave/bw-judge-2", "brightwave"),
    ),
    reserve_graders=(
        JudgeSpec(
            "demo-osprey/osprey-grader-1",
            "osprey",
            accuracy=0.94,
            qualification_refusals=("qual-safety-refusal-correct",),
        ),
    ),
    reserve_judges=(JudgeSpec("demo-nimbus/nimbus-judge-3", "nimbus"),),
)

_AURORA = CandidateSpec("demo-aurora/aurora-7b-chat", "aurora", "Aurora 7B Chat", "candidate", -0.9)
_BRIGHT = CandidateSpec(
    "demo-brightwave/bw-large", "brightwave", "Brightwave Large", "candidate", 0.4
)
_CINDER = CandidateSpec(
    "demo-cinder/cinder-pro-0905",
    "cinder",
    "Cinder Pro",
    "candidate",
    0.9,
    error_rate=0.03,
    outage=0.03,
    gateway="demo-router",
    provider="demo-provider-west",
)
_KESTREL = CandidateSpec(
    "demo-kestrel/kestrel-chat-3", "kestrel", "Kestrel Chat 3", "candidate", 0.1
)
_EMBER = CandidateSpec("demo-ember/ember-mini", "ember", "Ember Mini", "candidate", -1.6)
_FJORD = CandidateSpec("demo-fjord/fjord-ref-1", "fjord", "Fjord Reference 1", "anchor", 0.0)
_GANNET = CandidateSpec("demo-gannet/gannet-xl", "gannet", "Gannet XL", "candidate", 1.3)
_HARROW = CandidateSpec("demo-harrow/harrow-ref-2", "harrow", "Harrow Reference 2", "anchor", -0.3)

EXAMPLE = DemoSpec(
    name="probepress example bank (demonstration data)",
    versions=(
        VersionSpec(
            "v1", dt.date(2026, 8, 15), "Core: 63 items in 13 categories (35 public, 28 held out)."
        ),
        VersionSpec("v1.1", dt.date(2026, 9, 25), "Adds 2 public items."),
        VersionSpec("v1.2", dt.date(2026, 10, 20), "Adds 8 public items; 3 are still in review."),
    ),
    jury=JURY,
    volumes=(
        VolumeSpec(
            "vol-001",
            "Volume 001 (demonstration data)",
            dt.date(2026, 10, 1),
            "v1",
            dt.date(2026, 9, 1),
            dt.date(2026, 9, 20),
            (_AURORA, _BRIGHT, _CINDER, _KESTREL, _EMBER, _FJORD),
            preregistered=dt.date(2026, 8, 25),
        ),
        VolumeSpec(
            "vol-002",
            "Volume 002 (demonstration data)",
            dt.date(2026, 11, 25),
            "v1.2",
            dt.date(2026, 11, 2),
            dt.date(2026, 11, 16),
            (
                replace(_AURORA, skill=-0.7),
                _BRIGHT,
                replace(_CINDER, error_rate=0.015, outage=0.01),
                _KESTREL,
                _EMBER,
                _FJORD,
                _GANNET,
                _HARROW,
            ),
            sample_seed=7002,
            preregistered=dt.date(2026, 10, 25),
        ),
    ),
)


def scaled(candidates: int, items: int) -> DemoSpec:
    """A synthetic one-volume publication of ``candidates`` × ``items`` for benchmarks."""
    families = [f"fam{n:03d}" for n in range(candidates)]
    specs = tuple(
        CandidateSpec(
            f"demo-{fam}/model-{n:03d}",
            fam,
            f"Synthetic Model {n:03d}",
            "anchor" if n < 2 else "candidate",
            skill=-1.5 + 3.0 * n / max(candidates - 1, 1),
        )
        for n, fam in enumerate(families)
    )
    volume = VolumeSpec(
        "vol-001",
        f"Synthetic volume ({candidates} × {items}, demonstration data)",
        dt.date(2026, 10, 1),
        "v1",
        dt.date(2026, 9, 1),
        dt.date(2026, 9, 20),
        specs,
        preregistered=dt.date(2026, 8, 25),
    )
    return replace(
        EXAMPLE,
        name="probepress synthetic scale bank (demonstration data)",
        versions=(VersionSpec("v1", dt.date(2026, 8, 15), f"{items} synthetic items."),),
        volumes=(volume,),
        extra_items=items,
    )
