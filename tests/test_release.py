"""The release format: one plan of where a root's files live in a built site."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.release import download_name, site_path
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
