"""A bank that grows after its first volume is published (issue 18): a volume's bank
inputs are the bank as of its version (``generator.store.cut``), so later versions leave
a published volume as it was, while an edit inside its cut is still refused."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.hashing import sha256_file
from generator.store.cut import cut_at
from generator.store.paths import Layout
from tests.factories import git_commit_all, stand_in_pdfs
from tests.test_publish import home_page_at, publication_root

LATER = ("v1.1", "v1.2")
BANK_FILES = ("bank/public.jsonl", "bank/heldout_index.jsonl", ".private/heldout_items.jsonl")


def _run(root: Path, *args: str) -> Result:
    with pytest.MonkeyPatch.context() as patch:
        stand_in_pdfs(patch)
        return CliRunner().invoke(main, ["--root", str(root), *args], catch_exceptions=False)


def _strip_later_versions(root: Path) -> None:
    """The example as it stood before v1.1: no later version entries, items or vol-002."""
    manifest = root / "bank" / "bank.yaml"
    text = manifest.read_text("utf-8")
    start, end = text.index("- id: v1.1\n"), text.index("\n", text.index("- id: v1.2\n"))
    end = text.index("  retired: []\n", end) + len("  retired: []\n")
    manifest.write_text(text[:start] + text[end:], "utf-8")  # the later entries, nothing else
    for rel in BANK_FILES:
        path = root / rel
        lines = path.read_bytes().splitlines(keepends=True)
        kept = [line for line in lines if json.loads(line)["added_in"] not in LATER]
        assert len(kept) < len(lines)
        path.write_bytes(b"".join(kept))
    shutil.rmtree(root / "bundles" / "vol-002")


def _pages_before_vol002(root: Path) -> None:
    """The hand-written pages as they read before vol-002 (they cite its figures now)."""
    home_page_at(root, "vol-001")
    findings = "# Findings\n\nVolume 001's results are on its [page](volumes/vol-001/index.md).\n"
    (root / "site_src" / "findings.md").write_text(findings, "utf-8")


def _vol001_files(root: Path) -> dict[str, str]:
    """Every file the publication of vol-001 wrote about it: its frozen pages, release and
    figures digest, and the v1 bank download (with their SHA-256)."""
    paths = [
        *sorted((root / "site_src" / "volumes" / "vol-001").rglob("*")),
        root / "site_src" / "downloads" / "bank_v1_public.jsonl",
        root / "site" / "downloads" / "bank_v1_public.jsonl",
    ]
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in paths if p.is_file()}


@pytest.fixture(scope="module")
def grown(example_vol002_src: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """vol-001 published on bank v1 alone; then v1.1, v1.2 and vol-002 added, committed
    and published with it (the example as of vol-002: its later versions, volumes and
    ledger lines are another story). Returns the root and vol-001's files after the
    first publish."""
    source = tmp_path_factory.mktemp("growth") / "source"
    shutil.copytree(example_vol002_src, source, symlinks=True)
    full = tmp_path_factory.mktemp("growth-full")
    for rel in ("bank", ".private", "bundles/vol-002"):
        shutil.copytree(source / rel, full / rel)
    _strip_later_versions(source)
    root = publication_root(source, tmp_path_factory.mktemp("growth-root") / "root")
    pages = {p: (root / p).read_bytes() for p in ("site_src/index.md", "site_src/findings.md")}
    _pages_before_vol002(root)
    git_commit_all(root, "pages of vol-001")
    first = _run(root, "publish", "vol-001")
    assert first.exit_code == 0, first.output
    git_commit_all(root, "publish vol-001 on bank v1")
    before = _vol001_files(root)
    assert any(p.endswith("/leaderboard.html") for p in before)
    for rel in ("bank", ".private", "bundles/vol-002"):
        shutil.rmtree(root / rel, ignore_errors=True)
        shutil.copytree(full / rel, root / rel)
    for page, data in pages.items():
        (root / page).write_bytes(data)
    git_commit_all(root, "bank v1.1 and v1.2, vol-002")
    second = _run(root, "publish", "vol-001", "vol-002")
    assert second.exit_code == 0, second.output
    git_commit_all(root, "publish vol-002")
    return root, before


def test_a_published_volume_survives_the_bank_growing(grown: tuple[Path, dict]) -> None:
    root, before = grown
    assert _vol001_files(root) == before  # byte-identical: pages, release, download
    release = json.loads((root / "site_src/volumes/vol-002/release.json").read_text("utf-8"))
    assert release["volume"] == "vol-002" and not release["draft"]
    assert (root / "site_src/downloads/bank_v1_2_public.jsonl").is_file()


def test_the_grown_publication_verifies(grown: tuple[Path, dict]) -> None:
    root, _ = grown
    for where in (root, root / "site"):
        result = _run(root, "verify", "--json", str(where))
        assert result.exit_code == 3, result.output  # intact, recomputed; no trusted key
        report = json.loads(result.stdout)
        assert report["integrity"] and report["recomputed"], result.output


def test_a_later_category_adds_no_column_to_an_earlier_volume(grown: tuple[Path, dict]) -> None:
    root, _ = grown
    first = (root / "site_src/volumes/vol-001/leaderboard.html").read_text("utf-8")
    later = (root / "site_src/volumes/vol-002/leaderboard.html").read_text("utf-8")
    assert "Health advice" in later  # declared with v1.2's items
    assert "Health advice" not in first


def _copy(root: Path, dest: Path) -> Path:
    shutil.copytree(root, dest, symlinks=True)
    return dest


def test_editing_a_published_item_is_refused(grown: tuple[Path, dict], tmp_path: Path) -> None:
    root = _copy(grown[0], tmp_path / "edited")
    path = root / "bank" / "public.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    n, line = next((n, x) for n, x in enumerate(lines) if '"added_in":"v1"' in x)
    lines[n] = line.replace('"prompt":"', '"prompt":"Quietly reworded. ', 1)
    path.write_text("".join(lines), "utf-8")
    git_commit_all(root, "reword a v1 item")
    result = _run(root, "publish", "vol-001", "vol-002")
    assert result.exit_code == 1
    assert "vol-001 is published and its inputs changed since" in result.stderr
    assert "bank/public.jsonl: changed since publication [immutable-archive]" in result.stderr


def test_editing_a_published_version_entry_is_refused(
    grown: tuple[Path, dict], tmp_path: Path
) -> None:
    root = _copy(grown[0], tmp_path / "edited")
    path = root / "bank" / "bank.yaml"
    text = path.read_text("utf-8")
    path.write_text(text.replace("released: '2026-08-15'", "released: '2026-08-14'", 1), "utf-8")
    git_commit_all(root, "redate v1")
    result = _run(root, "publish", "vol-001")
    assert result.exit_code == 1
    assert "bank/bank.yaml: changed since publication [immutable-archive]" in result.stderr


def test_verify_names_an_edited_published_item(grown: tuple[Path, dict], tmp_path: Path) -> None:
    root = _copy(grown[0], tmp_path / "edited")
    path = root / "bank" / "heldout_index.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    assert '"core":true' in lines[0]
    lines[0] = lines[0].replace('"core":true', '"core": true', 1)  # same record, other bytes
    path.write_text("".join(lines), "utf-8")
    result = _run(root, "verify", str(root))
    assert result.exit_code == 1, result.output
    assert "bank/heldout_index.jsonl: differs from site_src/volumes/vol-001/release.json" in (
        result.stdout + result.stderr
    )


def _as_before_the_cut_change(root: Path) -> str:
    """Rewrite vol-001's release as the code before the cut change wrote it: each bank
    file recorded whole, as it was at the release's inputs commit; returns the commit."""
    path = root / "site_src/volumes/vol-001/release.json"
    release = json.loads(path.read_text("utf-8"))
    commit = str(release["inputs_commit"])
    for rel in ("bank/bank.yaml", "bank/public.jsonl", "bank/heldout_index.jsonl"):
        old = subprocess.run(
            ["git", "-C", str(root), "show", f"{commit}:./{rel}"], capture_output=True, check=True
        ).stdout
        release["inputs"][rel] = hashlib.sha256(old).hexdigest()
    path.write_text(json.dumps(release, indent=2, sort_keys=True) + "\n", "utf-8")
    return commit


def test_the_current_releases_record_the_bank_as_of_their_version(
    grown: tuple[Path, dict],
) -> None:
    root, _ = grown
    layout = Layout.at(root, root / ".private")
    for volume in ("vol-001", "vol-002"):
        release = json.loads((root / f"site_src/volumes/{volume}/release.json").read_text())
        cut = cut_at(layout, volume)
        assert set(cut) == {"bank/bank.yaml", "bank/public.jsonl", "bank/heldout_index.jsonl"}
        assert {k: release["inputs"][k] for k in cut} == cut, volume
    assert cut_at(layout, "vol-001")["bank/bank.yaml"] != sha256_file(root / "bank/bank.yaml")


def test_a_release_written_before_the_cut_change_is_refused_with_a_remedy(
    grown: tuple[Path, dict], tmp_path: Path
) -> None:
    root = _copy(grown[0], tmp_path / "old")
    commit = _as_before_the_cut_change(root)[:12]
    path = root / "bank" / "public.jsonl"  # and one real edit inside vol-001's cut
    lines = path.read_text("utf-8").splitlines(keepends=True)
    n = next(n for n, x in enumerate(lines) if '"added_in":"v1"' in x)
    lines[n] = lines[n].replace('"prompt":"', '"prompt":"Quietly reworded. ', 1)
    path.write_text("".join(lines), "utf-8")
    git_commit_all(root, "an old-format release of vol-001, and an edit")
    result = _run(root, "publish", "vol-001", "vol-002")
    assert result.exit_code == 1
    assert (
        f"bank/bank.yaml: vol-001's release records the whole file as of commit {commit}: it "
        "was written before a volume's bank inputs were the bank as of its version, so it "
        "pins every later version's lines too; the bank as of the volume's version is "
        "unchanged, only grown, but the release cannot show it [old-release-format]; fix: "
        f"restore bank/bank.yaml as it was (`git checkout {commit} -- bank/bank.yaml`) to "
        "publish vol-001 again; publish the bank's later versions from a new root: `verify` "
        "would report bank/bank.yaml changed to every reader of vol-001"
    ) in result.stderr
    # The edited file is not passed off as growth.
    assert "bank/public.jsonl: changed since publication [immutable-archive]" in result.stderr
    assert "bank/heldout_index.jsonl" not in result.stderr  # recorded whole, still its cut
