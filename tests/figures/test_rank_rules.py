"""Which rank rule a volume gets: paired-holm when declared, the overlap rule (with tie
groups, its figures as published) when not; the config gate on a late declaration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import figures
from generator.models.volume import Volume
from generator.stats import rank_ranges
from generator.store import Layout
from tests.conftest import CliRun
from tests.factories import edit_volume, git_commit_all
from tests.gates.test_gates import _check

VOL = "vol-002"


def _ranks(root: Path) -> dict[str, dict[str, Any]]:
    layout = Layout.at(root, root / ".private")
    figures.write(layout, VOL)
    data = json.loads((root / "figures" / "figures.json").read_text("utf-8"))["figures"]
    return {k: v for k, v in data.items() if k.startswith(VOL)}


def _ranked(root: Path) -> list[str]:
    """The slugs vol-002 ranks: its models, never a baseline."""
    doc = yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))
    return sorted(ref.slug for ref in Volume.model_validate(doc).ranked())


def _baselines(root: Path) -> list[str]:
    doc = yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))
    return sorted(ref.slug for ref in Volume.model_validate(doc).baselines())


def _undeclare(doc: dict[str, Any]) -> None:
    del doc["thresholds"]["ranking"]


@pytest.fixture(scope="module")
def overlap_root(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    root = tmp_path_factory.mktemp("overlap") / "root"
    shutil.copytree(example_src, root)
    edit_volume(root, _undeclare, VOL)
    return root


def test_a_volume_without_a_rule_keeps_the_overlap_ranks(overlap_root: Path) -> None:
    reg = _ranks(overlap_root)
    slugs = _ranked(overlap_root)
    assert len(slugs) < len([k for k in reg if k.endswith("/core_rate")])  # baselines scored
    assert not any(f"{VOL}/{s}/rank_best" in reg for s in _baselines(overlap_root))
    core = [reg[f"{VOL}/{s}/core_rate"] for s in slugs]
    expected = rank_ranges(
        [float(c["value"]) for c in core],
        [float(c["intervals"]["narrow"]["lo"]) for c in core],
        [float(c["intervals"]["narrow"]["hi"]) for c in core],
        slugs,
    )
    status = reg[f"{VOL}/calibration/draws"]["detail"]["status"]
    assert status == "judge-calibrated"
    for rr in expected:
        p = f"{VOL}/{rr.name}"
        best = reg[f"{p}/rank_best"]
        # What volumes before the rule published (label, method, detail), plus the judge's
        # calibration status that every judged number carries (DESIGN §12).
        assert best["label"] == "Best rank the core-rate intervals allow"
        assert best["method"] == "rank range from non-overlapping narrow core-rate intervals"
        assert best["detail"] == {"of": len(slugs), "judge": status}
        assert (int(best["value"]), int(reg[f"{p}/rank_worst"]["value"])) == (rr.best, rr.worst)
        assert int(reg[f"{p}/tie_group"]["value"]) == rr.tie_group


def test_no_separated_pair_shares_a_group_or_a_claim_contradicts_the_data(
    example_src: Path,
) -> None:
    """Issue 17: under the overlap rule vol-002 put 7 of 8 models in "tie group 1",
    including pairs the data separate; under paired-holm no printed grouping claims
    "no order" for a pair the comparisons order."""
    data = json.loads((example_src / "figures" / "figures.json").read_text("utf-8"))["figures"]
    slugs = _ranked(example_src)
    separated = [
        (slug, other)
        for slug in slugs
        for other in data[f"{VOL}/{slug}/rank_best"]["detail"]["better_than"]
    ]
    assert separated  # the paired comparisons do order some pairs of vol-002
    assert not any(f"{VOL}/{s}/tie_group" in data for s in slugs)
    assert not any(f"{VOL}/{s}/rank_best" in data for s in _baselines(example_src))


def test_a_rule_declared_after_the_results_warns(cli: CliRun, root: Path) -> None:
    """Results committed under a volume without a rank rule, the rule declared later: the
    config gate warns (nothing shows it predates the results) rather than refusing."""
    vfile = root / "bundles" / "vol-001" / "volume.yaml"
    declared = vfile.read_text("utf-8")
    edit_volume(root, _undeclare, "vol-001")
    git_commit_all(root, "results under a volume without a rank rule")
    vfile.write_text(declared, "utf-8")
    git_commit_all(root, "declare the rank rule afterwards")
    report = _check(cli, "vol-001")
    assert report["exit_code"] == 0
    added = [
        f["message"]
        for g in report["gates"]
        for f in g["findings"]
        if g["gate"] == "config" and f["rule"] == "prereg-added"
    ]
    assert len(added) == 1
    assert added[0].startswith("thresholds.ranking was declared after the results were committed")
