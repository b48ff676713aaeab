"""What the example publication declares (``data/example.yaml``, demonstration data)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import ConfigDict, TypeAdapter, with_config

from generator.demo import read_data
from generator.models.calibration import CalibrationSet, CriterionType
from generator.models.manifest import BankVersion
from generator.models.raters import QualificationRequired
from generator.models.scoring import Reference

# The example's declaration is data: a misspelt field there must fail, not vanish.
_FORBID = with_config(ConfigDict(extra="forbid"))


@_FORBID
@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model the example calls (candidate, grader or judge) and the endpoint it is called at."""

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
    """A baseline's declaration (``models.volume.Baseline``) less a computed ``core_rate``."""


@_FORBID
@dataclass(frozen=True)
class CalibrationSpec:
    """A volume's calibration set and how its human grades are simulated (``annexes``)."""

    declared: CalibrationSet
    judge_wrong: dict[CriterionType, float]
    human_flip: float = 0.05


@_FORBID
@dataclass(frozen=True)
class VolumeSpec:
    """One example volume; its ``protocol`` and ``thresholds`` over the publication's."""

    id: str
    title: str
    publication_date: dt.date
    bank_version: str
    start: dt.date
    end: dt.date
    candidates: tuple[CandidateSpec, ...]
    protocol: dict[str, Any] = field(default_factory=dict)
    thresholds: dict[str, Any] = field(default_factory=dict)
    preregistered: dt.date | None = None
    reference: Reference = "grader"
    calibration: CalibrationSpec | None = None


@_FORBID
@dataclass(frozen=True)
class JurySpec:
    """Grader, panel and reserves (the first reserve of each kind is seated first)."""

    grader: JudgeSpec
    panel: tuple[JudgeSpec, JudgeSpec, JudgeSpec]
    reserve_graders: tuple[JudgeSpec, ...]
    reserve_judges: tuple[JudgeSpec, ...]
    grading: dict[str, Any] | None = None
    """``jury.grading`` of its volumes, the prompt named by its file (``instructions``)."""


@_FORBID
@dataclass(frozen=True)
class ReviewSpec:
    """A reviewer's decision on an item after publication (``bank.ledgers``)."""

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
    protocol: dict[str, Any]
    thresholds: dict[str, Any]
    extra_items: int = 0
    reviews: tuple[ReviewSpec, ...] = ()


EXAMPLE = TypeAdapter(DemoSpec).validate_python(read_data("example.yaml"))


def _filled(data: Any, **values: int) -> Any:
    """``data`` with ``{name}`` in every string replaced by ``values``."""
    if isinstance(data, dict):
        return {k: _filled(v, **values) for k, v in data.items()}
    if isinstance(data, list):
        return [_filled(v, **values) for v in data]
    return data.format(**values) if isinstance(data, str) else data


def scaled(candidates: int, items: int) -> DemoSpec:
    """A synthetic one-volume publication of ``candidates`` × ``items`` (``data/scaled.yaml``)."""
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
