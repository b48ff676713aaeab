"""Render a volume's frozen HTML pages in memory (nothing is written here)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from generator.models.figures import Figure
from generator.progress import Progress, expect
from generator.render.context import Inputs, candidates_in_order, jury_card_path, leaderboard_path
from generator.render.environment import (
    UnknownFigure,
    citing_line,
    make_environment,
    stylesheet,
    template_dir,
)
from generator.render.jury_card import jury_card_context
from generator.render.leaderboard import leaderboard_context
from generator.render.provenance import Provenance
from generator.store.volume import VolumeData


@dataclass(frozen=True)
class Page:
    """One frozen HTML page: where it goes, its bytes and its title."""

    path: str
    """Root-relative path."""
    html: bytes
    """UTF-8 bytes with ``\\n`` line ends."""
    title: str
    """The page's ``<title>`` (also the PDF's title)."""
    kind: str
    """``leaderboard`` or ``jury-card``."""


def _render(env: Environment, directory: Path, template: str, context: dict[str, Any]) -> bytes:
    try:
        text = env.get_template(template).render(context)
    except UnknownFigure as exc:
        # Name the template line that cited the figure, not only the page.
        raise exc.at(citing_line(exc.__traceback__, directory)) from None
    if "\r" in text:
        raise AssertionError(f"{context['page']}: carriage return in rendered page")
    return text.encode("utf-8")


def render_pages(
    data: VolumeData,
    figures: Mapping[str, Figure],
    provenance: Provenance,
    progress: Progress | None = None,
    *,
    draft: bool = False,
    texts: bool = True,
) -> list[Page]:
    """The leaderboard and every jury card of ``data``, in path order (``draft``: every
    page says DRAFT; ``texts=False``: the cards quote no response, for a render that
    only checks what the templates look up).

    Raises:
        UsageError: A template cites a figure that is not registered, or the templates
            cannot be found.
    """
    pages = iter_pages(data, figures, provenance, progress, draft=draft, texts=texts)
    return sorted(pages, key=lambda p: p.path)


def iter_pages(
    data: VolumeData,
    figures: Mapping[str, Figure],
    provenance: Provenance,
    progress: Progress | None = None,
    *,
    draft: bool = False,
    texts: bool = True,
) -> Iterator[Page]:
    """``render_pages``'s pages one at a time, the leaderboard first, then the jury cards
    in candidate order: a caller that only needs each page in turn never holds them all
    (at 600 candidates, tens of MB of HTML)."""
    directory = template_dir(data.layout)
    env = make_environment(directory)
    inputs = Inputs(data, figures, provenance, stylesheet(env), draft, texts)
    expect(progress, 1 + len(candidates_in_order(inputs)))
    context = leaderboard_context(inputs)
    path = leaderboard_path(data.id)
    html = _render(env, directory, "leaderboard.html", context)
    yield Page(path, html, context["title"], "leaderboard")
    if progress is not None:
        progress(path)
    for candidate in candidates_in_order(inputs):
        context = jury_card_context(inputs, candidate)
        path = jury_card_path(data.id, candidate.slug)
        html = _render(env, directory, "jury_card.html", context)
        yield Page(path, html, context["title"], "jury-card")
        if progress is not None:
            progress(path)
