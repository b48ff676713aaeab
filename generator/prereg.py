"""The pre-registration hash binding a volume's protocol, thresholds, jury and conditions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from generator.canonical import dumps_line, write_text
from generator.errors import InputError
from generator.hashing import sha256_text
from generator.models.base import Slug
from generator.models.calibration import CalibrationSet
from generator.models.scoring import Scoring, adjudication_seat_declared
from generator.models.volume import Baseline, Conditions, Jury, Protocol, Thresholds, Volume
from generator.store.jsonl import Bounds, Problems, load_document
from generator.store.paths import Layout
from generator.store.volume import candidate_slug


def _rater(doc: dict[str, Any]) -> dict[str, Any]:
    """A rater's JSON without ``kind: model``, the value every version 2 rater had unsaid."""
    return {k: v for k, v in doc.items() if not (k == "kind" and v == "model")}


def jury_json(jury: Jury) -> dict[str, Any]:
    """The jury as hashed: no None fields and no value a version 2 file could not state
    (``kind: model``, ``status: required``), so a volume registered under version 1 or 2
    keeps its hash; everything version 3 adds (humans, adjudication, ``not_run`` and its
    reason) is in it."""
    doc: dict[str, Any] = jury.model_dump(mode="json", exclude_none=True)
    doc["grader"] = _rater(doc["grader"])
    doc["panel"] = [_rater(r) for r in doc["panel"]]
    doc["reserves"] = [_rater(r) for r in doc["reserves"]]
    if "adjudication" in doc:
        doc["adjudication"]["rater"] = _rater(doc["adjudication"]["rater"])
    qualification = doc.get("qualification")
    if qualification is not None and qualification.get("status") == "required":
        del qualification["status"]
    return doc


def scoring_json(scoring: Scoring) -> dict[str, Any]:
    """The scoring as hashed: ``rubric_groups`` (with every weight, defaults included)
    only when declared, so a volume registered before rubrics keeps its hash."""
    doc: dict[str, Any] = scoring.model_dump(mode="json")  # drops empty rubric_groups
    return doc


def preregistration_sha256(
    protocol: Protocol,
    thresholds: Thresholds,
    jury: Jury,
    conditions: Mapping[str, Mapping[str, object]] | None = None,
    scoring: Scoring | None = None,
    calibration: CalibrationSet | None = None,
    baselines: Mapping[str, Mapping[str, object]] | None = None,
) -> str:
    """SHA-256 of the canonical JSON of ``{"jury", "protocol", "thresholds"}``, with
    ``"conditions"`` (each candidate's own, by slug) when any candidate declares some,
    ``"baselines"`` (each baseline's kind and what it should score, by slug) when any
    baseline is listed, and
    ``"scoring"`` (label set, label rules, reference rater set, rubric groups with their
    weights) and ``"calibration"`` (the calibration set's humans, design and acceptance
    rule) when declared."""
    doc: dict[str, Any] = {
        "jury": jury_json(jury),
        "protocol": protocol.model_dump(mode="json"),
        # Without None fields: a threshold added later keeps earlier volumes' hashes.
        "thresholds": thresholds.model_dump(mode="json", exclude_none=True),
    }
    if conditions:
        doc["conditions"] = {slug: dict(c) for slug, c in conditions.items()}
    if scoring is not None:  # a volume without scoring keeps the hash it was registered with
        doc["scoring"] = scoring_json(scoring)
    if calibration is not None:  # likewise a volume without a calibration set
        doc["calibration"] = calibration.model_dump(mode="json")
    if baselines:  # likewise a volume without baselines
        doc["baselines"] = {slug: dict(b) for slug, b in baselines.items()}
    return sha256_text(dumps_line(doc))


def volume_preregistration_sha256(volume: Volume) -> str:
    """The hash ``volume.preregistration.sha256`` must carry: every pre-registered section
    (protocol, thresholds, jury with its qualification policy, per-candidate conditions,
    scoring, calibration)."""
    return preregistration_sha256(
        volume.protocol,
        volume.thresholds,
        volume.jury,
        volume.declared_conditions(),
        volume.scoring,
        volume.calibration,
        volume.declared_baselines(),
    )


def volume_preregistration(layout: Layout, volume: str, bounds: Bounds | None = None) -> str:
    """The pre-registration hash of ``volume``'s protocol, thresholds, jury, every
    candidate's declared conditions and scoring, read from its ``volume.yaml`` (the rest of the file
    need not be filled in yet).

    Raises:
        InputError: The file cannot be read, or one of the three parts is invalid.
    """
    path = layout.volume_file(volume)
    shown = layout.rel(path)
    problems = Problems()
    limit = (bounds or Bounds()).max_yaml_bytes
    parts = load_document(path, _Registered, shown, problems, limit)
    if parts is None or problems:
        raise InputError(f"cannot compute the pre-registration of {volume}:", problems.items)
    conditions = {
        candidate_slug(c.api, c.variant): c.conditions.model_dump(mode="json", exclude_none=True)
        for c in parts.candidates or []
        if c.conditions is not None and c.api is not None
    }
    baselines = {
        candidate_slug(c.api, c.variant): c.baseline.expected()
        for c in parts.candidates or []
        if c.baseline is not None and c.api is not None
    }
    return preregistration_sha256(
        parts.protocol,
        parts.thresholds,
        parts.jury,
        conditions,
        parts.scoring,
        parts.calibration,
        baselines,
    )


class _Conditioned(BaseModel):
    """A candidate's declared conditions (its other fields are ignored here)."""

    model_config = ConfigDict(extra="ignore")
    api: str | None = None
    """Unfilled in a skeleton; a candidate that declares conditions names its API string."""
    variant: Slug | None = None
    conditions: Conditions | None = None
    baseline: Baseline | None = None


class _Registered(BaseModel):
    """The pre-registered parts of a volume file (its other fields are ignored here)."""

    model_config = ConfigDict(extra="ignore")
    protocol: Protocol
    thresholds: Thresholds
    jury: Jury
    candidates: list[_Conditioned] | None = None
    scoring: Scoring | None = None
    calibration: CalibrationSet | None = None

    reference_seat_declared = field_validator("scoring")(adjudication_seat_declared)


_SHA_LINE = re.compile(
    r"^(preregistration:\s*\n(?:[ \t]+#.*\n)*[ \t]+sha256:[ \t]*)(\S*)(.*)$", re.M
)


def write_preregistration(layout: Layout, volume: str, sha256: str) -> bool:
    """Put ``sha256`` into ``volume.yaml``'s ``preregistration.sha256``, keeping every
    other byte (comments included); False when it is already there.

    Raises:
        InputError: The file has no ``preregistration:`` block whose first key is
            ``sha256:`` (edit it by hand then).
    """
    path = layout.volume_file(volume)
    text = path.read_text("utf-8")
    match = _SHA_LINE.search(text)
    if match is None:
        raise InputError(
            f"{layout.rel(path)}: no `preregistration:` block starting with `sha256:`; "
            f"set preregistration.sha256 to {sha256} by hand"
        )
    new = text[: match.start(2)] + sha256 + text[match.end(2) :]
    return write_text(path, new, layout.root)
