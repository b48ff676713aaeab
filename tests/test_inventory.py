"""The bounded in-place inventory: regular files hashed, everything else named, never read."""

from __future__ import annotations

import os
import time
from pathlib import Path

from generator.hashing import sha256_file
from generator.inventory import Entry, read_entry, scan


def test_regular_files_are_hashed_and_nothing_else_is_opened(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "page.html").write_bytes(b"<p>hi</p>\n")
    os.mkfifo(tmp_path / "a" / "pipe")
    (tmp_path / "a" / "zero").symlink_to("/dev/zero")
    (tmp_path / "linked").symlink_to(tmp_path / "a", target_is_directory=True)
    started = time.monotonic()
    found = scan(tmp_path, ("",))
    assert time.monotonic() - started < 5
    assert found.files == {
        "a/page.html": Entry(10, sha256_file(tmp_path / "a" / "page.html")),
    }
    assert {(o.path, o.what) for o in found.odd} == {
        ("a/pipe", "is a FIFO, not a regular file"),
        ("a/zero", "is a symbolic link (never followed)"),
        ("linked", "is a symbolic link (never followed)"),
    }


def test_bounds_on_size_count_and_skips(tmp_path: Path) -> None:
    for name in ("one", "two", "three"):
        (tmp_path / name).write_bytes(b"x" * 100)
    assert read_entry(tmp_path / "one", max_bytes=99) == "is 100 bytes, over the 99-byte bound"
    assert read_entry(Path("/dev/zero")) == "is a device, not a regular file"
    limited = scan(tmp_path, ("",), max_files=2)
    assert len(limited.files) == 2
    assert [o.what for o in limited.odd] == ["is past the 2-file bound; not read"]
    skipped = scan(tmp_path, ("", "missing"), skip=frozenset({"two"}))
    assert sorted(skipped.files) == ["one", "three"] and not skipped.odd


def test_an_area_that_is_a_symlink_is_named_not_walked(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "f").write_bytes(b"1")
    (tmp_path / "site").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    found = scan(tmp_path, ("site",))
    assert not found.files
    assert [(o.path, o.what) for o in found.odd] == [
        ("site", "is a symbolic link (never followed)")
    ]
