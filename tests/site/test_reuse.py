"""Licences and citation: the software's SPDX licence, the data's, the cite block."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from generator.fingerprints import FrozenFile
from generator.site import reuse
from generator.site.published import load_publication
from generator.store import Layout
from tests.site.downstream import generated_root

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gen(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated_root(example_src, tmp_path_factory)


def test_the_software_licence_is_one_spdx_id_everywhere() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    # A string, not the deprecated table form setuptools warns about on every install.
    assert project["license"] == reuse.SOFTWARE_LICENSE
    assert "LICENSE" in project["license-files"]
    licence = (REPO / "LICENSE").read_text("utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text("utf-8"))
    assert citation["cff-version"] == "1.2.0"
    assert citation["license"] == reuse.SOFTWARE_LICENSE
    assert citation["version"] == project["version"]


def test_the_downloads_page_states_every_licence_from_the_data(gen: Path) -> None:
    layout = Layout.at(gen, gen / ".private")
    page = (layout.downloads_dir / "index.md").read_text("utf-8")
    section = page[page.index("## Licences") :]
    bank = load_publication(layout).bank
    assert (
        f"**The public bank** (the bank files and bank sources above): "
        f"{reuse.licence(bank.license)}" in section
    )
    assert "**The results data**" in section and "verdicts" in section and "figures" in section
    assert reuse.licence(bank.results_licence()) in section
    assert reuse.licence(reuse.SOFTWARE_LICENSE) in section
    changed = bank.model_copy(update={"results_license": "CC0-1.0"})
    assert "CC0 1.0 (`CC0-1.0`, text at " in reuse.licences_section(changed)
    assert "](" not in section  # addresses printed, never linked: the site links no other host
    assert reuse.licence("LicenseRef-mine") == "LicenseRef-mine"


@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_each_volume_page_says_how_to_cite_it_with_its_fingerprint(gen: Path, volume: str) -> None:
    layout = Layout.at(gen, gen / ".private")
    pub = load_publication(layout)
    (pv,) = [v for v in pub.volumes if v.id == volume]
    entry = pv.frozen_file("leaderboard.html")
    assert entry is not None
    page = (layout.site_src / "volumes" / volume / "index.md").read_text("utf-8")
    block = page[page.index("## How to cite this volume") :]
    assert f"`sha256:{entry.sha256}`" in block
    assert f"note = {{Frozen leaderboard sha256:{entry.sha256}}}," in block
    assert f"year = {{{pv.volume.publication_date.year}}}," in block
    assert pv.volume.publication_date.isoformat() in block
    assert "Demonstration data" in block  # the example is demonstration data


def test_untrusted_titles_cannot_break_the_bibtex_or_cite_figures(gen: Path) -> None:
    pv = load_publication(Layout.at(gen, gen / ".private")).volumes[-1]
    hostile = '{{ fig("vol-002/x/core_rate") }} <script>alert(1)</script> } \\end'
    volume = pv.volume.model_copy(update={"title": hostile, "demonstration": False})
    bank = load_publication(Layout.at(gen, gen / ".private")).bank
    frozen = {
        "site_src/volumes/vol-002/leaderboard.html": FrozenFile(
            path="site_src/volumes/vol-002/leaderboard.html",
            sha256="ab" * 32,
            volume="vol-002",
            kind="html",
        )
    }
    block = reuse.cite_block(type(pv)(volume=volume, figures=pv.figures, frozen=frozen), bank)
    bibtex = [line for line in block.splitlines() if line.startswith("    ")]
    body = "\n".join(bibtex)
    assert body.count("{") == body.count("}")
    assert "{{" not in block and "\\" not in body
    assert "<script>" not in block.replace("    ", "").split("BibTeX:")[0]
    assert "Demonstration data" not in block
