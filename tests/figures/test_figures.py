"""The figures registry: independent cross-checks, receipts, verify, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from generator import figures
from generator.hashing import sha256_file
from generator.store import Layout
from generator.store.cut import CUT_FILES, cut_at
from tests.conftest import CliRun


@pytest.fixture(scope="module")
def published(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the example with both volumes' figures computed."""
    import shutil

    root = tmp_path_factory.mktemp("figs") / "root"
    shutil.copytree(example_src, root)
    layout = Layout.at(root, root / ".private")
    for vol in ("vol-001", "vol-002"):
        figures.write(layout, vol)
    return root


def _registry(root: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    """The figures as plain JSON, each with its source list looked up in the file's
    table (schema version 3 writes each distinct list once)."""
    data = json.loads((root / "figures" / "figures.json").read_text("utf-8"))
    table = data["sources"]
    assert len(table) < len(data["figures"]) / 10  # lists are shared, not repeated
    return {
        name: {**fig, "sources": table[fig["sources"]]} for name, fig in data["figures"].items()
    }


def _frame(root: Path, vol: str) -> pd.DataFrame:
    """Every verdict of a volume joined to item metadata, read with plain pandas."""
    items = pd.concat(
        [
            pd.read_json(root / "bank" / "public.jsonl", lines=True),
            pd.read_json(root / "bank" / "heldout_index.jsonl", lines=True),
        ]
    )[["id", "core", "status", "tier", "category", "added_in"]]
    frames = []
    for bundle in sorted((root / "bundles" / vol).iterdir()):
        if not bundle.is_dir():
            continue
        v = pd.read_json(bundle / "verdicts.jsonl", lines=True, dtype={"verdict": str})
        panel = pd.read_json(bundle / "panel.jsonl", lines=True)
        decided = panel[panel["vote"].isin(["pass", "fail"])]
        counts = decided.pivot_table(
            index=["item", "half", "draw"], columns="vote", aggfunc="size", fill_value=0
        )
        for col in ("pass", "fail"):
            if col not in counts:
                counts[col] = 0
        majority = np.where(
            counts["fail"] > counts["pass"],
            "fail",
            np.where(counts["pass"] > counts["fail"], "pass", "none"),
        )
        maj = pd.Series(majority, index=counts.index, name="majority").reset_index()
        v = v.merge(maj, on=["item", "half", "draw"], how="left")
        refused = v["verdict"] == "grader_refused"
        v.loc[refused, "verdict"] = v.loc[refused, "majority"].fillna("none")
        v["slug"] = bundle.name
        frames.append(v[v["verdict"].isin(["pass", "fail"])])
    draws = pd.concat(frames).merge(items, left_on="item", right_on="id", suffixes=("", "_item"))
    # Items of the volume's rubric groups are scored, never counted in a failure rate.
    scoring = yaml.safe_load((root / "bundles" / vol / "volume.yaml").read_text("utf-8"))["scoring"]
    groups = scoring.get("rubric_groups", [])
    scored = draws["category"].isin([c for g in groups for c in g.get("categories", [])])
    draws = draws[~(scored | draws["item"].isin([i for g in groups for i in g.get("items", [])]))]
    draws["failed"] = (draws["verdict"] == "fail").astype(float)
    return draws


@pytest.mark.parametrize("vol", ["vol-001", "vol-002"])
def test_rates_match_a_plain_pandas_groupby(published: Path, vol: str) -> None:
    reg = _registry(published)
    draws = _frame(published, vol)
    validated = draws[draws["status"] == "validated"]
    for name, subset in (("core_rate", validated[validated["core"]]), ("full_rate", validated)):
        per_item = subset.groupby(["slug", "item"])["failed"].mean()
        rates = per_item.groupby("slug").mean()
        for slug, value in rates.items():
            assert reg[f"{vol}/{slug}/{name}"]["value"] == f"{value:.4f}", (slug, name)
    for cat, subset in validated.groupby("category"):
        rates = subset.groupby(["slug", "item"])["failed"].mean().groupby("slug").mean()
        for slug, value in rates.items():
            assert reg[f"{vol}/{slug}/category/{cat}/rate"]["value"] == f"{value:.4f}"


def test_every_source_hash_matches_the_file_on_disk(published: Path) -> None:
    reg = _registry(published)
    assert len(reg) > 300
    hashes: dict[str, str] = {}
    layout = Layout.at(published, published / ".private")
    cuts: dict[str, dict[str, str]] = {}  # the bank files as of each volume's version
    for fig in reg.values():
        assert fig["sources"], fig["id"]
        volume = fig["id"].split("/")[0]
        if volume not in cuts:
            cuts[volume] = cut_at(layout, volume)
        cut = cuts[volume]
        assert set(cut) == set(CUT_FILES)
        for src in fig["sources"]:
            if src["path"] in cut:
                assert cut[src["path"]] == src["sha256"], (fig["id"], src["path"])
                continue
            if src["path"] not in hashes:
                hashes[src["path"]] = sha256_file(published / src["path"])
            assert hashes[src["path"]] == src["sha256"], (fig["id"], src["path"])


def test_values_are_decimal_strings_with_declared_precision(published: Path) -> None:
    for fig in _registry(published).values():
        value = fig["value"]
        places = fig["precision"]
        assert isinstance(value, str)
        assert (len(value.split(".")[1]) if "." in value else 0) == places, fig["id"]
        for iv in fig["intervals"].values():
            assert float(iv["lo"]) <= float(iv["hi"])


def test_rank_ranges_follow_the_paired_separations(published: Path) -> None:
    """The example declares paired-holm: no tie groups, and each range is what its
    separations allow (1 + models better .. N - models worse), both ends agreeing."""
    reg = _registry(published)
    for vol in ("vol-001", "vol-002"):
        # Every ranked model (a baseline has a core rate but no rank).
        slugs = {k.split("/")[1] for k in reg if k.startswith(vol) and k.endswith("/rank_best")}
        assert not any(f"{vol}/{slug}/tie_group" in reg for slug in slugs)
        for slug in slugs:
            best, worst = reg[f"{vol}/{slug}/rank_best"], reg[f"{vol}/{slug}/rank_worst"]
            assert best["detail"] == worst["detail"]
            detail = best["detail"]
            assert detail["familywise_confidence"] == "0.95" and detail["of"] == len(slugs)
            assert int(best["value"]) == 1 + len(detail["worse_than"])
            assert int(worst["value"]) == len(slugs) - len(detail["better_than"])
            assert "Holm" in best["method"]
            for other in detail["better_than"]:
                assert slug in reg[f"{vol}/{other}/rank_best"]["detail"]["worse_than"]
                # The better model has the lower core rate.
                assert float(reg[f"{vol}/{slug}/core_rate"]["value"]) < float(
                    reg[f"{vol}/{other}/core_rate"]["value"]
                )


def test_two_anchor_rule(published: Path) -> None:
    reg = _registry(published)
    first = reg["vol-001/movement/anchors"]
    assert first["value"] == "0" and "No previous volume" in first["detail"]["statement"]
    second = reg["vol-002/movement/anchors"]
    # vol-002 adds its second anchor, but only the first was measured in vol-001 too.
    assert second["value"] == "1"
    assert second["detail"]["statement"].startswith("Movement is not published")
    assert not [k for k in reg if k.startswith("vol-002/movement/") and k.endswith("/core")]
    assert [k for k in reg if k.startswith("vol-002/drift/")]


def test_rerunning_gives_identical_bytes(published: Path) -> None:
    path = published / "figures" / "figures.json"
    before = path.read_bytes()
    layout = Layout.at(published, published / ".private")
    assert figures.write(layout, "vol-002")[1] is False
    assert path.read_bytes() == before
    assert before.endswith(b"}\n") and b"\r" not in before


def test_verify_passes_then_names_the_figure_after_one_byte_changes(
    published: Path, tmp_path: Path, cli: CliRun
) -> None:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(published, root)
    ok = cli("figures", "vol-001", "--verify", root_dir=root)
    assert ok.exit_code == 0, ok.stderr
    verdicts = root / "bundles" / "vol-001" / "demo-ember-ember-mini" / "verdicts.jsonl"
    data = bytearray(verdicts.read_bytes())
    data[data.index(b'"fail"') + 1] = ord("F")  # one byte
    verdicts.write_bytes(bytes(data))
    bad = cli("figures", "vol-001", "--verify", root_dir=root)
    assert bad.exit_code in (1, 2)
    assert "vol-001/demo-ember-ember-mini/core_rate" in bad.stderr or "verdicts.jsonl" in bad.stderr


def test_verify_names_figures_whose_source_changed(
    published: Path, tmp_path: Path, cli: CliRun
) -> None:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(published, root)
    volume = root / "bundles" / "vol-001" / "volume.yaml"
    volume.write_text(volume.read_text("utf-8") + "\n", "utf-8")
    bad = cli("figures", "vol-001", "--verify", root_dir=root)
    assert bad.exit_code == 1
    fid = "vol-001/baseline-always-refuse/core_rate"  # among the first shown, in id order
    line = next(x for x in bad.stderr.splitlines() if x.startswith(f"{fid}: "))
    assert line.startswith(f"{fid}: source bundles/vol-001/volume.yaml changed (sha256 ")
    assert line.endswith("[figure-mismatch]")
    report = json.loads(cli("figures", "vol-001", "--verify", "--json", root_dir=root).stdout)
    assert report["verified"] is False
    assert {"figure": fid, "message": line.removeprefix(f"{fid}: ").split(" [")[0]} in (
        report["mismatches"]
    )
