"""The judge-unvalidated flag (DESIGN §12) in the Every Eval Ever export and on the rank
figures, through the CLI: vol-001 declares no calibration set, so each of its exported
judged rates and rank-range figures says judge-unvalidated (and why); vol-002's grader
was calibrated and accepted, so none of its says so. The records still validate against
the schemas Every Eval Ever publishes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from generator.calibration.check import UNVALIDATED, UNVALIDATED_WHY, VALIDATED
from generator.cli import main
from tests.eee_schema import schemas

ORG = ["--organization", "probepress maintainers (demonstration)"]


@pytest.fixture(scope="module")
def copy(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("judge") / "root"
    shutil.copytree(example_src, root, symlinks=True)
    return root


def _export(root: Path, volume: str) -> list[dict[str, Any]]:
    out = root.parent / f"eee-{volume}"
    args = ["--root", str(root), "export", "eee", volume, "--out", str(out), *ORG]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return [json.loads(p.read_text("utf-8")) for p in sorted(out.rglob("*.json"))]


def _registry(root: Path) -> dict[str, Any]:
    figures: dict[str, Any] = json.loads((root / "figures" / "figures.json").read_text("utf-8"))
    return figures["figures"]


def _results(aggregates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for a in aggregates for r in a["evaluation_results"]]


def test_an_unvalidated_volumes_judged_results_say_so(copy: Path) -> None:
    aggregates = _export(copy, "vol-001")
    validator = jsonschema.Draft7Validator(schemas()["aggregate"])
    assert all(not list(validator.iter_errors(a)) for a in aggregates)
    registry = _registry(copy)
    judged = unjudged = 0
    for result in _results(aggregates):
        details = result["metric_config"]["additional_details"]
        if "judge" in registry[result["evaluation_result_id"]]["detail"]:
            judged += 1
            assert details["judge_validation"] == UNVALIDATED
            assert details["judge_validation_statement"] == UNVALIDATED_WHY
            assert result["evaluation_name"].endswith(f" [{UNVALIDATED}]")
            assert result["metric_config"]["metric_name"] == result["evaluation_name"]
        else:  # decided by Tier 0 code alone: no judge to calibrate
            unjudged += 1
            assert "judge_validation" not in details
            assert UNVALIDATED not in json.dumps(result)
    assert judged and unjudged


def test_a_calibrated_volumes_results_do_not(copy: Path) -> None:
    aggregates = _export(copy, "vol-002")
    validator = jsonschema.Draft7Validator(schemas()["aggregate"])
    assert all(not list(validator.iter_errors(a)) for a in aggregates)
    assert UNVALIDATED not in json.dumps(aggregates)
    judged = [
        r
        for r in _results(aggregates)
        if "judge_validation" in r["metric_config"]["additional_details"]
    ]
    assert judged
    for result in judged:
        details = result["metric_config"]["additional_details"]
        assert details["judge_validation"] == VALIDATED
        assert details["judge_validation_statement"].endswith(
            "accepted under the pre-registered rule"
        )


@pytest.mark.parametrize(("volume", "status"), [("vol-001", UNVALIDATED), ("vol-002", VALIDATED)])
def test_the_rank_range_figures_carry_the_status(copy: Path, volume: str, status: str) -> None:
    result = CliRunner().invoke(main, ["--root", str(copy), "figures", volume])
    assert result.exit_code == 0, result.output
    registry = _registry(copy)
    ranks = {
        k: f for k, f in registry.items() if k.startswith(f"{volume}/") and f["kind"] == "rank"
    }
    assert ranks
    assert {f["detail"].get("judge") for f in ranks.values()} == {status}
