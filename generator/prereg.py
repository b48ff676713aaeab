"""The pre-registration hash binding a volume's protocol, thresholds and jury."""

from __future__ import annotations

from generator.canonical import dumps_line
from generator.hashing import sha256_text
from generator.models.scoring import Scoring
from generator.models.volume import Jury, Protocol, Thresholds, Volume


def preregistration_sha256(
    protocol: Protocol, thresholds: Thresholds, jury: Jury, scoring: Scoring | None = None
) -> str:
    """SHA-256 of the canonical JSON of ``{"jury", "protocol", "thresholds"}``, with
    ``"scoring"`` (label set, label rules, reference rater set) when one is declared."""
    document = {
        # Without None fields: a jury that declares no qualification policy (schema
        # version 1) keeps the hash it was registered with.
        "jury": jury.model_dump(mode="json", exclude_none=True),
        "protocol": protocol.model_dump(mode="json"),
        "thresholds": thresholds.model_dump(mode="json"),
    }
    if scoring is not None:  # a volume without scoring keeps the hash it was registered with
        document["scoring"] = scoring.model_dump(mode="json")
    return sha256_text(dumps_line(document))


def volume_preregistration_sha256(volume: Volume) -> str:
    """The pre-registration hash of everything ``volume`` pre-registers."""
    return preregistration_sha256(volume.protocol, volume.thresholds, volume.jury, volume.scoring)
