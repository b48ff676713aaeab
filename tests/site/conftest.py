"""Fixtures of the site tests: the example, rendered and built once per session.

The session renders the example once (with stand-in PDFs) and builds the site once;
tests that change things work on copies (``site_copy``).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from generator.site import SiteResult, build_site
from generator.store import Layout
from tests.factories import shared, stand_in_pdfs

REPO = Path(__file__).resolve().parents[2]
GENERATED = ("volumes", "downloads")


def copy_site_sources(dest: Path) -> None:
    """Copy the repository's ``mkdocs.yml`` and hand-written ``site_src/`` into ``dest``."""
    shutil.copy2(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    (dest / "site_src").mkdir(exist_ok=True)
    for path in sorted((REPO / "site_src").iterdir()):
        target = dest / "site_src" / path.name
        if path.name in GENERATED:
            continue
        if path.is_dir():
            shutil.copytree(path, target, dirs_exist_ok=True)
        else:
            shutil.copy2(path, target)


@dataclass(frozen=True)
class Built:
    """The example publication with its site built."""

    root: Path
    site: Path
    result: SiteResult

    @property
    def layout(self) -> Layout:
        return Layout.at(self.root, self.root / ".private")


def rendered(factory: pytest.TempPathFactory, source: Path, name: str) -> Path:
    """A copy of the example root ``source`` with the site's sources and every volume
    rendered, built once per run (not once per xdist worker) under ``name``. No site test
    reads a PDF's content, so the PDFs are stand-ins (``stand_in_pdfs``: written,
    fingerprinted and registered like rendered ones); ``tests/render/`` renders the real
    ones."""
    from generator.render import render_volume  # only the tests that need frozen pages

    def build(target: Path) -> None:
        root = target / "root"
        shutil.copytree(source, root, symlinks=True)
        copy_site_sources(root)
        layout = Layout.at(root, root / ".private")
        with pytest.MonkeyPatch.context() as patch:
            stand_in_pdfs(patch)
            for volume in layout.volume_ids():
                render_volume(layout, volume, pdf=True)

    return shared(factory, name, build) / "root"


@pytest.fixture(scope="session")
def rendered_src(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with the site's sources and every volume rendered (read-only use)."""
    return rendered(tmp_path_factory, example_src, "site-rendered")


@pytest.fixture(scope="session")
def built(rendered_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """A copy of ``rendered_src`` with its pages generated and its site built (read-only)."""
    root = tmp_path_factory.mktemp("built") / "root"
    shutil.copytree(rendered_src, root, symlinks=True)
    result = build_site(Layout.at(root, root / ".private"))
    return Built(root=root, site=root / "site", result=result)


@pytest.fixture
def site_copy(rendered_src: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the rendered example (no pages generated yet)."""
    dest = tmp_path / "root"
    shutil.copytree(rendered_src, dest, symlinks=True)
    return dest
