"""MkDocs hooks (``hooks:`` in ``mkdocs.yml``): thin adapters over ``generator.site``.

``on_config`` expands the Results navigation (``generator.site.nav``);
``on_page_markdown`` replaces figure citations (``generator.site.figrefs``). An unknown
figure fails the build with the page, line and id. The logic lives in the generator, so
other builders can call the same functions.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

from generator.errors import ProbepressError
from generator.site import figrefs, nav


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path or "mkdocs.yml").resolve().parent


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Expand the Results entry of the navigation into one section per volume."""
    config.nav = nav.expand(config.nav, Path(config.docs_dir))
    return config


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, **_: Any) -> str:
    """Replace every ``{{ fig("<id>") }}`` with the registered figure's display form."""
    root = _root(config)
    docs = os.path.relpath(config.docs_dir, root)
    shown = Path(docs, page.file.src_uri).as_posix()
    try:
        return figrefs.resolve(markdown, figrefs.registry_figures(root), shown)
    except ProbepressError as exc:
        raise PluginError(exc.render()) from exc
