"""``verify`` rebuilds the tidy leaderboards and the bundle archives and compares them."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import signal
import tarfile
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator import figures
from generator import verify as verify_module
from generator.cli import main
from generator.forked import ChildTraceback
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
    check_derived(view, VOLUMES, figures.load_registry(view.layout))
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
    check_derived(view, VOLUMES, figures.load_registry(view.layout))
    assert [f"{p.path}: {p.message}" for p in view.findings] == [
        f"{rel}: does not match its SHA256SUMS line"
    ]
    alone = _findings(copy)[1]  # without the root cause named, the archive is named
    assert alone == [
        f"{DOWNLOADS}/{archive.archive_name('vol-002')}: does not hold exactly the public "
        "bundles of vol-002 (names, bytes and fixed metadata)"
    ]


def _sums_line(root: Path, name: str, digest: str | None) -> None:
    """Rewrite (or, with None, drop) the SHA256SUMS line of download ``name``."""
    sums = root / DOWNLOADS / "SHA256SUMS"
    lines = []
    for line in sums.read_text("utf-8").splitlines():
        if not line.endswith(f"  {name}"):
            lines.append(line)
        elif digest is not None:
            lines.append(f"{digest}  {name}")
    sums.write_text("".join(f"{line}\n" for line in lines), "utf-8")


def test_a_root_without_built_archives_checks_their_sums_lines(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean clone holds no archive: each SHA256SUMS line is checked against the
    archive compressed again; under another zlib, against the registered archive whose
    tar the bundles give (a note, not a finding); a line naming other bytes is named."""
    shutil.rmtree(copy / DOWNLOADS / archive.FOLDER)
    view, found = _findings(copy)
    assert (found, view.notes) == ([], [])
    monkeypatch.setattr(archive, "compress", lambda tar: gzip.compress(tar, 1, mtime=0))
    monkeypatch.setattr(archive, "zlib_version", lambda: "1.3.1.zlib-ng")
    view, found = _findings(copy)
    assert found == []
    name = archive.archive_name("vol-002")
    assert (
        f"{DOWNLOADS}/{name} is not built here and zlib 1.3.1.zlib-ng compresses differently "
        f"from the publisher's {zlib.ZLIB_RUNTIME_VERSION}: its SHA256SUMS line was checked "
        "through the tar the download registry records"
    ) in view.notes
    assert len(view.notes) == 2
    _sums_line(copy, name, "0" * 64)
    _sums_line(copy, archive.archive_name("vol-001"), None)
    assert _findings(copy)[1] == [
        f"{DOWNLOADS}/SHA256SUMS: lists no {archive.archive_name('vol-001')}: every published "
        "volume has one",
        f"{DOWNLOADS}/{name}: is not built here, and the public bundles of vol-002 compressed "
        "with zlib 1.3.1.zlib-ng do not give the archive SHA256SUMS lists, nor does the "
        "download registry record that archive with the bundles' tar",
    ]


def test_a_root_without_built_archives_names_changed_bundles(copy: Path) -> None:
    shutil.rmtree(copy / DOWNLOADS / archive.FOLDER)
    volume_file = copy / "bundles/vol-001/volume.yaml"
    volume_file.write_bytes(volume_file.read_bytes() + b"# planted\n")
    found = _findings(copy)[1]
    assert found == [
        f"{DOWNLOADS}/{archive.archive_name('vol-001')}: is not built here, and the public "
        f"bundles of vol-001 compressed with zlib {zlib.ZLIB_RUNTIME_VERSION} do not give the "
        "archive SHA256SUMS lists, nor does the download registry record that archive with "
        "the bundles' tar",
    ]


def _shown(result: Result) -> str:
    return result.output + (result.stderr if result.stderr_bytes else "")


def test_checks_whose_child_is_killed_fail_verify_never_pass(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leaderboard, archive and canary checks run in a forked child beside the
    recomputation: a child killed there (the OOM killer, a signal) is an error (exit 2)."""
    kill = lambda view: os.kill(os.getpid(), signal.SIGKILL)  # noqa: E731
    monkeypatch.setattr(verify_module, "check_canary", kill)
    result = CliRunner().invoke(main, ["--root", str(copy), "verify"])
    assert result.exit_code == 2, _shown(result)
    assert (
        "the leaderboard, archive and canary checks did not finish: the child process was "
        "killed by signal 9 (Killed) before handing back a result, so nothing is verified"
    ) in _shown(result)


def test_an_error_in_the_child_is_raised_by_verify(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(view: View, published: list[str], registry: object) -> None:
        raise ValueError("a bug in the leaderboard check")

    monkeypatch.setattr(verify_module, "check_derived", broken)
    result = CliRunner().invoke(main, ["--root", str(copy), "verify"])
    assert isinstance(result.exception, ValueError)
    assert str(result.exception) == "a bug in the leaderboard check"
    assert isinstance(result.exception.__cause__, ChildTraceback)
    assert "in broken" in str(result.exception.__cause__)
