"""Writes confined to the root: never through a symlink, never outside, modes not from umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from generator import confine
from generator.canonical import write_bytes
from generator.confine import UnsafePath
from tests.conftest import CliRun


def test_checked_refuses_links_and_escapes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "real").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "link").symlink_to(tmp_path / "elsewhere")
    assert confine.checked(root, root / "real" / "new" / "x") == root / "real" / "new" / "x"
    with pytest.raises(UnsafePath, match="link is a symbolic link"):
        confine.checked(root, root / "link" / "x")
    with pytest.raises(UnsafePath, match="is outside the root"):
        confine.checked(root, root / ".." / "elsewhere" / "x")
    with pytest.raises(UnsafePath, match="real is not a regular file"):
        confine.checked(root, root / "real")
    # Deleting a link itself is fine; deleting through one is not.
    assert confine.unlink(root, root / "link")
    assert (tmp_path / "elsewhere").is_dir()


def test_write_bytes_never_writes_through_a_symlinked_folder(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "downloads").symlink_to(elsewhere)
    with pytest.raises(UnsafePath) as refused:
        write_bytes(root / "downloads" / "bundles" / "x.json", b"{}", root)
    assert refused.value.render() == (
        "refusing to write downloads/bundles/x.json: downloads is a symbolic link\n"
        "downloads/bundles/x.json: downloads is a symbolic link [confined-write]; fix: "
        f"replace it with a real directory or file inside {root}"
    )
    assert list(elsewhere.iterdir()) == []


def test_modes_do_not_depend_on_the_umask(tmp_path: Path) -> None:
    saved = os.umask(0o077)
    try:
        write_bytes(tmp_path / "root" / "a" / "b" / "c.txt", b"x", tmp_path / "root")
    finally:
        os.umask(saved)
    assert stat.S_IMODE((tmp_path / "root" / "a" / "b" / "c.txt").stat().st_mode) == 0o644
    for folder in ("root", "root/a", "root/a/b"):
        assert stat.S_IMODE((tmp_path / folder).stat().st_mode) == 0o755


def _outside(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "theirs.txt").write_text("not ours\n", "utf-8")
    return elsewhere


def _link_bundles(root: Path, elsewhere: Path) -> None:
    downloads = root / "site_src" / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    (downloads / "bundles").symlink_to(elsewhere, target_is_directory=True)


def test_site_refuses_a_symlinked_downloads_folder(root: Path, tmp_path: Path, cli: CliRun) -> None:
    elsewhere = _outside(tmp_path)
    _link_bundles(root, elsewhere)
    result = cli("site")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "nothing is ever written through a symbolic link:",
        "site_src/downloads/bundles: is a symbolic link in a folder the tool writes "
        "[confined-write]; fix: replace it with a real directory or file",
    ]
    assert sorted(p.name for p in elsewhere.iterdir()) == ["theirs.txt"]


def test_publish_refuses_a_symlinked_downloads_folder(
    root: Path, tmp_path: Path, cli: CliRun
) -> None:
    elsewhere = _outside(tmp_path)
    _link_bundles(root, elsewhere)
    result = cli("publish", "vol-001", "--allow-dirty")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "not published: no file is ever written through a symbolic link:"
    )
    assert "site_src/downloads/bundles: is a symbolic link" in result.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["theirs.txt"]
    assert not list(root.glob(".probepress-staging-*"))


def test_site_refuses_a_symlinked_site_folder(root: Path, tmp_path: Path, cli: CliRun) -> None:
    elsewhere = _outside(tmp_path)
    (root / "site").symlink_to(elsewhere, target_is_directory=True)
    result = cli("site")
    assert result.exit_code == 2
    assert "refusing to write site: site is a symbolic link" in result.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["theirs.txt"]
