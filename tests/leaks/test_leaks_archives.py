"""Held-out text inside gzip files and .tar.gz archives is found, whatever the name."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from generator.errors import InputError
from generator.leaks import LeakConfig, LeakIndex, Unscannable, scan_file, scan_paths
from generator.leaks.archives import scan_gzip
from generator.site.archive import archive
from tests.leaks.leak_samples import PROMPT, RESPONSE


def _keys(index: LeakIndex, path: Path) -> list[str]:
    return [leak.secret_key for leak in scan_paths(index, [path])]


def test_a_prompt_inside_a_bundle_archive_is_found(index: LeakIndex, tmp_path: Path) -> None:
    members = [
        ("bundles/vol-001/a/draws.jsonl", b'{"response": "fine"}\n'),
        ("bundles/vol-001/b/verdicts.jsonl", ('{"evidence": "' + PROMPT + '"}\n').encode()),
    ]
    path = tmp_path / "vol-001_bundles.tar.gz"
    path.write_bytes(archive(members))
    assert _keys(index, path) == ["item:h-0003"]
    # The raw compressed bytes hide it: the scan would miss it without decompressing.
    assert PROMPT.encode() not in path.read_bytes()


def test_a_plain_gzip_file_under_any_name_is_read_decompressed(
    index: LeakIndex, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    # Two gzip members, concatenated: both are read.
    path.write_bytes(gzip.compress(b"intro\n", mtime=0) + gzip.compress(RESPONSE.encode(), mtime=0))
    assert _keys(index, path) == ["draw:vol-001/acme-m1/h-0003/A/2"]


def test_a_nested_archive_and_a_markup_member_are_read(index: LeakIndex, tmp_path: Path) -> None:
    page = ("<p>" + PROMPT.replace(" ", " <b></b>", 3) + "</p>").encode()
    inner = archive([("page.html", page)])
    path = tmp_path / "outer.tar.gz"
    path.write_bytes(archive([("inner.tar.gz", inner), ("logo.png", b"\x89PNG\r\n\x1a\n")]))
    assert _keys(index, path) == ["item:h-0003"]


def test_a_clean_archive_has_no_findings(index: LeakIndex, tmp_path: Path) -> None:
    path = tmp_path / "clean.tar.gz"
    path.write_bytes(archive([("a.txt", b"nothing held out here\n")]))
    assert _keys(index, path) == []


def test_an_archive_that_cannot_be_read_within_the_bound_is_never_passed(
    index: LeakIndex,
) -> None:
    bomb = gzip.compress(bytes(1 << 20), mtime=0)
    with pytest.raises(InputError, match="decompresses to more than the leak scan's bound"):
        scan_gzip(index, "bomb.gz", bomb, 4096)
    with pytest.raises(InputError, match="truncated gzip"):
        scan_gzip(index, "cut.gz", bomb[: len(bomb) // 2], 1 << 21)
    with pytest.raises(InputError, match="not valid gzip"):
        scan_gzip(index, "junk.gz", b"\x1f\x8b\x08junk", 4096)


def test_a_truncated_tar_is_still_read_as_text(index: LeakIndex) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = PROMPT.encode()
        info = tarfile.TarInfo("a.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    cut = buffer.getvalue()[: 512 + len(PROMPT.encode())]
    leaks = scan_gzip(index, "cut.tar.gz", gzip.compress(cut, mtime=0), LeakConfig().max_file_bytes)
    assert [leak.secret_key for leak in leaks] == ["item:h-0003"]


def test_scan_paths_reports_an_unreadable_gzip_as_unscannable(
    index: LeakIndex, tmp_path: Path
) -> None:
    (tmp_path / "junk.gz").write_bytes(b"\x1f\x8b\x08junk")
    (tmp_path / "ok.txt").write_text(PROMPT, "utf-8")
    refused: list[Unscannable] = []
    leaks = scan_paths(index, [tmp_path], root=tmp_path, unscannable=refused)
    assert [leak.source for leak in leaks] == ["ok.txt"]
    assert [(u.source, u.rule) for u in refused] == [("junk.gz", "bad-gzip")]
    assert "cannot be scanned for held-out text" in refused[0].message
    with pytest.raises(InputError, match=r"junk\.gz: is not valid gzip"):
        scan_paths(index, [tmp_path / "junk.gz"])


def test_scan_file_names_an_unreadable_gzip(index: LeakIndex, tmp_path: Path) -> None:
    path = tmp_path / "junk.gz"
    path.write_bytes(b"\x1f\x8b\x08junk")
    with pytest.raises(InputError, match=r"junk\.gz: is not valid gzip"):
        scan_file(index, path, "junk.gz")
    path.write_bytes(archive([("a.txt", PROMPT.encode())]))
    assert [leak.secret_key for leak in scan_file(index, path)] == ["item:h-0003"]
