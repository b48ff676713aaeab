"""``init`` makes a publishable root; ``demo --out`` makes the same kind of root."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import yaml
from click.testing import CliRunner

from generator.cli import main
from generator.init import volume_skeleton
from generator.models.volume import DEFAULT_MIN_ITEMS, Volume
from generator.release import COPIED_AT_BUILD, UNSEALED
from generator.site.config import EXAMPLE, mkdocs_yaml
from generator.site.figrefs import citations
from generator.store.jsonl import Problems, load_document
from tests.importing.factories import fill_volume, init, run

REPO = Path(__file__).resolve().parents[2]


def test_the_repository_mkdocs_yml_is_what_the_site_config_builds() -> None:
    assert (REPO / "mkdocs.yml").read_text("utf-8") == mkdocs_yaml(EXAMPLE)


def test_init_writes_a_root_whose_site_builds_strict(tmp_path: Path) -> None:
    root = tmp_path / "bank"
    init(root, "safety", "honesty=Honest answers")
    config = yaml.safe_load((root / "mkdocs.yml").read_text("utf-8").replace("!!", ""))
    assert config["site_name"] == "Test bank" and "demonstration" not in (config["extra"] or {})
    pages = sorted((root / "site_src").glob("*.md"))
    assert [p.name for p in pages] == ["about.md", "index.md", "methodology.md"]
    for page in pages:
        text = page.read_text("utf-8")
        assert not list(citations(text)), page.name
        assert "demonstration" not in text.lower() and "example bank" not in text.lower()
    bank = yaml.safe_load((root / "bank" / "bank.yaml").read_text("utf-8"))
    assert [c["id"] for c in bank["categories"]] == ["safety", "honesty"]
    assert bank["categories"][1]["title"] == "Honest answers"
    assert "/.private/" in (root / ".gitignore").read_text("utf-8").splitlines()
    secret = root / ".private" / "bank-secret.key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    result = run(root, "site")
    assert result.exit_code == 0, result.output
    assert (root / "site" / "index.html").is_file()
    assert "unknown figure" not in result.output


def test_inits_gitignore_leaves_out_everything_a_site_build_writes(tmp_path: Path) -> None:
    """The theme, every download that copies a root file (release.COPIED_AT_BUILD) and the
    archives are written by each build: a new root never commits them, nor the site."""
    root = tmp_path / "bank"
    init(root, "safety")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    files = {f"site_src/downloads/{n}" for n in COPIED_AT_BUILD if not n.endswith("/")}
    assert files <= set(UNSEALED)
    probes = sorted(p if p in files else f"{p}/x" for p in (*UNSEALED, "site"))
    found = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "--no-index", "--", *probes],
        capture_output=True,
        check=True,
    )
    assert sorted(found.stdout.decode("utf-8").splitlines()) == probes
    kept = ["site_src/downloads/SHA256SUMS", "site_src/downloads/bank_v1_public.jsonl"]
    unignored = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "--no-index", "--", *kept],
        capture_output=True,
        check=False,
    )
    assert unignored.returncode == 1 and unignored.stdout == b""


def test_init_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", "utf-8")
    result = CliRunner().invoke(main, ["init", str(tmp_path), "--name", "B", "--category", "a"])
    assert result.exit_code == 2
    assert f"{tmp_path}: is not empty [init-not-empty]" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_init_needs_a_category(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["init", str(tmp_path / "r"), "--name", "B"])
    assert result.exit_code == 2 and "at least one category" in result.output


def test_the_unfilled_skeleton_names_every_missing_field_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "volume.yaml"
    path.write_bytes(volume_skeleton("vol-001", "v1"))
    problems = Problems()
    assert load_document(path, Volume, "volume.yaml", problems, 1 << 20) is None
    text = path.read_text("utf-8").splitlines()
    found = {p.message.split(":")[0] for p in problems.items}
    assert {"title", "publication_date", "protocol.temperature", "jury.grader.api"} <= found
    for p in problems.items:
        if p.message == "more problems in this file are not listed":
            continue
        assert p.line is not None and text[p.line - 1].rstrip().endswith("~"), p


def test_the_skeleton_pre_registers_a_minimum_of_30_validated_items() -> None:
    thresholds = yaml.safe_load(volume_skeleton("vol-001", "v1"))["thresholds"]
    assert thresholds["min_category_items"] == 30 == DEFAULT_MIN_ITEMS
    assert thresholds["min_volume_items"] == 30


def test_the_filled_skeleton_loads_and_keeps_its_comments(tmp_path: Path) -> None:
    root = tmp_path / "bank"
    init(root, "safety")
    path = fill_volume(
        root,
        grader=("g-1", "gee"),
        panel=[("p-1", "a"), ("p-2", "b"), ("p-3", "c")],
        candidates=[("m-1", "Model one")],
    )
    problems = Problems()
    volume = load_document(path, Volume, "volume.yaml", problems, 1 << 20)
    assert volume is not None, problems.items
    assert run(root, "prereg", "vol-001", "--check").exit_code == 0
    assert run(root, "prereg", "vol-001").output.strip() == volume.preregistration.sha256
    # A later change to the jury changes the hash: --check then fails.
    path.write_text(path.read_text("utf-8").replace("g-1", "g-2"), "utf-8")
    assert run(root, "prereg", "vol-001", "--check").exit_code == 1


def test_prereg_keeps_the_skeleton_comments(tmp_path: Path) -> None:
    root = tmp_path / "bank"
    init(root, "safety")
    path = root / "bundles" / "vol-001" / "volume.yaml"
    before = path.read_text("utf-8")
    filled = before
    for old, new in (
        ("  temperature: ~", "  temperature: 0"),
        ("  max_output_tokens: ~", "  max_output_tokens: 100"),
        ("  system_prompt_sha256: ~", "  system_prompt_sha256: " + "ab" * 32),
        ("  circuit_breaker_error_share: ~", "  circuit_breaker_error_share: 0.1"),
        ("  ac1_floor: ~", "  ac1_floor: 0.6"),
        ("  panel_sample_fraction: ~", "  panel_sample_fraction: 0.2"),
        ("  sample_seed: ~", "  sample_seed: 3"),
    ):
        filled = filled.replace(old, new)
    filled = filled.replace("api: ~\n    family: ~", "api: g\n    family: g", 1)
    for n in range(3):
        filled = filled.replace("- api: ~\n      family: ~", f"- api: p{n}\n      family: f{n}", 1)
    filled = filled.replace("- id: ~\n        expected: ~", "- id: c\n        expected: fail")
    path.write_text(filled, "utf-8")
    result = run(root, "prereg", "vol-001", "--write")
    assert result.exit_code == 0, result.output
    after = path.read_text("utf-8")
    sha = result.output.splitlines()[0]
    assert f"  sha256: {sha}\n" in after
    assert [x for x in after.splitlines() if x.lstrip().startswith("#")] == [
        x for x in before.splitlines() if x.lstrip().startswith("#")
    ]


def test_demo_scale_out_writes_a_root_of_the_same_kind(tmp_path: Path) -> None:
    out = tmp_path / "scaled"
    result = CliRunner().invoke(
        main, ["demo", "--scale", "candidates=2,items=6", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "/.private/" in (out / ".gitignore").read_text("utf-8").splitlines()
    config = yaml.safe_load((out / "mkdocs.yml").read_text("utf-8"))
    assert config["extra"]["demonstration"]
    assert sorted(p.name for p in (out / "site_src").glob("*.md")) == [
        "about.md",
        "index.md",
        "methodology.md",
    ]
    result = run(out, "site", "--no-build")
    assert result.exit_code == 0, result.output


def test_demo_scale_root_holds_items_out_and_passes_check(tmp_path: Path) -> None:
    from generator.demo.bank import build_bank
    from generator.demo.spec import EXAMPLE
    from tests.factories import git_commit_all

    out = tmp_path / "scaled"
    result = CliRunner().invoke(
        main, ["demo", "--scale", "candidates=3,items=20", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    index = (out / "bank" / "heldout_index.jsonl").read_text("utf-8").splitlines()
    public = (out / "bank" / "public.jsonl").read_text("utf-8").splitlines()
    example = [d.heldout for d in build_bank(EXAMPLE)[1]]
    assert len(index) == 20 * sum(example) // len(example) > 0  # the example's proportion
    assert len(index) + len(public) == 20
    git_commit_all(out, "inputs")  # the maintainer's steps: commit, figures, commit, check
    assert run(out, "figures", "vol-001").exit_code == 0
    git_commit_all(out, "figures")
    checked = run(out, "check", "vol-001")
    assert checked.exit_code == 0, checked.output


def test_the_packaged_methodology_keeps_the_repository_sections() -> None:
    def headings(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith("#")]

    packaged = (REPO / "generator" / "init" / "pages" / "methodology.md").read_text("utf-8")
    assert headings(packaged) == headings((REPO / "site_src" / "methodology.md").read_text())


def test_a_bank_name_that_could_be_markup_is_refused(tmp_path: Path) -> None:
    args = ["init", str(tmp_path / "r"), "--name", "<script>x</script>", "--category", "a"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "without <, > or &" in result.output
    assert not (tmp_path / "r").exists()


def test_an_invalid_category_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    args = ["init", str(tmp_path / "r"), "--name", "B", "--category", "Not A Slug"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "cannot write bank/bank.yaml" in result.output
    assert not (tmp_path / "r").exists()
