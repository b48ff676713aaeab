"""The pre-registration hash binding a volume's protocol, thresholds and jury."""

from __future__ import annotations

from generator.canonical import dumps_line
from generator.hashing import sha256_text
from generator.models.volume import Jury, Protocol, Thresholds


def preregistration_sha256(protocol: Protocol, thresholds: Thresholds, jury: Jury) -> str:
    """SHA-256 of the canonical JSON of ``{"jury", "protocol", "thresholds"}``."""
    return sha256_text(
        dumps_line(
            {
                # Without None fields: a jury that declares no qualification policy (schema
                # version 1) keeps the hash it was registered with.
                "jury": jury.model_dump(mode="json", exclude_none=True),
                "protocol": protocol.model_dump(mode="json"),
                "thresholds": thresholds.model_dump(mode="json"),
            }
        )
    )
