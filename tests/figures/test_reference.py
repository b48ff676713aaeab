"""Published rates follow from the raters' labels and come from the declared reference
rater set (grader, panel majority or an adjudication seat); every page says which."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from generator import figures
from generator.demo import build as demo_build
from generator.demo.spec import EXAMPLE
from generator.figures.tally import tally_bundle
from generator.models.volume import Volume
from generator.render.run import render_volume
from generator.store import Layout
from generator.store.volume import load_volume
from tests.conftest import CliRun
from tests.factories import edit_volume, git_commit_all

VOL = "vol-001"


def _registry(root: Path) -> dict[str, Any]:
    data = json.loads((root / "figures" / "figures.json").read_text("utf-8"))
    return data["figures"]  # type: ignore[no-any-return]


def _rule_of(root: Path) -> dict[str, dict[str, str]]:
    """Item id → its group's label rule, read from volume.yaml and the bank with plain yaml."""
    scoring = yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))["scoring"]
    out = {}
    for name in ("public.jsonl", "heldout_index.jsonl"):
        for line in (root / "bank" / name).read_text("utf-8").splitlines():
            item = json.loads(line)
            for group in scoring["groups"]:
                if item["category"] in group["categories"] or item["id"] in group["items"]:
                    out[item["id"]] = group["rule"]
    return out


def _items(root: Path) -> pd.DataFrame:
    return pd.concat(
        [
            pd.read_json(root / "bank" / "public.jsonl", lines=True),
            pd.read_json(root / "bank" / "heldout_index.jsonl", lines=True),
        ]
    )[["id", "status", "added_in"]]


def _from_labels(rows: pd.DataFrame, rule: dict[str, dict[str, str]]) -> pd.Series:
    """Each labelled row's outcome by the rule of its item's group (None: no label)."""
    return pd.Series(
        [
            rule[item][label] if isinstance(label, str) else None
            for item, label in zip(rows["item"], rows["label"], strict=True)
        ],
        index=rows.index,
        dtype=object,
    )


def _majority(panel: pd.DataFrame) -> pd.Series:
    decided = panel[panel["outcome"].isin(["pass", "fail"])]
    counts = decided.pivot_table(
        index=["item", "half", "draw"], columns="outcome", aggfunc="size", fill_value=0
    )
    for col in ("pass", "fail"):
        if col not in counts:
            counts[col] = 0
    picked = np.where(
        counts["fail"] > counts["pass"],
        "fail",
        np.where(counts["pass"] > counts["fail"], "pass", "none"),
    )
    return pd.Series(picked, index=counts.index, name="majority")


def _rates(root: Path, reference: str) -> dict[str, float]:
    """Full-bank rate of every candidate, computed from the labels alone (the recorded
    pass/fail of judged draws is never read)."""
    rule = _rule_of(root)
    items = _items(root)
    validated = set(items[items["status"] == "validated"]["id"])
    out = {}
    for bundle in sorted(p for p in (root / "bundles" / VOL).iterdir() if p.is_dir()):
        v = pd.read_json(bundle / "verdicts.jsonl", lines=True, dtype={"verdict": str})
        if "label" not in v:
            v["label"] = None
        panel = pd.read_json(bundle / "panel.jsonl", lines=True)
        panel["outcome"] = _from_labels(panel, rule)
        v = v.merge(_majority(panel).reset_index(), on=["item", "half", "draw"], how="left")
        judged = (v["tier"] == 1) & (v["verdict"] != "lost")
        outcome = v["verdict"].where(~judged, _from_labels(v, rule))
        if reference == "grader":
            refused = judged & outcome.isna()
            outcome = outcome.where(~refused, v["majority"])
        else:
            outcome = outcome.where(~judged, v["majority"])
        v["failed"] = (outcome == "fail").astype(float)
        v = v[outcome.isin(["pass", "fail"]) & v["item"].isin(validated)]
        out[bundle.name] = float(v.groupby("item")["failed"].mean().mean())
    return out


def test_grader_rates_are_reproducible_from_the_labels(example_src: Path, tmp_path: Path) -> None:
    root = shutil.copytree(example_src, tmp_path / "root")
    figures.write(Layout.at(root, root / ".private"), VOL)
    reg = _registry(root)
    expected = _rates(root, "grader")
    assert len(expected) == 8  # six models and two baselines, scored alike
    for slug, value in expected.items():
        rate = reg[f"{VOL}/{slug}/full_rate"]
        assert rate["value"] == f"{value:.4f}", slug
        assert rate["method"].endswith("reference rater set: grader")
        assert f"{VOL}/{slug}/reference_undecided" not in reg


@pytest.fixture(scope="module")
def panel_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-volume example whose panel re-grades every judged draw and is the reference."""
    vol = replace(
        EXAMPLE.volumes[0],
        candidates=EXAMPLE.volumes[0].candidates[:3],
        thresholds={**EXAMPLE.volumes[0].thresholds, "panel_sample_fraction": Decimal(1)},
        reference="panel-majority",
    )
    spec = replace(EXAMPLE, volumes=(vol,))
    root = tmp_path_factory.mktemp("panel-reference")
    layout = Layout.at(root, root / ".private")
    demo_build.write(demo_build.build(spec), layout)
    figures.write(layout, VOL)
    git_commit_all(root)
    return root


def test_a_panel_majority_reference_passes_every_gate_and_sets_the_rates(
    panel_reference: Path, cli: CliRun
) -> None:
    result = cli("check", VOL, root_dir=panel_reference)
    assert result.exit_code == 0, result.output
    reg = _registry(panel_reference)
    by_labels = _rates(panel_reference, "panel-majority")
    by_grader = _rates(panel_reference, "grader")
    assert by_labels != by_grader  # the reference decides: the grader's rates differ
    for slug, value in by_labels.items():
        assert reg[f"{VOL}/{slug}/full_rate"]["value"] == f"{value:.4f}", slug
        assert reg[f"{VOL}/{slug}/full_rate"]["method"].endswith("set: panel-majority")
        assert reg[f"{VOL}/{slug}/reference_undecided"]["detail"]["reference"] == ("panel-majority")


def test_every_page_says_which_rater_set_is_the_reference(panel_reference: Path) -> None:
    root = shutil.copytree(panel_reference, panel_reference.parent / "pages")
    layout = Layout.at(root, root / ".private")
    render_volume(layout, VOL, pdf=False, draft=True)
    pages = sorted((root / "site_src" / "volumes" / VOL).rglob("*.html"))
    assert len(pages) == 4  # the leaderboard and three jury cards
    for page in pages:
        html = page.read_text("utf-8")
        assert "Reference rater set: the panel majority: the majority of the independent" in html
        assert "leniency shows how far the grader, which is not the reference" in html


def test_an_adjudication_seat_decides_and_is_no_independent_vote(root: Path) -> None:
    """Adjudication labels as votes of the jury's adjudication seat in panel.jsonl: they
    decide every judged draw they label and never enter the panel majority."""
    seat = "adjudicator-1"

    def adjudicated(doc: dict[str, Any]) -> None:
        panel = [j["api"] for j in doc["jury"]["panel"]]
        adjudication = {"rater": {"kind": "human", "id": seat}, "adjudicates": panel[:2]}
        doc["jury"]["adjudication"] = adjudication
        doc["scoring"]["reference"] = "adjudication"

    edit_volume(root, adjudicated)
    data = load_volume(Layout.at(root, root / ".private"), VOL)
    volume: Volume = data.volume
    bundle = next(iter(data.bundles.values()))
    index = {m.id: n for n, m in enumerate(data.bank.active_items(volume.bank_version))}
    judged = [v for v in bundle.verdicts if v.tier == 1 and v.verdict != "lost"]
    flipped = judged[0]
    # The seat labels every judged draw as the grader did, except the first: reversed.
    votes = [
        bundle.panel[0]._replace(
            key=v.key,
            judge=seat,
            vote=("fail" if v.verdict == "pass" else "pass") if v is flipped else v.verdict,
        )
        for v in judged
        if v.verdict in ("pass", "fail")
    ]
    seated = replace(bundle, panel=[*bundle.panel, *votes])
    halves = list(volume.protocol.halves)
    by_seat = tally_bundle(seated, index, halves, volume)
    by_grader = tally_bundle(bundle, index, halves)
    pos = index[flipped.key.item]
    step = 1 if flipped.verdict == "pass" else -1
    assert by_seat.k[pos] == by_grader.k[pos] + step
    refused = sum(v.verdict == "grader_refused" for v in judged)
    assert by_seat.undecided == refused  # no adjudicated label: counted toward no rate
    assert by_seat.n.sum() == by_grader.n.sum() - by_grader.refused + by_grader.refused_undecided
