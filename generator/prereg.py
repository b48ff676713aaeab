"""The pre-registration hash binding a volume's protocol, thresholds, jury and conditions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.canonical import dumps_line
from generator.hashing import sha256_text
from generator.models.volume import Jury, Protocol, Thresholds, Volume


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


def preregistration_sha256(
    protocol: Protocol,
    thresholds: Thresholds,
    jury: Jury,
    conditions: Mapping[str, Mapping[str, object]] | None = None,
) -> str:
    """SHA-256 of the canonical JSON of ``{"jury", "protocol", "thresholds"}``, with
    ``"conditions"`` (each candidate's own, by slug) when any candidate declares some."""
    doc: dict[str, Any] = {
        "jury": jury_json(jury),
        "protocol": protocol.model_dump(mode="json"),
        "thresholds": thresholds.model_dump(mode="json"),
    }
    if conditions:
        doc["conditions"] = {slug: dict(c) for slug, c in conditions.items()}
    return sha256_text(dumps_line(doc))


def volume_preregistration_sha256(volume: Volume) -> str:
    """The hash ``volume.preregistration.sha256`` must carry: every pre-registered section
    (protocol, thresholds, jury with its qualification policy, per-candidate conditions)."""
    return preregistration_sha256(
        volume.protocol, volume.thresholds, volume.jury, volume.declared_conditions()
    )
