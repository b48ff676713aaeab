"""The example with its frozen HTML rendered (no PDFs) and its site pages and downloads
generated (no MkDocs build): what the downstream-user tests read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.store import Layout
from tests.factories import shared
from tests.site.conftest import copy_site_sources


def generated_root(example_src: Path, factory: pytest.TempPathFactory) -> Path:
    """A read-only root: the example, rendered without PDFs, its site generated."""
    from generator.render import render_volume
    from generator.site import generate

    def build(target: Path) -> None:
        root = target / "root"
        shutil.copytree(example_src, root, symlinks=True)
        copy_site_sources(root)
        layout = Layout.at(root, root / ".private")
        for volume in layout.volume_ids():
            render_volume(layout, volume, pdf=False)
        generate(layout)

    return shared(factory, "site-generated-html", build) / "root"


def writable_copy(source: Path, dest: Path) -> Layout:
    """A private copy of ``source`` at ``dest`` and its layout."""
    shutil.copytree(source, dest, symlinks=True)
    return Layout.at(dest, dest / ".private")
