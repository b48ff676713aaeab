"""Calibration figures and the judge status every judged number carries."""

from __future__ import annotations

from pathlib import Path

from generator import figures
from generator.calibration.check import UNVALIDATED_WHY
from generator.models.figures import Figure
from generator.store import Layout
from tests.calibration.factory import calibration_set
from tests.factories import VOL1

JUDGE = "demo-kestrel-kestrel-grader-2"


def _figures(root: Path) -> dict[str, Figure]:
    return figures.compute(Layout.at(root, root / ".private"), VOL1)


def test_without_a_calibration_set_every_judged_rate_is_judge_unvalidated(root: Path) -> None:
    found = _figures(root)
    draws = found[f"{VOL1}/calibration/draws"]
    assert draws.value == "0"
    assert draws.detail["status"] == "judge-unvalidated"
    assert draws.detail["statement"] == UNVALIDATED_WHY
    rates = {k: f for k, f in found.items() if f.kind == "rate"}
    judged = [f for k, f in rates.items() if k.endswith(("/core_rate", "/judged_rate"))]
    assert judged and all(f.detail["judge"] == "judge-unvalidated" for f in judged)
    tier0 = [f for k, f in rates.items() if k.endswith("/tier0_rate")]
    assert tier0 and all("judge" not in f.detail for f in tier0)
    assert not [k for k in found if "/calibration/pass-fail/" in k]
    splits = [f for k, f in found.items() if k.endswith("/split_half/difference")]
    assert splits and all(f.detail["judge"] == "judge-unvalidated" for f in splits)


def test_a_calibration_set_registers_its_figures_with_sources(root: Path) -> None:
    calibration_set(root)
    found = _figures(root)
    draws = found[f"{VOL1}/calibration/draws"]
    assert draws.detail["status"] == "judge-calibrated"
    kappa = found[f"{VOL1}/calibration/pass-fail/{JUDGE}/kappa"]
    assert draws.detail["figures"] == [kappa.id]
    assert kappa.kind == "agreement" and float(kappa.intervals["ci"].lo) < float(kappa.value)
    assert kappa.detail["accepted"] is True and kappa.detail["units"] == 102
    assert f"bundles/{VOL1}/calibration.jsonl" in {s.path for s in kappa.sources}
    for name in ("false_accept", "false_reject"):
        share = found[f"{VOL1}/calibration/pass-fail/{JUDGE}/{name}"]
        assert share.kind == "share" and share.detail["units"] > 0
    core = [f for k, f in found.items() if k.endswith("/core_rate")]
    assert all(f.detail["judge"] == "judge-calibrated" for f in core)


def test_the_site_results_page_says_judge_unvalidated(root: Path) -> None:
    from generator.site.published import PublishedVolume
    from generator.site.results import _statements
    from generator.store import load_volume

    volume = load_volume(Layout.at(root, root / ".private"), VOL1).volume
    found = _figures(root)
    said = "\n".join(_statements(PublishedVolume(volume, found, {})))
    assert '!!! warning "Judge-unvalidated"' in said
    assert "Every judged number of this volume is judge-unvalidated: no calibration set" in said
    calibration_set(root)
    calibrated = _figures(root)
    assert "Judge-unvalidated" not in "\n".join(
        _statements(PublishedVolume(volume, calibrated, {}))
    )
