"""The bundle archives: reproducible bytes, fixed metadata, exactly the public bundles."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path

import pytest

from generator.bank_downloads import registered_archives
from generator.errors import CheckFailed, InputError
from generator.gates.base import GateContext
from generator.gates.holdout import ignored, secrets
from generator.hashing import sha256_bytes
from generator.leaks import LeakIndex
from generator.leaks.scan import scan_text
from generator.site import _bank as read_bank
from generator.site import archive, downloads, generate
from generator.site.published import load_publication
from generator.store import Layout
from generator.store.jsonl import Problems
from generator.store.volume import load_volume
from tests.conftest import tree_state
from tests.site.downstream import generated_root, writable_copy

VOLUMES = ("vol-001", "vol-002", "vol-003")


@pytest.fixture(scope="module")
def gen(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated_root(example_src, tmp_path_factory)


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private")


def _members(data: bytes) -> dict[str, tuple[tarfile.TarInfo, bytes]]:
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for info in tar.getmembers():
            handle = tar.extractfile(info)
            assert handle is not None, info.name
            out[info.name] = (info, handle.read())
    return out


@pytest.mark.parametrize("volume", VOLUMES)
def test_the_archive_holds_exactly_the_public_bundles(gen: Path, volume: str) -> None:
    layout = _layout(gen)
    data = (layout.downloads_dir / archive.archive_name(volume)).read_bytes()
    members = _members(data)
    prefix = f"bundles/{volume}/"
    bundle_files = sorted(
        p for p in (layout.root / prefix).rglob("*") if p.is_file() and not p.name.startswith(".")
    )
    assert list(members) == sorted(members)
    assert list(members) == [p.relative_to(layout.root).as_posix() for p in bundle_files]
    for path in bundle_files:
        info, body = members[path.relative_to(layout.root).as_posix()]
        assert body == path.read_bytes()
        assert (info.mtime, info.uid, info.gid, info.uname, info.gname) == (0, 0, 0, "", "")
        assert info.mode == 0o644 and info.isreg()


def test_the_gzip_header_is_fixed(gen: Path) -> None:
    data = (_layout(gen).downloads_dir / archive.archive_name("vol-002")).read_bytes()
    assert data[:3] == b"\x1f\x8b\x08"
    assert data[3] == 0, "no FNAME, FCOMMENT or FEXTRA flag: the header carries no file name"
    assert data[4:8] == b"\0\0\0\0", "gzip mtime 0"
    tar = gzip.decompress(data)
    assert b"ustar" in tar[:512]


def test_building_twice_gives_identical_bytes(gen: Path) -> None:
    layout = _layout(gen)
    bank = read_bank(layout)
    first = downloads.plan(load_publication(layout), bank)
    second = downloads.plan(load_publication(layout), bank)
    archives = [f for f in first if f.group == "archives"]
    assert [f.name for f in archives] == [archive.archive_name(v) for v in VOLUMES]
    again = {f.name: f.data for f in second}
    for f in archives:
        assert again[f.name] == f.data
        assert (layout.downloads_dir / f.name).read_bytes() == f.data


def test_member_order_and_input_order_do_not_matter() -> None:
    files = [("bundles/vol-001/b.jsonl", b"b\n"), ("bundles/vol-001/a.json", b"{}\n")]
    assert archive.archive(files) == archive.archive(list(reversed(files)))
    with pytest.raises(ValueError, match="share a name"):
        archive.tar_bytes([*files, files[0]])


def test_no_held_out_text_is_inside_any_archive(gen: Path) -> None:
    layout = _layout(gen)
    for volume in VOLUMES:
        ctx = GateContext(load_volume(layout, volume))
        assert ctx.data.bank.private, "the example's private store was not read"
        unreadable = Problems()
        # What the gate ignores: public items' texts, and public items' responses and
        # evidence in the volume's bundles for held-out responses (the always-refuse
        # baseline gives its held-out draws its one, published, refusal).
        index = LeakIndex.build(secrets(ctx, unreadable), ignore=ignored(ctx))
        assert not unreadable.items
        data = (layout.downloads_dir / archive.archive_name(volume)).read_bytes()
        for name, (_, body) in _members(data).items():
            leaks = scan_text(index, body.decode("utf-8"), name)
            assert [leak.secret_key for leak in leaks] == [], name


def test_the_leak_scan_of_archive_members_would_find_held_out_text(gen: Path) -> None:
    ctx = GateContext(load_volume(_layout(gen), "vol-002"))
    item = sorted(ctx.data.bank.private.values(), key=lambda i: i.id)[0]
    index = LeakIndex.build(secrets(ctx, Problems()))
    leaked = archive.archive([("bundles/vol-002/x/draws.jsonl", item.prompt_text().encode())])
    (_, body) = _members(leaked)["bundles/vol-002/x/draws.jsonl"]
    assert scan_text(index, body.decode("utf-8"), "draws.jsonl")


def test_the_ignored_public_texts_spare_an_unpublished_held_out_response(gen: Path) -> None:
    """The gate's ignore set drops the baseline's refusal, not every held-out response."""
    ctx = GateContext(load_volume(_layout(gen), "vol-002"))
    index = LeakIndex.build(secrets(ctx, Problems()), ignore=ignored(ctx))
    published = set(ignored(ctx).records())
    response = next(
        s for s in secrets(ctx, Problems()) if s.kind == "response" and s.text not in published
    )
    leaked = archive.archive([("bundles/vol-002/x/draws.jsonl", response.text.encode())])
    (_, body) = _members(leaked)["bundles/vol-002/x/draws.jsonl"]
    assert response.key in [leak.secret_key for leak in scan_text(index, body.decode(), "x")]


def test_reading_an_archive_is_bounded() -> None:
    tar = archive.tar_bytes([("bundles/vol-001/zeros", bytes(1 << 20))])
    packed = archive.compress(tar)
    assert archive.read_tar(packed, "a.tar.gz", len(tar)) == tar
    with pytest.raises(InputError) as bomb:
        archive.read_tar(packed, "a.tar.gz", 4096)
    assert "holds more than 4,096 bytes of tar" in str(bomb.value.problems[0])
    with pytest.raises(InputError) as junk:
        archive.read_tar(b"not gzip at all", "a.tar.gz", 4096)
    assert junk.value.problems[0].rule == "not-gzip"


def _other_zlib(patch: pytest.MonkeyPatch, version: str = "1.3.1.zlib-ng") -> None:
    """Stand in for a Python linked against another zlib: the same tar, other deflate
    bytes (level 1 instead of 9), and another version string."""
    patch.setattr(archive, "compress", lambda tar: gzip.compress(tar, 1, mtime=0))
    patch.setattr(archive, "zlib_version", lambda: version)


@pytest.fixture
def site_root(gen: Path, tmp_path: Path) -> Layout:
    return writable_copy(gen, tmp_path / "root")


def _archives(layout: Layout) -> dict[str, bytes]:
    return {v: (layout.downloads_dir / archive.archive_name(v)).read_bytes() for v in VOLUMES}


def test_the_registry_records_each_archive_with_its_tar_and_zlib(gen: Path) -> None:
    layout = _layout(gen)
    known = registered_archives(layout)
    for volume, data in _archives(layout).items():
        entry = known[f"site_src/downloads/{archive.archive_name(volume)}"]
        assert entry.sha256 == sha256_bytes(data)
        assert entry.tar_sha256 == sha256_bytes(gzip.decompress(data))
        assert entry.zlib == zlib.ZLIB_RUNTIME_VERSION


def test_another_zlib_is_refused_unless_the_published_bytes_are_there(
    site_root: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean clone (no archives) built under another zlib would publish other bytes
    under the published names: refused, naming both zlibs, nothing written. With the
    published archives put back in the downloads folder, the build publishes them again."""
    layout = site_root
    published = _archives(layout)
    here = zlib.ZLIB_RUNTIME_VERSION
    shutil.rmtree(layout.downloads_dir / archive.FOLDER)
    before = tree_state(layout.root)
    _other_zlib(monkeypatch)
    with pytest.raises(CheckFailed) as refused:
        generate(layout)
    assert tree_state(layout.root) == before
    problems = refused.value.problems
    assert [p.path for p in problems] == [
        f"site_src/downloads/{archive.archive_name(v)}" for v in VOLUMES
    ]
    assert {p.rule for p in problems} == {"archive-recompressed"}
    shown = str(problems[0])
    assert "this Python's zlib 1.3.1.zlib-ng compresses the unchanged bundles" in shown
    assert f"compressed with zlib {here})" in shown
    assert f"build the site with a Python whose zlib is {here}" in shown
    assert "the published site's downloads/archives/vol-001_bundles.tar.gz" in shown
    registry = layout.download_registry.read_bytes()
    sums = (layout.downloads_dir / "SHA256SUMS").read_bytes()
    (layout.downloads_dir / archive.FOLDER).mkdir()
    for volume, data in published.items():
        (layout.downloads_dir / archive.archive_name(volume)).write_bytes(data)
    generate(layout)
    assert _archives(layout) == published
    assert (layout.downloads_dir / "SHA256SUMS").read_bytes() == sums
    assert layout.download_registry.read_bytes() == registry


def test_a_kept_file_that_is_not_the_published_archive_is_not_published(
    site_root: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = site_root
    path = layout.downloads_dir / archive.archive_name("vol-002")
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()), 5, mtime=0))
    _other_zlib(monkeypatch)
    with pytest.raises(CheckFailed) as refused:
        generate(layout)
    assert [p.path for p in refused.value.problems] == [
        f"site_src/downloads/{archive.archive_name('vol-002')}"
    ]


def test_changed_bundles_give_a_new_archive_recorded_with_this_zlib(
    site_root: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The archive changes with its content (the gates, not the archive, decide whether a
    bundle may change): its entry is replaced, the other volume's is kept."""
    layout = site_root
    before = registered_archives(layout)
    volume_file = layout.root / "bundles/vol-002/volume.yaml"
    volume_file.write_bytes(volume_file.read_bytes() + b"# a comment added\n")
    _other_zlib(monkeypatch, "2.0.0-test")
    generate(layout)
    after = registered_archives(layout)
    first, second, third = (f"site_src/downloads/{archive.archive_name(v)}" for v in VOLUMES)
    assert after[first] == before[first]
    assert after[third] == before[third]
    assert after[second].zlib == "2.0.0-test"
    data = (layout.downloads_dir / archive.archive_name("vol-002")).read_bytes()
    assert after[second].sha256 == sha256_bytes(data)
    assert after[second].tar_sha256 == sha256_bytes(gzip.decompress(data))
    assert after[second].tar_sha256 != before[second].tar_sha256


BUILD_ARCHIVES = """
import os, sys
from generator.site import generate
from generator.store import Layout
root = sys.argv[1]
generate(Layout.at(root, os.path.join(root, ".private")))
"""


def test_another_machine_builds_the_same_bytes(gen: Path, tmp_path: Path) -> None:
    """A build in another process, with another time zone, umask, locale and working
    folder, from bundle files with other modification times and modes, writes the same
    archives byte for byte."""
    layout = writable_copy(gen, tmp_path / "other")
    shutil.rmtree(layout.downloads_dir / archive.FOLDER)
    for path in (layout.root / "bundles").rglob("*"):
        if path.is_file():
            path.chmod(0o600)
            os.utime(path, (1_234_567_890, 1_234_567_890))
    env = {**os.environ, "TZ": "Pacific/Chatham", "LC_ALL": "C", "SOURCE_DATE_EPOCH": "1"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    command = 'umask 077 && exec "$0" -c "$1" "$2"'
    subprocess.run(
        ["sh", "-c", command, sys.executable, BUILD_ARCHIVES, str(layout.root)],
        cwd=tmp_path,
        env=env,
        check=True,
    )
    assert _archives(layout) == _archives(_layout(gen))
