"""``probepress export eee``: Every Eval Ever records of a published volume."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.store import Layout, load_volume
from tests.conftest import CliRun, tree_state
from tests.eee_schema import schemas

ORG = ["--organization", "probepress maintainers (demonstration)"]


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    return schemas()


def _export(root: Path, out: Path, volume: str = "vol-002") -> None:
    args = ["--root", str(root), "export", "eee", volume, "--out", str(out), *ORG]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output


@dataclass(frozen=True)
class Exported:
    """A copy of the example and vol-002 exported from it (read-only use)."""

    root: Path
    out: Path


@pytest.fixture(scope="module")
def exported(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """vol-002 exported once for the module's tests that read the export."""
    base = tmp_path_factory.mktemp("eee")
    root = base / "root"
    shutil.copytree(example_src, root, symlinks=True)
    _export(root, base / "eee")
    return Exported(root, base / "eee")


def _records(out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    aggregates = [json.loads(p.read_text("utf-8")) for p in sorted(out.rglob("*.json"))]
    instances = [
        json.loads(line)
        for p in sorted(out.rglob("*_samples.jsonl"))
        for line in p.read_text("utf-8").splitlines()
    ]
    return aggregates, instances


def test_records_validate_against_the_published_schemas(
    exported: Exported, published: dict[str, Any]
) -> None:
    aggregates, instances = _records(exported.out)
    assert len(aggregates) == 8 and instances
    aggregate = jsonschema.Draft7Validator(published["aggregate"])
    instance = jsonschema.Draft7Validator(published["instance"])
    for record in aggregates:
        assert not [e.message for e in aggregate.iter_errors(record)]
        linked = exported.out / record["detailed_evaluation_results"]["file_path"]
        assert linked.is_file()
    for record in instances:
        assert not [e.message for e in instance.iter_errors(record)]


def test_aggregates_are_the_registered_figures(exported: Exported) -> None:
    registry = json.loads((exported.root / "figures" / "figures.json").read_text("utf-8"))
    registry = registry["figures"]
    aggregates, _ = _records(exported.out)
    seen = 0
    for record in aggregates:
        for result in record["evaluation_results"]:
            figure = registry[result["evaluation_result_id"]]
            assert result["score_details"]["score"] == float(figure["value"])
            intervals = figure["intervals"]
            if "narrow" in intervals:
                narrow = result["score_details"]["uncertainty"]["confidence_interval"]
                assert (narrow["lower"], narrow["upper"]) == (
                    float(intervals["narrow"]["lo"]),
                    float(intervals["narrow"]["hi"]),
                )
            details = result["score_details"]["details"]
            if "wide" in intervals:
                assert details["wide_interval_lower"] == intervals["wide"]["lo"]
                assert details["wide_interval_upper"] == intervals["wide"]["hi"]
            else:
                assert "wide_interval_lower" not in details
            seen += 1
    rates = [f for f in registry if f.startswith("vol-002/") and registry[f]["kind"] == "rate"]
    # The example's baselines (slugs baseline-…) are not models: they are not exported.
    assert seen == len([f for f in rates if not f.split("/")[1].startswith("baseline-")])


def _independent_public_fail_fractions(root: Path) -> pd.DataFrame:
    """Per candidate and public item, the fail fraction of counted draws, straight from the
    bundles' verdicts with pandas (the grader's verdict, or the panel majority where the
    grader refused; lost and undecided draws do not count)."""
    public = pd.read_json(root / "bank" / "public.jsonl", lines=True)
    if "rubric" in public:  # rubric items are scored, never counted in a failure rate
        public = public[public.rubric.isna()]
    frames = []
    for bundle in sorted((root / "bundles" / "vol-002").iterdir()):
        if not bundle.is_dir():
            continue
        manifest = json.loads((bundle / "bundle.json").read_text("utf-8"))
        if manifest["candidate"]["role"] == "baseline":  # not a model: not exported
            continue
        verdicts = pd.read_json(bundle / "verdicts.jsonl", lines=True)
        panel = pd.read_json(bundle / "panel.jsonl", lines=True)
        votes = panel[panel.vote.isin(["pass", "fail"])]
        tally = votes.groupby(["item", "half", "draw"]).vote.agg(
            lambda v: (
                "fail"
                if (v == "fail").sum() > (v == "pass").sum()
                else "pass"
                if (v == "pass").sum() > (v == "fail").sum()
                else None
            )
        )
        outcome = verdicts.verdict.where(
            verdicts.verdict != "grader_refused",
            [
                tally.get((i, h, d))
                for i, h, d in zip(verdicts.item, verdicts.half, verdicts.draw, strict=True)
            ],
        )
        counted = verdicts.assign(outcome=outcome)
        counted = counted[counted.outcome.isin(["pass", "fail"]) & counted.item.isin(public.id)]
        fractions = counted.groupby("item").outcome.apply(lambda o: (o == "fail").mean())
        frames.append(fractions.rename(bundle.name))
    return pd.concat(frames, axis=1)


def test_instances_are_the_public_draws_the_rates_count(exported: Exported) -> None:
    _, instances = _records(exported.out)
    frame = pd.DataFrame(
        {
            "slug": [r["evaluation_id"].split("/")[1] for r in instances],
            "item": [r["sample_id"] for r in instances],
            "score": [r["evaluation"]["score"] for r in instances],
        }
    )
    scores = frame.groupby(["item", "slug"]).score.mean().unstack()
    expected = _independent_public_fail_fractions(exported.root)
    pd.testing.assert_frame_equal(
        scores.sort_index(axis=0).sort_index(axis=1),
        expected.sort_index(axis=0).sort_index(axis=1),
        check_names=False,
    )


def test_held_out_items_never_appear_as_instances(exported: Exported) -> None:
    layout = Layout.at(exported.root, exported.root / ".private")
    data = load_volume(layout, "vol-002")
    heldout = set(data.bank.private)
    assert heldout
    texts = [i.pass_criterion for i in data.bank.private.values()]
    _, instances = _records(exported.out)
    assert not {r["sample_id"] for r in instances} & heldout
    blob = "\n".join(p.read_text("utf-8") for p in exported.out.rglob("*.json*"))
    assert not [t for t in texts if t in blob]
    assert not [i for i in heldout if f'"{i}"' in blob]


def test_export_is_reproducible(exported: Exported, root: Path, tmp_path: Path) -> None:
    """A second export, from another copy of the example, gives the same bytes."""
    _export(root, tmp_path / "two")
    one = {p.relative_to(exported.out): p.read_bytes() for p in exported.out.rglob("*.json*")}
    two = {
        p.relative_to(tmp_path / "two"): p.read_bytes() for p in (tmp_path / "two").rglob("*.json*")
    }
    assert one == two and len(one) == 16


def test_a_figure_that_does_not_recompute_refuses_the_export(
    root: Path, cli: CliRun, tmp_path: Path
) -> None:
    bundle = sorted(p for p in (root / "bundles" / "vol-002").iterdir() if p.is_dir())[0]
    verdicts = bundle / "verdicts.jsonl"
    lines = verdicts.read_text("utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    first["verdict"] = "pass" if first["verdict"] == "fail" else "fail"
    lines[0] = json.dumps(first) + "\n"
    verdicts.write_text("".join(lines), "utf-8")
    before = tree_state(root)
    result = cli("export", "eee", "vol-002", "--out", str(tmp_path / "eee"), *ORG)
    assert result.exit_code in (1, 2)
    assert "verdicts.jsonl" in result.output or "recompute" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "eee").exists()
    assert tree_state(root) == before


def test_the_organization_is_required_never_invented(cli: CliRun, tmp_path: Path) -> None:
    result = cli("export", "eee", "vol-002", "--out", str(tmp_path / "eee"))
    assert result.exit_code == 2
    assert "--organization" in result.output
