"""A figure that no longer recomputes is reported with its exact recorded and recomputed
values, never only with its rounded display strings (which can print alike)."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from tests.site.downstream import generated_root

FIGURE = "vol-001/demo-ember-ember-mini/core_rate"


@pytest.fixture
def copy(example_src: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    dest = tmp_path / "root"
    shutil.copytree(generated_root(example_src, tmp_path_factory), dest, symlinks=True)
    return dest


def _registry(root: Path) -> tuple[Path, dict]:  # type: ignore[type-arg]
    path = root / "figures" / "figures.json"
    return path, json.loads(path.read_text("utf-8"))


def test_a_value_that_displays_alike_is_reported_exactly(copy: Path) -> None:
    path, registry = _registry(copy)
    figure = registry["figures"][FIGURE]
    exact = Decimal(figure["value"])
    nudged = exact + Decimal(1).scaleb(-figure["precision"])  # one unit in the last place
    figure["value"] = str(nudged)
    path.write_text(json.dumps(registry, indent=2, sort_keys=True) + "\n", "utf-8")
    result = CliRunner().invoke(main, ["--root", str(copy), "verify"], catch_exceptions=False)
    assert result.exit_code == 1
    display = figure["display"]
    assert (
        f"{FIGURE}: recomputes to {exact} (shown {display}) but the registry says {nudged} "
        f"(shown {display})"
    ) in result.output


def test_a_changed_interval_is_reported_by_field_with_exact_values(copy: Path) -> None:
    path, registry = _registry(copy)
    figure = registry["figures"][FIGURE]
    name = sorted(figure["intervals"])[0]
    hi = Decimal(figure["intervals"][name]["hi"])
    figure["intervals"][name]["hi"] = str(hi - Decimal(1).scaleb(-figure["precision"]))
    path.write_text(json.dumps(registry, indent=2, sort_keys=True) + "\n", "utf-8")
    result = CliRunner().invoke(main, ["--root", str(copy), "verify"], catch_exceptions=False)
    assert result.exit_code == 1
    assert (
        f"{FIGURE}: recomputes to the same value {figure['value']} with other fields: "
        f"intervals.{name}.hi: recomputed {hi}, registry {figure['intervals'][name]['hi']}"
    ) in result.output
