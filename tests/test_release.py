"""The release format: one plan of where a root's files live in a built site."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from generator.release import (
    COPIED_AT_BUILD,
    UNSEALED,
    copy_source,
    download_name,
    site_path,
    sums_places,
    unsealed,
)
from generator.site import downloads
from generator.site.published import load_publication
from generator.store import Layout
from generator.store.bank import load_bank
from generator.store.jsonl import Bounds, Problems


@pytest.mark.parametrize(
    ("rel", "place"),
    [
        ("bank/public.jsonl", "downloads/bank/public.jsonl"),
        ("bundles/vol-001/volume.yaml", "downloads/bundles/vol-001/volume.yaml"),
        ("figures/figures.json", "downloads/figures.json"),
        ("figures/releases.json", "downloads/releases.json"),
        ("figures/downloads.json", None),
        ("site_src/volumes/vol-001/leaderboard.html", "volumes/vol-001/leaderboard.html"),
        ("site_src/volumes/vol-001/index.md", None),
        ("templates/leaderboard.html.j2", None),
    ],
)
def test_site_path(rel: str, place: str | None) -> None:
    assert site_path(rel) == place


def test_download_name_refuses_what_is_not_a_download() -> None:
    assert download_name("bank/bank.yaml") == "bank/bank.yaml"
    with pytest.raises(ValueError, match="is not shipped under downloads/"):
        download_name("site_src/volumes/vol-001/leaderboard.html")


def test_the_downloads_plan_names_every_copy_by_the_same_plan(root: Path) -> None:
    layout = Layout.at(root, root / ".private", cache=False)
    problems = Problems()
    bank = load_bank(layout, Bounds(), problems, private=False)
    assert bank is not None and not problems
    pub = load_publication(layout)
    copies = {f.name: f for f in downloads.plan(pub, bank) if f.group in ("sources", "bundles")}
    assert copies
    for name, copy in copies.items():
        source = root / name  # bank/… and bundles/… keep their root-relative names
        assert site_path(name) == f"downloads/{name}"
        assert source.read_bytes() == copy.data


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("bank/public.jsonl", "bank/public.jsonl"),
        ("bank/status.jsonl", "bank/status.jsonl"),
        ("bundles/vol-001/acme/draws.jsonl", "bundles/vol-001/acme/draws.jsonl"),
        ("figures.json", "figures/figures.json"),
        ("fingerprints.json", "figures/fingerprints.json"),
        ("releases.json", "figures/releases.json"),
        ("bank_v1_public.jsonl", None),  # made from the bank, not a copy of a root file
        ("bank/public.jsonl.bak", None),
        ("figures.json/x", None),
        ("archives/vol-001_bundles.tar.gz", None),
        ("SHA256SUMS", None),
    ],
)
def test_copy_source(name: str, source: str | None) -> None:
    assert copy_source(name) == source


def test_a_copys_sums_line_speaks_for_its_original_and_the_copy_when_built() -> None:
    copy = "site_src/downloads/figures.json"
    assert sums_places("figures.json", built=False) == ["figures/figures.json"]
    assert sums_places("figures.json", built=True) == ["figures/figures.json", copy]
    assert sums_places("bank_v1_public.jsonl", built=False) == [
        "site_src/downloads/bank_v1_public.jsonl"
    ]
    assert unsealed(copy) and unsealed("site_src/downloads/bundles/vol-001/volume.yaml")
    assert not unsealed("site_src/downloads/figures.json.old")
    assert not unsealed("site_src/downloads/bank_v1_public.jsonl")


def test_every_download_that_copies_a_root_file_is_written_at_build(root: Path) -> None:
    """Every planned download whose bytes are a root file shipped at that place is in
    COPIED_AT_BUILD (so not committed twice), and every one there copies its original."""
    layout = Layout.at(root, root / ".private", cache=False)
    bank = load_bank(layout, Bounds(), Problems(), private=False)
    assert bank is not None
    planned = {f.name: f.data for f in downloads.plan(load_publication(layout), bank)}
    originals = [p for p in root.rglob("*") if p.is_file() and ".private" not in p.parts]
    copies = {}
    for path in originals:
        rel = path.relative_to(root).as_posix()
        place = site_path(rel)
        name = place and place.removeprefix("downloads/")
        if (
            name in planned
            and not rel.startswith("site_src/")
            and planned[name] == path.read_bytes()
        ):
            copies[name] = rel
    assert {"figures.json", "bank/public.jsonl", "bank/heldout_index.jsonl"} <= set(copies)
    assert {name: copy_source(name) for name in copies} == copies
    for name, data in planned.items():
        source = copy_source(name)
        assert source is None or (root / source).read_bytes() == data, name


def _git(*args: str) -> list[str]:
    run = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=False)
    return run.stdout.decode("utf-8").splitlines()


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_the_repository_commits_no_copy_a_site_build_writes() -> None:
    """git holds each file once: what every build writes under site_src/ (UNSEALED) is
    neither tracked nor unignored (a new copy would show as an untracked file)."""
    places = [p.removesuffix("/") for p in UNSEALED]
    assert len(places) == len(set(places)) > len(COPIED_AT_BUILD)
    assert _git("ls-files", "--", *places) == []
    files = {f"site_src/downloads/{n}" for n in COPIED_AT_BUILD if not n.endswith("/")}
    probes = sorted(p if p in files else f"{p}/x" for p in places)  # a folder: a file in it
    assert sorted(_git("check-ignore", "--no-index", "--", *probes)) == probes
