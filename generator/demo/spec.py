"""What the example publication declares: versions, jury, candidates, volumes, reviews.

Everything here is demonstration data: fictional API strings (``demo-…``) and families,
labelled as such wherever it is shown. Counts (halves, draws per half) and categories are
data, so a bank or a volume can declare its own.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Literal

from pydantic import ConfigDict, TypeAdapter, with_config

from generator.demo import read_data
from generator.models.calibration import CalibrationSet, CriterionType
from generator.models.manifest import BankVersion
from generator.models.raters import QualificationRequired
from generator.models.scoring import Reference
from generator.models.volume import Ranking

# The example's declaration is data: a misspelt field there must fail, not vanish.
_FORBID = with_config(ConfigDict(extra="forbid"))


@_FORBID
@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model the example calls, and the endpoint it is reached through (held-out draws
    reach graders and judges too, so theirs are declared as well as the candidates')."""

    api: str
    family: str
    gateway: str = "demo-gateway"
    provider: str = "demo-provider-east"

    def ref(self) -> dict[str, str]:
        """The model as a volume or bundle names a grader or judge."""
        return {"kind": "model", "api": self.api, "family": self.family}

    def endpoint(self) -> dict[str, Any]:
        """The endpoint the model was called through."""
        return {"gateway": self.gateway, "serving_provider": self.provider, "no_training": True}


@_FORBID
@dataclass(frozen=True, kw_only=True)
class JudgeSpec(ModelSpec):
    """A grader or judge; ``accuracy`` is how often its vote matches the truth."""

    accuracy: float = 0.95
    refuses_safety: float = 0.0
    qualification_refusals: tuple[str, ...] = ()


@_FORBID
@dataclass(frozen=True, kw_only=True)
class CandidateSpec(ModelSpec):
    """A simulated model: ``skill`` shifts every item's log-odds of failing."""

    display_name: str
    role: str
    skill: float
    error_rate: float = 0.01
    outage: float = 0.003
    baseline: dict[str, Any] | None = None
    """A baseline's declaration (``generator.models.volume.Baseline``); a random-choice
    baseline's ``core_rate`` is computed: chance over the volume's core items."""


@_FORBID
@dataclass(frozen=True)
class CalibrationSpec:
    """A volume's calibration set and how its human grades are simulated
    (``generator.demo.annexes``): ``judge_wrong`` by criterion type."""

    declared: CalibrationSet
    judge_wrong: dict[CriterionType, float]
    human_flip: float = 0.05


@_FORBID
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
    circuit_breaker_error_share: Decimal = Decimal("0.05")
    panel_sample_fraction: Decimal = Decimal("0.20")
    sample_seed: int = 7001
    preregistered: dt.date | None = None
    reference: Reference = "grader"
    calibration: CalibrationSpec | None = None
    min_category_items: int | None = None
    min_volume_items: int | None = None


@_FORBID
@dataclass(frozen=True)
class GradingSpec:
    """The grader's prompt (a file of ``generator/instructions``) and sampling settings."""

    instructions: str
    temperature: Decimal
    max_output_tokens: int


@_FORBID
@dataclass(frozen=True)
class JurySpec:
    """Grader, panel and reserves (the first reserve of each kind is seated first)."""

    grader: JudgeSpec
    panel: tuple[JudgeSpec, JudgeSpec, JudgeSpec]
    reserve_graders: tuple[JudgeSpec, ...]
    reserve_judges: tuple[JudgeSpec, ...]
    grading: GradingSpec | None = None


@_FORBID
@dataclass(frozen=True)
class ReviewSpec:
    """A reviewer's decision on an item after publication, as ``probepress review apply``
    recorded it (``generator.demo.bank.ledgers``): a sign-off climbs one rung."""

    item: str
    decision: Literal["sign-off", "disagree"]
    by: str
    day: dt.date  # the ledger's ``on``; YAML 1.1 reads a key ``on`` as true
    comment: str = ""
    resolution: str = ""


@_FORBID
@dataclass(frozen=True)
class DemoSpec:
    """A whole example publication."""

    name: str
    versions: tuple[BankVersion, ...]
    jury: JurySpec
    volumes: tuple[VolumeSpec, ...]
    seed: int
    system_prompt: str
    reviewers: tuple[str, ...]
    qualification: QualificationRequired
    """The jury's probe set: every seated grader, panel judge and reserve runs all of it."""
    ranking: Ranking
    """How every volume ranks (its thresholds' ``ranking``)."""
    extra_items: int = 0
    reviews: tuple[ReviewSpec, ...] = ()


EXAMPLE = TypeAdapter(DemoSpec).validate_python(read_data("example.yaml"))
"""The committed example publication, declared in ``data/example.yaml``."""


def _filled(data: Any, **values: int) -> Any:
    """``data`` with ``{name}`` in every string replaced by ``values``."""
    if isinstance(data, dict):
        return {k: _filled(v, **values) for k, v in data.items()}
    if isinstance(data, list):
        return [_filled(v, **values) for v in data]
    return data.format(**values) if isinstance(data, str) else data


def scaled(candidates: int, items: int) -> DemoSpec:
    """A synthetic one-volume publication of ``candidates`` × ``items`` for benchmarks,
    declared in ``data/scaled.yaml``."""
    data = read_data("scaled.yaml")
    specs = [
        _filled(data["candidate"], n=n)
        | {"role": "anchor" if n < data["anchors"] else "candidate"}
        | {"skill": -1.5 + 3.0 * n / max(candidates - 1, 1)}
        for n in range(candidates)
    ]
    volume = _filled(data["volume"], candidates=candidates, items=items) | {"candidates": specs}
    return replace(
        EXAMPLE,
        name=data["name"],
        versions=tuple(
            BankVersion.model_validate(v) for v in _filled(data["versions"], items=items)
        ),
        volumes=(TypeAdapter(VolumeSpec).validate_python(volume),),
        extra_items=items,
        reviews=(),
    )
