"""Frozen HTML pages, their fingerprinted PDFs and the fingerprint registry (DESIGN §7).

Modules: ``environment`` (the one Jinja environment, template location, ``fig``),
``text`` (untrusted text made inert and bounded), ``context`` / ``leaderboard`` /
``jury_card`` (one context builder per page kind), ``forest`` (the plot's geometry),
``provenance`` (footer facts), ``pages`` (HTML in memory), ``pdf`` (WeasyPrint workers)
and ``run`` (``render_volume``: compare with the registry, then write).

The public names are imported lazily: PDF worker processes import ``generator.render.pdf``
and should not pay for loading the figures and statistics stack they never use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.render.run import RenderedFile, RenderResult, render_volume

__all__ = ["RenderResult", "RenderedFile", "render_volume"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module("generator.render.run"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
