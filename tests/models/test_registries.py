"""The registries under ``figures/`` are pydantic formats: read strictly, written back
byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator import bank_downloads, fingerprints
from generator.canonical import dumps
from generator.errors import InputError
from generator.models.registries import RegisteredArchive
from generator.store import Layout

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    """A root holding copies of the committed example's two registries and the ledgers
    they register (published lines must stay as registered)."""
    (tmp_path / "figures").mkdir()
    for name in ("fingerprints.json", "downloads.json"):
        shutil.copy2(REPO / "figures" / name, tmp_path / "figures" / name)
    (tmp_path / "bank").mkdir()
    for name in ("status.jsonl", "disagreements.jsonl"):
        if (REPO / "bank" / name).is_file():
            shutil.copy2(REPO / "bank" / name, tmp_path / "bank" / name)
    return Layout.at(tmp_path, tmp_path / ".private", cache=False)


def test_both_registries_write_back_their_committed_bytes(layout: Layout) -> None:
    frozen = fingerprints.load_frozen(layout)
    assert frozen and {e.kind for e in frozen.values()} == {"html", "pdf"}
    committed = (REPO / "figures" / "fingerprints.json").read_text("utf-8")
    assert fingerprints.registry_text(frozen) == committed
    registered = bank_downloads.registered(layout)
    assert registered
    assert bank_downloads.register(layout, registered) is False  # the same bytes: not rewritten
    assert (layout.root / "figures" / "downloads.json").read_bytes() == (
        REPO / "figures" / "downloads.json"
    ).read_bytes()


def _write(layout: Layout, name: str, data: object) -> None:
    (layout.root / "figures" / name).write_text(dumps(data), "utf-8")


def _line_of(layout: Layout, name: str, needle: str) -> int:
    text = (layout.root / "figures" / name).read_text("utf-8")
    return text[: text.index(needle)].count("\n") + 1


def test_an_unknown_field_is_named_with_its_line(layout: Layout) -> None:
    data = json.loads((layout.root / "figures" / "fingerprints.json").read_text("utf-8"))
    first = sorted(data["files"])[0]
    data["files"][first]["note"] = "planted"
    _write(layout, "fingerprints.json", data)
    with pytest.raises(InputError) as caught:
        fingerprints.load_frozen(layout)
    [problem] = caught.value.problems
    assert str(caught.value) == "cannot read the fingerprint registry:"
    assert problem.path == "figures/fingerprints.json"
    assert problem.line == _line_of(layout, "fingerprints.json", '"note"')
    assert problem.message == f"files.{first}.note: Extra inputs are not permitted"


@pytest.mark.parametrize(
    ("rel", "sha256"),
    [
        ("site_src/downloads/../../etc/passwd", "0" * 64),  # a part that climbs out
        ("/site_src/downloads/bank_v1_public.jsonl", "0" * 64),  # absolute
        ("site_src/downloads/bank_v1_public.jsonl", "not-a-digest"),
    ],
)
def test_a_bad_download_entry_is_refused(layout: Layout, rel: str, sha256: str) -> None:
    _write(layout, "downloads.json", {"files": {rel: {"sha256": sha256}}, "schema_version": 1})
    with pytest.raises(InputError) as caught:
        bank_downloads.registered(layout)
    [problem] = caught.value.problems
    assert (problem.path, problem.rule) == ("figures/downloads.json", "schema")
    assert str(caught.value) == "cannot read the download registry:"


def test_a_newer_registry_is_refused_with_a_message_saying_so(layout: Layout) -> None:
    _write(layout, "downloads.json", {"files": {}, "schema_version": 99})
    with pytest.raises(InputError) as caught:
        bank_downloads.registered(layout)
    [problem] = caught.value.problems
    assert "schema_version 99 is newer than this probepress reads (1)" in problem.message


def test_a_missing_registry_is_empty(tmp_path: Path) -> None:
    layout = Layout.at(tmp_path, tmp_path / ".private", cache=False)
    assert fingerprints.load_frozen(layout) == {}
    assert bank_downloads.registered(layout) == {}


ARCHIVE = "site_src/downloads/archives/vol-009_bundles.tar.gz"
"""A volume the example has not published."""


def test_archive_records_survive_every_other_registration(layout: Layout) -> None:
    """Registering bank downloads or ledgers keeps the archives' records, and an archive's
    record is replaced (it changes with its bundles), never duplicated."""
    before = bank_downloads.registered_archives(layout)
    first = RegisteredArchive(sha256="a" * 64, tar_sha256="b" * 64, zlib="1.2.13")
    assert bank_downloads.register_archives(layout, {ARCHIVE: first}) is True
    assert bank_downloads.register_archives(layout, {ARCHIVE: first}) is False
    bank_downloads.register(layout, bank_downloads.registered(layout))
    bank_downloads.register_ledgers(layout, None)
    assert bank_downloads.registered_archives(layout) == {**before, ARCHIVE: first}
    second = first.model_copy(update={"sha256": "c" * 64, "zlib": "1.3.1.zlib-ng"})
    bank_downloads.register_archives(layout, {ARCHIVE: second})
    assert bank_downloads.registered_archives(layout) == {**before, ARCHIVE: second}
    data = json.loads((layout.root / "figures" / "downloads.json").read_text("utf-8"))
    assert data["archives"][ARCHIVE] == second.model_dump(mode="json")
    assert list(data["archives"]) == sorted(data["archives"])


@pytest.mark.parametrize(
    "entry",
    [
        {"sha256": "a" * 64, "tar_sha256": "b" * 64, "zlib": "1.2.13; rm -rf"},
        {"sha256": "a" * 64, "tar_sha256": "not-a-digest", "zlib": "1.2.13"},
        {"sha256": "a" * 64, "zlib": "1.2.13"},
    ],
)
def test_a_bad_archive_entry_is_refused(layout: Layout, entry: dict[str, str]) -> None:
    data = json.loads((layout.root / "figures" / "downloads.json").read_text("utf-8"))
    _write(layout, "downloads.json", {**data, "archives": {ARCHIVE: entry}})
    with pytest.raises(InputError) as caught:
        bank_downloads.registered_archives(layout)
    [problem] = caught.value.problems
    assert (problem.path, problem.rule) == ("figures/downloads.json", "schema")
