"""The forest plot on a volume's results page: the frozen leaderboard's drawing, inline.

The same geometry (``generator.render.forest``) and template (``templates/forest.svg``) as
the frozen page, so the site and the leaderboard show one picture. The SVG is a raw HTML
block inside the Markdown page; every name in it is escaped by the template, and braces
become character references so no text in it reads as a figure citation.
"""

from __future__ import annotations

from generator.render.environment import PACKAGE_TEMPLATES, make_environment
from generator.render.forest import Entry, ForestPlot, forest_plots
from generator.site.published import PublishedVolume

_INERT = str.maketrans({"{": "&#123;", "}": "&#125;"})


def plots(pv: PublishedVolume, order: list[str]) -> list[ForestPlot]:
    """The plot of ``pv``'s candidates, slugs in ``order`` (the results table's)."""
    entries: list[Entry] = []
    for slug in order:
        ref = pv.volume.candidate(slug)
        if ref is None:
            continue
        group = pv.figure(f"{slug}/tie_group")
        entries.append(
            (
                ref.display_name,
                ref.role == "anchor",
                int(group.value) if group is not None else None,
                pv.figure(f"{slug}/core_rate"),
                pv.figure(f"{slug}/full_rate"),
            )
        )
    return forest_plots(entries)


def forest_section(pv: PublishedVolume, order: list[str]) -> str:
    """``## Forest plot``: the drawing and what it shows, with its axis range."""
    drawn = plots(pv, order)
    template = make_environment(PACKAGE_TEMPLATES).get_template("forest.svg")
    svgs = "\n".join(template.render(plot=plot).translate(_INERT) for plot in drawn)
    caption = (
        "Each row is a model in the order of the table above. Dot: the core (top) or "
        "full-bank (bottom) rate. Thick bar: the narrow interval. Thin line: the wide "
        f"interval. The axis spans {drawn[0].axis.text}, fitted to the data."
    )
    return f'## Forest plot\n\n<div class="pp-forest">\n{svgs}\n</div>\n\n{caption}'
