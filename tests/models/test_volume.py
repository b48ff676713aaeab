"""Schema versions 2 to 4 of ``volume.yaml`` and ``bundle.json``: what they add, and that
older files still read while newer ones are refused."""

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
from generator.prereg import preregistration_sha256, volume_preregistration_sha256


def _volume(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(
        (root / "bundles" / "vol-001" / "volume.yaml").read_text("utf-8")
    )
    return data


def _without_baselines(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as a file before version 4 could say it: no baseline listed."""
    doc["candidates"] = [c for c in doc["candidates"] if c["role"] != "baseline"]
    return doc


def test_the_example_declares_version_4_with_its_probe_set(root: Path) -> None:
    volume = Volume.model_validate(_volume(root))
    assert volume.schema_version == 4
    assert [c.baseline.kind for c in volume.baselines() if c.baseline] == [
        "always-refuse",
        "random-choice",
    ]
    assert volume.jury.required is not None
    assert len(volume.jury.required.probes) == 6
    assert all(r.kind == "model" for r in volume.jury.members())


def test_a_version_1_volume_without_a_probe_set_still_reads(root: Path) -> None:
    doc = _without_baselines(_volume(root))
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
    doc["jury"].pop("grading", None)  # nor did a version 1 jury declare its grading
    volume = Volume.model_validate(doc)
    jury = Jury.model_validate(doc["jury"])
    # A version 1 file names no rater kind: the hash is of what it said.
    bare = [{k: v for k, v in r.items() if k != "kind"} for r in doc["jury"]["panel"]]
    legacy = {"grader": {k: v for k, v in doc["jury"]["grader"].items() if k != "kind"}}
    legacy["panel"] = bare
    legacy["reserves"] = [
        {k: v for k, v in r.items() if k != "kind"} for r in doc["jury"]["reserves"]
    ]
    expected = sha256_text(
        dumps_line(
            {
                "jury": legacy,
                "protocol": volume.protocol.model_dump(mode="json"),
                # What a version 1 file registered: no threshold added since (all optional).
                "thresholds": volume.thresholds.model_dump(mode="json", exclude_none=True),
            }
        )
    )
    assert preregistration_sha256(volume.protocol, volume.thresholds, jury) == expected
    declared = volume.thresholds.model_copy(update={"min_category_items": 30})
    assert preregistration_sha256(volume.protocol, declared, jury) != expected


def test_the_probe_set_is_part_of_the_preregistration(root: Path) -> None:
    doc = _volume(root)
    volume = Volume.model_validate(doc)
    doc["jury"]["qualification"]["probes"] = doc["jury"]["qualification"]["probes"][:1]
    cut = Volume.model_validate(doc)
    assert preregistration_sha256(
        volume.protocol, volume.thresholds, volume.jury
    ) != preregistration_sha256(cut.protocol, cut.thresholds, cut.jury)


def _v2(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as a version 2 file says it: no rater kind, no qualification status."""
    jury = doc["jury"]
    for rater in [jury["grader"], *jury["panel"], *jury["reserves"]]:
        del rater["kind"]
    del jury["qualification"]["status"]
    doc["schema_version"] = 2
    return _without_baselines(doc)


def test_a_version_2_volume_reads_as_models_with_required_qualification(root: Path) -> None:
    now = Volume.model_validate(_without_baselines(_volume(root)))
    then = Volume.model_validate(_v2(_volume(root)))
    assert then.jury == now.jury
    assert then.jury.required is not None
    # The defaults version 3 states are not hashed: a version 2 volume keeps its hash.
    assert volume_preregistration_sha256(then) == volume_preregistration_sha256(now)


def test_a_version_3_volume_without_baselines_keeps_its_hash(root: Path) -> None:
    now = Volume.model_validate(_volume(root))
    then = Volume.model_validate({**_without_baselines(_volume(root)), "schema_version": 3})
    assert then.baselines() == [] and [c.role for c in then.ranked()] == [
        c.role for c in now.ranked()
    ]
    # Baselines are pre-registered with what they should score; a volume without any
    # hashes as it did before version 4.
    assert volume_preregistration_sha256(then) == preregistration_sha256(
        then.protocol, then.thresholds, then.jury, None, then.scoring, then.calibration
    )
    assert volume_preregistration_sha256(then) != now.preregistration.sha256


HUMANS = [
    {"kind": "human", "id": "annotator-1", "affiliation": "Univ. A"},
    {"kind": "human", "id": "annotator-2"},
    {"kind": "human", "id": "annotator-3"},
]


def test_a_panel_of_three_humans_with_an_adjudicator(root: Path) -> None:
    doc = _volume(root)
    doc["jury"]["panel"] = HUMANS
    doc["jury"]["adjudication"] = {
        "rater": {"kind": "human", "id": "adjudicator"},
        "adjudicates": ["annotator-1", "annotator-2"],
    }
    jury = Volume.model_validate(doc).jury
    assert [r.key for r in jury.panel] == ["annotator-1", "annotator-2", "annotator-3"]
    assert [r.family for r in jury.panel] == [None, None, None]
    assert jury.members()[4].key == "adjudicator"
    before = Volume.model_validate(_volume(root))
    assert volume_preregistration_sha256(Volume.model_validate(doc)) != (
        volume_preregistration_sha256(before)
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda j: j.update(panel=j["panel"][:2]),
            "a panel of models only has three judges of three families, not 2",
        ),
        (
            lambda j: j["panel"][1].update(family=j["panel"][0]["family"]),
            "the panel's models repeat a family: lumen, lumen, brightwave",
        ),
        (
            lambda j: j.update(panel=[HUMANS[0], HUMANS[0]]),
            "the panel seats a rater twice: annotator-1, annotator-1",
        ),
        (
            lambda j: j.update(
                panel=HUMANS,
                adjudication={"rater": HUMANS[0], "adjudicates": ["annotator-2", "annotator-3"]},
            ),
            "adjudicator annotator-1 is also an independent panel seat",
        ),
        (
            lambda j: j.update(
                panel=HUMANS,
                adjudication={"rater": {"kind": "human", "id": "x"}, "adjudicates": ["a", "b"]},
            ),
            "the adjudication names no panel seat a, b",
        ),
        (
            lambda j: j["panel"].__setitem__(0, {"kind": "human", "id": "h", "family": "lumen"}),
            "Extra inputs are not permitted",
        ),
    ],
)
def test_panel_shapes_refused(root: Path, change: Any, message: str) -> None:
    doc = _volume(root)
    change(doc["jury"])
    with pytest.raises(ValidationError, match=message):
        Volume.model_validate(doc)


def test_qualification_not_run_needs_a_reason_and_is_preregistered(root: Path) -> None:
    doc = _volume(root)
    doc["jury"]["qualification"] = {"status": "not_run"}
    with pytest.raises(ValidationError, match="reason"):
        Volume.model_validate(doc)
    doc["jury"]["qualification"]["reason"] = "the annotators were not tested"
    volume = Volume.model_validate(doc)
    assert volume.jury.not_run is not None and volume.jury.required is None
    assert volume_preregistration_sha256(volume) != volume.preregistration.sha256


def test_per_candidate_conditions_and_variants(root: Path) -> None:
    doc = _volume(root)
    first = doc["candidates"][0]
    twin = {**first, "display_name": "Twin", "variant": "safety-prompt"}
    twin["conditions"] = {"system_prompt_sha256": "0" * 64, "temperature": "0.7"}
    doc["candidates"].append(twin)
    volume = Volume.model_validate(doc)
    ref = volume.candidates[-1]
    assert ref.slug == f"{volume.candidates[0].slug}-safety-prompt"
    assert volume.candidate(ref.slug) == ref
    own = volume.protocol_for(ref)
    assert own.system_prompt_sha256 == "0" * 64 and str(own.temperature) == "0.7"
    assert own.halves == volume.protocol.halves
    assert volume.protocol_for(volume.candidates[0]) == volume.protocol
    # Declared conditions are pre-registered.
    assert volume_preregistration_sha256(volume) != volume.preregistration.sha256
    twin["conditions"] = {}
    with pytest.raises(ValidationError, match="conditions declares nothing"):
        Volume.model_validate(doc)


def test_unknown_run_date_and_latency_are_optional(root: Path) -> None:
    from generator.models.bundle import RunDates
    from generator.models.records import Attempt

    doc = _volume(root)
    del doc["candidates"][0]["run_date"]
    assert Volume.model_validate(doc).candidates[0].run_date is None
    assert RunDates().shown() == "unknown..unknown"
    assert Attempt(status="ok").latency_ms is None
