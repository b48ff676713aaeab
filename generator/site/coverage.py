"""Coverage columns of the site's results tables (the registered ``coverage/*`` figures
of each candidate, printed beside its rates exactly as the frozen leaderboard prints them)
and the pre-registered minimum sizes among the run conditions."""

from __future__ import annotations

from generator.models.volume import Thresholds
from generator.site.markup import text
from generator.site.published import PublishedVolume

MISSING = "—"
HEADER = ["Answered", "Retried", "Refused"]
"""Column titles (answered share of the scheduled draws, retried draws, refused draws)."""
ALIGN = "rrr"
NOTE = (
    "*Answered*: the share of the model's scheduled draws whose last attempt returned an "
    "answer. *Retried*: scheduled draws that needed more than one attempt. *Refused*: "
    "draws the provider or the model declined to answer (content filter), a category of "
    "its own beside answered, empty and lost draws."
)


def cells(pv: PublishedVolume, slug: str) -> list[str]:
    """The three coverage cells of candidate ``slug`` (a dash for a figure not registered,
    as in a volume published before coverage was)."""
    out = []
    for name in ("answered", "retried", "refused"):
        figure = pv.figure(f"{slug}/coverage/{name}")
        out.append(text(figure.display) if figure is not None else MISSING)
    return out


def minimum_rows(t: Thresholds) -> list[list[str]]:
    """The declared minimums of validated items, as rows of the conditions table (none
    when the volume declares none)."""
    rows = []
    if t.min_category_items is not None:
        shown = f"{t.min_category_items} (below it a category's rates are withheld)"
        rows.append(["Minimum validated items per category rate", text(shown)])
    if t.min_volume_items is not None:
        rows.append(["Minimum validated items to publish the volume", text(t.min_volume_items)])
    return rows
