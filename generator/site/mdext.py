"""Figure citations as a Python-Markdown extension, for builders without MkDocs hooks.

MkDocs resolves citations in its ``on_page_markdown`` hook (``generator.site.hooks``),
before Markdown runs, and names the page in its errors. Zensical reads the same
``mkdocs.yml`` but runs no hooks; it does load ``markdown_extensions``, so this extension
(listed there as ``generator.site.mdext``) resolves whatever citations are still in the
text. Under MkDocs it finds none and does nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from generator.errors import InputError, ProbepressError
from generator.site import figrefs

PRIORITY = 100
"""Before every built-in preprocessor, so citations are replaced in the raw text."""


def _page_name(md: Markdown) -> str:
    """The page being rendered, when the builder exposes it (Zensical does)."""
    for processor in md.preprocessors:
        page = getattr(processor, "page", None)
        path = getattr(page, "path", None)
        if isinstance(path, str):
            return path
    return "a page"


class FigurePreprocessor(Preprocessor):  # markdown ships no type hints
    """Replaces ``{{ fig("<id>") }}`` citations with the registered figures."""

    def __init__(self, md: Markdown, root: Path) -> None:
        super().__init__(md)
        self.root = root

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        if not figrefs.OPENING.search(text):
            return lines
        figures = figrefs.registry_figures(self.root)
        try:
            return figrefs.resolve(text, figures, _page_name(self.md)).split("\n")
        except ProbepressError as exc:
            # Builders print str(exc): put every unresolved citation in it.
            raise InputError(exc.render()) from None


class FigureExtension(Extension):  # markdown ships no type hints
    """Registers :class:`FigurePreprocessor`."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {"root": [".", "Publication root (holds figures/figures.json)."]}
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        root = Path(str(self.getConfig("root"))).resolve()
        md.preprocessors.register(FigurePreprocessor(md, root), "probepress-figures", PRIORITY)


def makeExtension(**kwargs: Any) -> FigureExtension:
    """Entry point Python-Markdown calls for ``generator.site.mdext``."""
    return FigureExtension(**kwargs)
