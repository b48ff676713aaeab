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
only when the data allows (a category without validated items has no rate). Such a
figure must be *declared* absent by a registered figure that says why; the page prints
that reason (``absent_reasons()``), and any other miss stops the render, naming the
template line, the page and the id (:class:`UnknownFigure`).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import TracebackType

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


class UnknownFigure(UsageError):
    """A template cited a figure that is neither registered nor declared absent."""

    def __init__(self, page: str, figure: str, what: str, fix: str, template: str | None = None):
        where = page if template is None else f"{template} (rendering {page})"
        super().__init__(f"{where}: {what} ({fix})")
        self.page = page
        """The page being rendered (root-relative)."""
        self.figure = figure
        """The cited id."""
        self.what = what
        """What is wrong, without the place."""
        self.fix = fix
        """What would fix it."""
        self.template = template
        """``templates/leaderboard.html:118`` when the citing template line is known."""

    def at(self, template: str | None) -> UnknownFigure:
        """The same error, placed at the citing template line."""
        return UnknownFigure(self.page, self.figure, self.what, self.fix, template)


def citing_line(tb: TracebackType | None, directory: Path) -> str | None:
    """``<dir name>/<template>:<line>`` of the innermost template frame in ``tb``.

    Jinja rewrites a traceback through a template so that its frames carry the template's
    file name and line; the innermost such frame is the line that made the call.
    """
    found = None
    while tb is not None:
        name = Path(tb.tb_frame.f_code.co_filename)
        if name.parent == directory:
            found = f"{directory.name}/{name.name}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


@dataclass(frozen=True)
class FigureLookup:
    """``fig(id)`` and ``maybe_fig(id)`` for one page: a registered figure, a figure the
    registry declares absent (with its reason, which the page states), or a loud error."""

    page: str
    figures: Mapping[str, Figure]
    hit: set[str] = field(default_factory=set, compare=False)
    """Ids of the figures declaring an absence this page ran into (their reasons print)."""

    @cached_property
    def absent(self) -> dict[str, str]:
        """Ids the registry declares absent, each with the id of the figure that says why:
        listed under ``detail["absent"]`` of a figure whose ``detail`` states the reason
        (e.g. split-half figures when the protocol has one half)."""
        out: dict[str, str] = {}
        for figure in self.figures.values():
            listed = figure.detail.get("absent")
            if isinstance(listed, list):
                out.update((fid, figure.id) for fid in listed if fid not in out)
        return out

    def __call__(self, fid: str) -> Figure:
        """The figure registered as ``fid``.

        Raises:
            UnknownFigure: ``fid`` is not registered (names the page and the id).
        """
        figure = self.figures.get(fid)
        if figure is None:
            raise self._unknown(fid, "which is not in figures/figures.json")
        return for_reading(figure)

    def maybe(self, fid: str) -> Figure | None:
        """The figure registered as ``fid``, or None when the registry declares it absent
        (the page then states why: see :meth:`reasons`).

        Raises:
            UnknownFigure: ``fid`` is neither registered nor declared absent: a template
                asking for a figure nobody computes would print "—" on a frozen page
                for ever, so it is an error at render time.
        """
        figure = self.figures.get(fid)
        if figure is None:
            why = self.absent.get(fid)
            if why is None:
                raise self._unknown(fid, "which is neither registered nor declared absent")
            self.hit.add(why)
            return None
        return for_reading(figure)

    def reasons(self) -> list[str]:
        """Why the absent figures this page asked for so far are absent, one sentence per
        declaring figure, in id order (``absent_reasons()`` in templates)."""
        out = []
        for fid in sorted(self.hit):
            detail = self.figures[fid].detail
            text = detail.get("absent_statement", detail.get("statement"))
            if isinstance(text, str) and text not in out:
                out.append(text)
        return out

    def _unknown(self, fid: str, why: str) -> UnknownFigure:
        volume = fid.split("/", 1)[0]
        return UnknownFigure(
            self.page,
            fid,
            f"cites figure {fid!r}, {why}",
            f"run `probepress figures {volume}`, or fix the template",
        )
