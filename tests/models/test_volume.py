"""Schema version 2 of ``volume.yaml`` and ``bundle.json``: what it adds, and that version 1
files still read while newer ones are refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from generator.canonical import dumps_line
from generator.hashing import sha256_text
from generator.models.base import json_validator
from generator.models.bundle import BundleManifest
from generator.models.volume import Jury, Volume
from generator.prereg import preregistration_sha256


def _volume(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(
        (root / "bundles" / "vol-001" / "volume.yaml").read_text("utf-8")
    )
    return data


def test_the_example_declares_version_3_with_its_probe_set(root: Path) -> None:
    volume = Volume.model_validate(_volume(root))
    assert volume.schema_version == 3
    assert volume.jury.qualification is not None
    assert len(volume.jury.qualification.probes) == 6


def test_a_version_1_volume_without_a_probe_set_still_reads(root: Path) -> None:
    doc = _volume(root)
    doc["schema_version"] = 1
    del doc["jury"]["qualification"]
    assert Volume.model_validate(doc).jury.qualification is None


@pytest.mark.parametrize("model", [Volume, BundleManifest])
def test_a_newer_version_is_refused(model: type[Volume] | type[BundleManifest]) -> None:
    newer = model.supported_schema_version + 1
    with pytest.raises(
        ValidationError, match=f"schema_version {newer} is newer than this probepress"
    ):
        model.model_validate({"schema_version": newer})
    fast = json_validator(model)
    with pytest.raises(ValidationError):
        fast.validate_json(f'{{"schema_version": {newer}}}')


def test_a_jury_without_a_probe_set_keeps_its_registered_hash(root: Path) -> None:
    """Adding the optional field must not change the hash version 1 volumes registered."""
    doc = _volume(root)
    del doc["jury"]["qualification"]
    volume = Volume.model_validate(doc)
    jury = Jury.model_validate(doc["jury"])
    legacy = {"grader": doc["jury"]["grader"], "panel": doc["jury"]["panel"]}
    legacy["reserves"] = doc["jury"]["reserves"]
    expected = sha256_text(
        dumps_line(
            {
                "jury": legacy,
                "protocol": volume.protocol.model_dump(mode="json"),
                "thresholds": volume.thresholds.model_dump(mode="json"),
            }
        )
    )
    assert preregistration_sha256(volume.protocol, volume.thresholds, jury) == expected


def test_the_probe_set_is_part_of_the_preregistration(root: Path) -> None:
    doc = _volume(root)
    volume = Volume.model_validate(doc)
    doc["jury"]["qualification"]["probes"] = doc["jury"]["qualification"]["probes"][:1]
    cut = Volume.model_validate(doc)
    assert preregistration_sha256(
        volume.protocol, volume.thresholds, volume.jury
    ) != preregistration_sha256(cut.protocol, cut.thresholds, cut.jury)
