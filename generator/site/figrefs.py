"""Figure citations in Markdown: ``{{ fig("<id>") }}`` becomes the registered number.

Hand-written pages never type a number: they cite the figures registry by id, and the
build replaces each citation with the figure's display form (``35.3%``), or with one of
its intervals when a second argument names it (``{{ fig("<id>", "narrow") }}`` gives
``32.6%–38.0%``). An unknown id, an unknown interval or a malformed citation fails the
build with the page, the line and the id, so a page can never print a number the
registry does not hold. This module is plain Python: the MkDocs hook
(``generator.site.hooks``) only adapts it.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError, Problem
from generator.figures import load_registry
from generator.models.figures import Figure
from generator.numbers import reading
from generator.store.paths import FIGURES_REGISTRY, Layout
from generator.words import counted

CITATION = re.compile(
    r"""\{\{\s*fig\(\s*(["'])(?P<id>[^"'\n]+)\1\s*(?:,\s*(["'])(?P<part>[a-z_]+)\3\s*)?\)\s*\}\}"""
)
"""A whole citation: ``{{ fig("<id>") }}`` or ``{{ fig("<id>", "<interval>") }}``."""
OPENING = re.compile(r"\{\{\s*fig\b")
"""Where a citation starts; one not matched by :data:`CITATION` is malformed."""


@dataclass(frozen=True)
class Citation:
    """One citation found in a page."""

    line: int
    """1-based line of the page."""
    figure: str
    """The cited figure id."""
    part: str | None
    """The interval named by the second argument, if any."""
    start: int
    """Offset of the citation in the text."""
    end: int
    """Offset just past the citation."""


def citations(text: str) -> list[Citation]:
    """Every well-formed citation of ``text``, in order."""
    return [
        Citation(
            line=text.count("\n", 0, m.start()) + 1,
            figure=m.group("id").strip(),
            part=m.group("part"),
            start=m.start(),
            end=m.end(),
        )
        for m in CITATION.finditer(text)
    ]


def _snippet(text: str, start: int) -> str:
    """The citation-like text at ``start``, up to its closing braces or the line's end."""
    line_end = text.find("\n", start)
    line = text[start : len(text) if line_end == -1 else line_end]
    close = line.find("}}")
    return line[: close + 2] if close != -1 else line[:60]


def _malformed(text: str, page: str, found: list[Citation]) -> list[Problem]:
    starts = {c.start for c in found}
    return [
        Problem(
            page,
            text.count("\n", 0, m.start()) + 1,
            "figure-citation",
            f"malformed figure citation {_snippet(text, m.start())!r}",
            'write {{ fig("<figure id>") }} or {{ fig("<figure id>", "<interval>") }}',
        )
        for m in OPENING.finditer(text)
        if m.start() not in starts
    ]


def _display(citation: Citation, figure: Figure | None, page: str) -> str | Problem:
    if figure is None:
        return Problem(
            page,
            citation.line,
            "unknown-figure",
            f"cites figure {citation.figure!r}, which is not in {FIGURES_REGISTRY}",
            f"cite a registered figure id (see {FIGURES_REGISTRY}) or run `probepress figures`",
        )
    if citation.part is None:
        return html.escape(reading(figure.display), quote=False)
    interval = figure.intervals.get(citation.part)
    if interval is None:
        known = ", ".join(sorted(figure.intervals)) or "none"
        return Problem(
            page,
            citation.line,
            "unknown-interval",
            f"cites interval {citation.part!r} of figure {citation.figure!r}, which has "
            f"intervals: {known}",
            "name one of the figure's intervals",
        )
    return html.escape(reading(interval.display), quote=False)


def resolve(text: str, figures: Mapping[str, Figure], page: str) -> str:
    """``text`` with every citation replaced by the cited figure's display form.

    Args:
        text: A page's Markdown.
        figures: The registry's figures by id.
        page: The page's name for messages (e.g. ``site_src/index.md``).

    Returns:
        The Markdown with numbers in place of citations.

    Raises:
        InputError: A citation names an unknown figure or interval, or is malformed;
            every such citation of the page is listed.
    """
    found = citations(text)
    problems = _malformed(text, page, found)
    parts: list[str] = []
    last = 0
    for citation in found:
        shown = _display(citation, figures.get(citation.figure), page)
        if isinstance(shown, Problem):
            problems.append(shown)
            continue
        parts += [text[last : citation.start], shown]
        last = citation.end
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        raise InputError(
            f"{page}: {counted(len(problems), 'figure citation')} not resolving:", problems
        )
    parts.append(text[last:])
    return "".join(parts)


def registry_figures(root: Path) -> Mapping[str, Figure]:
    """The figures registry of the publication at ``root`` (read once per version of it)."""
    path = root / FIGURES_REGISTRY
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = (0, -1)
    return _registry(str(root), stamp)


@functools.lru_cache(maxsize=4)
def _registry(root: str, stamp: tuple[int, int]) -> Mapping[str, Figure]:
    """Cached by the registry's modification time and size."""
    return load_registry(Layout.at(root, Path(root) / ".private")).figures
