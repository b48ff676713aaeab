"""The pre-registration hash binding a volume's protocol, thresholds and jury."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from generator.canonical import dumps_line, write_text
from generator.errors import InputError
from generator.hashing import sha256_text
from generator.models.scoring import Scoring
from generator.models.volume import Jury, Protocol, Thresholds, Volume
from generator.store.jsonl import Bounds, Problems, load_document
from generator.store.paths import Layout


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


def volume_preregistration(layout: Layout, volume: str, bounds: Bounds | None = None) -> str:
    """The pre-registration hash of ``volume``'s protocol, thresholds, jury and scoring, read from
    its ``volume.yaml`` (the rest of the file need not be filled in yet).

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
    return preregistration_sha256(parts.protocol, parts.thresholds, parts.jury, parts.scoring)


class _Registered(BaseModel):
    """The pre-registered parts of a volume file (its other fields are ignored here)."""

    model_config = ConfigDict(extra="ignore")
    protocol: Protocol
    thresholds: Thresholds
    jury: Jury
    scoring: Scoring | None = None


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
