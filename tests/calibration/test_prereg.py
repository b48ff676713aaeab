"""The calibration set is pre-registered: the hash covers it, and a volume without one
keeps the hash it was registered with."""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.models.volume import Volume
from generator.prereg import volume_preregistration_sha256
from tests.calibration.factory import HUMANS
from tests.factories import volume_file


def test_the_hash_covers_the_calibration_set(root: Path) -> None:
    doc = yaml.safe_load(volume_file(root).read_text("utf-8"))
    plain = Volume.model_validate(doc)
    assert volume_preregistration_sha256(plain) == plain.preregistration.sha256
    declared = Volume.model_validate({**doc, "calibration": {"humans": HUMANS}})
    stricter = Volume.model_validate(
        {**doc, "calibration": {"humans": HUMANS, "rule": {"kappa_floor": "0.7"}}}
    )
    hashes = {volume_preregistration_sha256(v) for v in (plain, declared, stricter)}
    assert len(hashes) == 3
