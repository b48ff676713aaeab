"""The example publication regenerates byte for byte from its seed."""

from __future__ import annotations

import json
from pathlib import Path

from generator.calibration.check import VALIDATED, calibrate
from generator.calibration.design import draw_id
from generator.demo import build as demo_build
from generator.demo.spec import scaled
from generator.models.calibration import CRITERION_LABELS
from generator.store import Layout, load_volume
from tests.conftest import CliRun, tree_state


def test_demo_twice_gives_identical_bytes(tmp_path: Path, cli: CliRun) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert cli("demo", root_dir=first).exit_code == 0
    assert cli("demo", root_dir=second).exit_code == 0
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


def test_demo_check_passes_then_names_a_changed_file(cli: CliRun, root: Path) -> None:
    before = tree_state(root)
    ok = cli("demo", "--check")
    assert ok.exit_code == 0, ok.stderr
    assert tree_state(root) == before
    target = root / "bundles" / "vol-001" / "volume.yaml"
    target.write_text(target.read_text("utf-8") + "# edited\n", "utf-8")
    bad = cli("demo", "--check")
    assert bad.exit_code == 1
    assert (
        "bundles/vol-001/volume.yaml: bytes differ from the seed's output [demo-drift]"
        in bad.stderr
    )


def test_committed_example_is_what_the_seed_produces() -> None:
    repo = Path(__file__).resolve().parents[2]
    diffs = demo_build.differences(demo_build.build(), Layout.at(repo, repo / ".private"))
    assert not diffs, [str(d) for d in diffs[:5]]


def test_heldout_text_is_only_in_the_private_store(example_src: Path) -> None:
    private = [
        json.loads(x)
        for x in (example_src / ".private" / "heldout_items.jsonl").read_text("utf-8").splitlines()
    ]
    assert len(private) == 29
    public = (example_src / "bank" / "public.jsonl").read_text("utf-8")
    index = (example_src / "bank" / "heldout_index.jsonl").read_text("utf-8")
    for item in private:
        assert item["pass_criterion"] not in public and item["pass_criterion"] not in index
        assert '"prompt"' not in index


def test_example_counts(example_src: Path) -> None:
    layout = Layout.at(example_src, example_src / ".private")
    one = load_volume(layout, "vol-001")
    two = load_volume(layout, "vol-002")
    assert [c.role for c in one.volume.candidates].count("anchor") == 1
    assert [c.role for c in two.volume.candidates].count("anchor") == 2
    assert len(two.volume.candidates) >= 8
    public = {v: len(two.bank.public_items(v)) for v in ("v1", "v1.1", "v1.2")}
    assert public == {"v1": 35, "v1.1": 37, "v1.2": 49}
    assert len(two.bank.heldout) == 29
    # vol-001 reads the bank as of its version (the cut): v1's 35 public and 28 held out.
    assert one.bank.manifest.version_ids() == ["v1"]
    assert (len(one.bank.public_items("v1")), len(one.bank.heldout)) == (35, 28)
    recusals = [r for b in two.bundles.values() for r in b.manifest.jury.recusals]
    assert {r.seat for r in recusals} == {"grader", "panel"}
    lost = sum(d.lost for b in one.bundles.values() for d in b.draws)
    assert lost > 0
    retried = sum(len(d.statuses) > 1 and not d.lost for b in one.bundles.values() for d in b.draws)
    assert retried > 0
    refusals = [
        q for b in one.bundles.values() for q in b.qualification if q.record.got == "refused"
    ]
    assert refusals


def test_one_half_of_one_draw_works(tmp_path: Path) -> None:
    from dataclasses import replace

    spec = scaled(2, 12)
    one = {"halves": ["A"], "draws_per_half": 1}
    spec = replace(spec, volumes=(replace(spec.volumes[0], protocol=one),))
    layout = Layout.at(tmp_path, tmp_path / ".private")
    demo_build.write(demo_build.build(spec), layout)
    data = load_volume(layout, "vol-001")
    assert all(len(b.draws) == 12 for b in data.bundles.values())


def test_scale_needs_out_and_writes_a_synthetic_volume(cli: CliRun, tmp_path: Path) -> None:
    refused = cli("demo", "--scale", "candidates=3,items=20")
    assert refused.exit_code == 2
    assert "--scale needs --out" in refused.stderr
    bad = cli("demo", "--scale", "candidates=x", "--out", str(tmp_path / "s"))
    assert bad.exit_code == 2
    ok = cli("demo", "--scale", "candidates=3,items=20", "--out", str(tmp_path / "s"))
    assert ok.exit_code == 0, ok.stderr
    data = load_volume(Layout.at(tmp_path / "s", tmp_path / "s" / ".private"), "vol-001")
    assert len(data.bundles) == 3
    assert all(len(b.draws) == 20 * 10 for b in data.bundles.values())


def test_vol_002_scores_a_rubric_group_and_calibrates_its_grader(example_src: Path) -> None:
    layout = Layout.at(example_src, example_src / ".private")
    one, two = load_volume(layout, "vol-001"), load_volume(layout, "vol-002")
    assert not one.volume.scoring_or_default().rubric_groups and one.volume.calibration is None
    (group,) = two.volume.scoring_or_default().rubric_groups
    rubric = {m.id for m in two.bank.active_items("v1.2") if m.category in group.categories}
    assert len(rubric) == 5 and any(two.bank.is_heldout(i) for i in rubric)
    graded = [
        v
        for b in two.bundles.values()
        for v in b.verdicts
        if v.key.item in rubric and v.verdict in ("pass", "fail")
    ]
    assert graded and all(v.rubric is not None for v in graded)
    assert {v.verdict for v in graded} == {"pass", "fail"}
    assert any(v.rubric.deflected for v in graded if v.rubric is not None)
    checked = calibrate(two)
    assert not checked.problems, checked.problems[:3]
    assert {r.criterion for _, r in checked.records} == set(CRITERION_LABELS)
    assert len({draw_id(r) for _, r in checked.records}) >= 100
    assert checked.decision is not None and not checked.decision.refused
    assert checked.label == VALIDATED
