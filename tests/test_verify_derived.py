"""``verify`` rebuilds the tidy leaderboards and the bundle archives and compares them."""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.site import archive, tidy
from generator.verify_checks import View, open_view
from generator.verify_derived import check_derived
from tests.site.downstream import generated_root

VOLUMES = ["vol-001", "vol-002"]
DOWNLOADS = "site_src/downloads"


@pytest.fixture
def copy(example_src: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    dest = tmp_path / "root"
    shutil.copytree(generated_root(example_src, tmp_path_factory), dest, symlinks=True)
    return dest


def _findings(path: Path) -> tuple[View, list[str]]:
    view = open_view(path)
    check_derived(view, VOLUMES)
    return view, [f"{p.path}: {p.message}" for p in view.findings]


def test_an_intact_root_and_site_pass(copy: Path, tmp_path: Path) -> None:
    view, found = _findings(copy)
    assert found == []
    assert view.checked["derived_downloads"] == 6
    site = tmp_path / "site"
    shutil.copytree(copy / DOWNLOADS, site / "downloads")
    assert _findings(site)[1] == []


def test_an_edited_leaderboard_is_named(copy: Path) -> None:
    path = copy / DOWNLOADS / tidy.csv_name("vol-002")
    path.write_text(path.read_text("utf-8").replace(",0.", ",0.9", 1), "utf-8")
    (copy / DOWNLOADS / tidy.json_name("vol-001")).unlink()
    found = _findings(copy)[1]
    assert found == [
        f"{DOWNLOADS}/{tidy.json_name('vol-001')}: is missing (every published volume's "
        "downloads hold the leaderboard that vol-001's volume file and figures give)",
        f"{DOWNLOADS}/{tidy.csv_name('vol-002')}: differs from the leaderboard that vol-002's "
        "volume file and figures give",
    ]


def _rewrite(path: Path, change: bytes | None, level: int = 9) -> None:
    """Repack the archive at ``path``; ``change`` appended to its first member."""
    with tarfile.open(path, "r:gz") as tar:
        members = []
        for info in tar.getmembers():
            handle = tar.extractfile(info)
            assert handle is not None
            members.append((info.name, handle.read()))
    if change is not None:
        members[0] = (members[0][0], members[0][1] + change)
    tar_bytes = archive.tar_bytes(members)
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=level) as gz:
        gz.write(tar_bytes)
    path.write_bytes(out.getvalue())


def test_an_archive_compressed_by_another_zlib_still_passes(copy: Path) -> None:
    path = copy / DOWNLOADS / archive.archive_name("vol-002")
    before = path.read_bytes()
    _rewrite(path, None, level=1)
    assert path.read_bytes() != before
    assert _findings(copy)[1] == []


def test_an_archive_that_differs_from_the_bundles_is_named(copy: Path, tmp_path: Path) -> None:
    _rewrite(copy / DOWNLOADS / archive.archive_name("vol-002"), b"extra\n")
    (copy / DOWNLOADS / archive.archive_name("vol-001")).write_bytes(b"not an archive")
    found = _findings(copy)[1]
    assert found[0].startswith(f"{DOWNLOADS}/{archive.archive_name('vol-001')}: cannot read")
    assert "not gzip data" in found[0]
    assert found[1] == (
        f"{DOWNLOADS}/{archive.archive_name('vol-002')}: does not hold exactly the public "
        "bundles of vol-002 (names, bytes and fixed metadata)"
    )
    assert len(found) == 2


def test_a_site_whose_bundle_copy_changed_no_longer_matches_its_archive(
    copy: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(copy / DOWNLOADS, site / "downloads")
    draws = sorted((site / "downloads/bundles/vol-002").glob("*/draws.jsonl"))[0]
    draws.write_bytes(draws.read_bytes() + b"\n")
    found = _findings(site)[1]
    assert found == [
        f"downloads/{archive.archive_name('vol-002')}: does not hold exactly the public "
        "bundles of vol-002 (names, bytes and fixed metadata)"
    ]


def test_verify_reports_it_with_a_failing_exit(copy: Path) -> None:
    path = copy / DOWNLOADS / tidy.json_name("vol-002")
    path.write_bytes(path.read_bytes().replace(b'"value": "0.', b'"value": "0.9', 1))
    result = CliRunner().invoke(main, ["--root", str(copy), "verify"], catch_exceptions=False)
    assert result.exit_code == 1
    shown = result.output + (result.stderr if result.stderr_bytes else "")
    assert f"{DOWNLOADS}/{tidy.json_name('vol-002')}: differs from the leaderboard" in shown


def test_a_changed_bundle_is_the_root_cause_not_also_its_archive(copy: Path) -> None:
    bundle = sorted((copy / "bundles/vol-002").glob("*/verdicts.jsonl"))[0]
    bundle.write_bytes(bundle.read_bytes() + b"\n")
    rel = bundle.relative_to(copy).as_posix()
    view = open_view(copy)
    view.add(rel, "does not match its SHA256SUMS line")  # as the integrity checks name it
    check_derived(view, VOLUMES)
    assert [f"{p.path}: {p.message}" for p in view.findings] == [
        f"{rel}: does not match its SHA256SUMS line"
    ]
    alone = _findings(copy)[1]  # without the root cause named, the archive is named
    assert alone == [
        f"{DOWNLOADS}/{archive.archive_name('vol-002')}: does not hold exactly the public "
        "bundles of vol-002 (names, bytes and fixed metadata)"
    ]
