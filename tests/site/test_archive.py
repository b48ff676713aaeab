"""The bundle archives: reproducible bytes, fixed metadata, exactly the public bundles."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from generator.errors import InputError
from generator.gates.base import GateContext
from generator.gates.holdout import ignored, secrets
from generator.leaks import LeakIndex
from generator.leaks.scan import scan_text
from generator.site import _bank as read_bank
from generator.site import archive, downloads
from generator.site.published import load_publication
from generator.store import Layout
from generator.store.jsonl import Problems
from generator.store.volume import load_volume
from tests.site.downstream import generated_root

VOLUMES = ("vol-001", "vol-002")


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
