"""The one Jinja environment of frozen pages, and the ``fig`` helper templates cite with.

**Where templates come from.** DESIGN §3 puts the templates in the repository's
``templates/``. A publication root that carries its own ``templates/`` (the repository
itself, today) renders with those, so the templates that made a published page are
versioned with it; any other root (a test copy, a scale run in ``/tmp``) renders with
the ``templates/`` next to this package's source. The two are never mixed.

**Numbers.** Templates print figures only: ``fig(id)`` returns the registered
:class:`~generator.models.figures.Figure` (its signs as ``generator.numbers`` writes
them for readers) and fails loudly, naming the page and the id,
when the id is not registered; ``maybe_fig(id)`` is for figures the registry computes
only when the data allows (a category without validated items has no rate).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

import generator
from generator.errors import UsageError
from generator.models.figures import Figure
from generator.numbers import for_reading
from generator.render.text import finalize, neutralise
from generator.store.paths import Layout

PAGE_TEMPLATES = ("leaderboard.html", "jury_card.html")
STYLESHEET = "page.css"
PACKAGE_TEMPLATES = Path(generator.__file__).resolve().parent.parent / "templates"


def template_dir(layout: Layout) -> Path:
    """``<root>/templates`` when it holds the page templates, else the code's own."""
    for candidate in (layout.root / "templates", PACKAGE_TEMPLATES):
        if all((candidate / name).is_file() for name in PAGE_TEMPLATES):
            return candidate
    raise UsageError(
        f"no page templates ({', '.join(PAGE_TEMPLATES)}) in {layout.root / 'templates'} "
        f"or {PACKAGE_TEMPLATES}"
    )


def make_environment(directory: Path) -> Environment:
    """The environment every frozen page is rendered with.

    Autoescape is on for every template whatever its name; undefined names are errors;
    every printed string passes :func:`generator.render.text.finalize` (bidi and control
    characters made visible) before it is escaped.
    """
    return Environment(
        loader=FileSystemLoader(str(directory), encoding="utf-8"),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=finalize,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        newline_sequence="\n",
        auto_reload=False,
    )


@dataclass(frozen=True)
class Stylesheet:
    """The page CSS and the Content-Security-Policy that admits exactly it."""

    css: Markup
    csp: str


def stylesheet(env: Environment) -> Stylesheet:
    """Render ``page.css`` and the CSP allowing only that inline style (by its hash).

    The policy forbids everything else: no script, no image, font, frame, connection or
    form target, no ``<base>``. Inline ``style`` attributes are not allowed either, so
    templates style through classes only.
    """
    # Hash exactly what the page will contain (``finalize`` runs over the CSS too).
    text = neutralise(env.get_template(STYLESHEET).render())
    if "</" in text or "<!--" in text:
        raise UsageError(f"{STYLESHEET} may not contain '</' or '<!--' (it is inlined)")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    csp = (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    return Stylesheet(css=Markup(text), csp=csp)


@dataclass(frozen=True)
class FigureLookup:
    """``fig(id)`` and ``maybe_fig(id)`` for one page: a registered figure, a figure the
    registry declares absent (with its reason, which the page states), or a loud error."""

    page: str
    figures: Mapping[str, Figure]

    @cached_property
    def absent(self) -> frozenset[str]:
        """Ids the registry declares absent: listed under ``detail["absent"]`` of a figure
        that says why (e.g. split-half figures when the protocol has one half)."""
        out: set[str] = set()
        for figure in self.figures.values():
            listed = figure.detail.get("absent")
            if isinstance(listed, list):
                out.update(listed)
        return frozenset(out)

    def __call__(self, fid: str) -> Figure:
        """The figure registered as ``fid``.

        Raises:
            UsageError: ``fid`` is not registered (names the page and the id).
        """
        figure = self.figures.get(fid)
        if figure is None:
            raise self._unknown(fid, "which is not in figures/figures.json")
        return for_reading(figure)

    def maybe(self, fid: str) -> Figure | None:
        """The figure registered as ``fid``, or None when the registry declares it absent.

        Raises:
            UsageError: ``fid`` is neither registered nor declared absent: a template
                asking for a figure nobody computes would print "—" on a frozen page
                for ever, so it is an error at render time.
        """
        figure = self.figures.get(fid)
        if figure is None and fid not in self.absent:
            raise self._unknown(fid, "which is neither registered nor declared absent")
        return None if figure is None else for_reading(figure)

    def _unknown(self, fid: str, why: str) -> UsageError:
        volume = fid.split("/", 1)[0]
        return UsageError(
            f"{self.page}: cites figure {fid!r}, {why} "
            f"(run `probepress figures {volume}`, or fix the template)"
        )
