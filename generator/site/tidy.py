"""The tidy leaderboard downloads: one row per candidate × metric, as CSV and as JSON.

Every row is a figure of the registry exactly as registered (value, intervals, sample size,
method): nothing is recomputed here, so a new metric registered for a candidate appears
without a change to this module. Candidates come in leaderboard order, each candidate's
metrics sorted by name; the bytes depend only on the volume file and the registry.

In the CSV, a text cell that a spreadsheet would run as a formula (it starts with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return) is prefixed with ``'``; the JSON keeps
every text exactly.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from generator.canonical import dumps
from generator.models.figures import Figure, ids_under
from generator.models.leaderboard import Leaderboard, LeaderboardRow, RowInterval
from generator.models.volume import CandidateRef, Volume
from generator.site.published import PublishedVolume
from generator.site.results import candidates_in_order

FOLDER = "leaderboards"
"""Sub-folder of the downloads holding every volume's tidy leaderboard."""
INTERVALS = ("narrow", "wide", "ci")
"""Interval names with their own CSV columns, always present (empty when a figure has
none); any other interval name a figure carries gets columns after these, by name."""
INTERVAL_FIELDS = ("lo", "hi", "confidence", "method")
HEAD = (
    "volume",
    "candidate",
    "api",
    "display_name",
    "role",
    "metric",
    "figure_id",
    "kind",
    "label",
    "value",
    "precision",
    "display",
)
TAIL = ("n", "items", "method")
TEXT_COLUMNS = frozenset({"api", "display_name", "label", "display", "method"})
"""Columns holding free text (never numbers), neutralised against spreadsheet formulas."""
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_name(volume: str) -> str:
    """``leaderboards/vol-001_leaderboard.csv``."""
    return f"{FOLDER}/{volume}_leaderboard.csv"


def json_name(volume: str) -> str:
    """``leaderboards/vol-001_leaderboard.json``."""
    return f"{FOLDER}/{volume}_leaderboard.json"


def _count(figure: Figure, key: str) -> int | None:
    found = figure.detail.get(key)
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def _row(volume: Volume, ref: CandidateRef, figure: Figure) -> LeaderboardRow:
    return LeaderboardRow(
        volume=volume.id,
        candidate=ref.slug,
        api=ref.api,
        display_name=ref.display_name,
        role=ref.role,
        metric=figure.id.removeprefix(f"{volume.id}/{ref.slug}/"),
        figure_id=figure.id,
        kind=figure.kind,
        label=figure.label,
        value=figure.value,
        precision=figure.precision,
        display=figure.display,
        intervals={
            name: RowInterval(lo=i.lo, hi=i.hi, confidence=i.confidence, method=i.method)
            for name, i in sorted(figure.intervals.items())
        },
        n=_count(figure, "draws"),
        items=_count(figure, "items"),
        method=figure.method,
    )


def leaderboard(volume: Volume, figures: Mapping[str, Figure]) -> Leaderboard:
    """Every registered figure of every candidate of ``volume`` (``figures``: by id)."""
    pv = PublishedVolume(volume=volume, figures=figures, frozen={})
    rows = []
    seen: set[str] = set()
    ids = sorted(figures)
    for ref in candidates_in_order(pv):
        if ref.slug in seen:
            continue  # one bundle folder, one set of figures: listed once
        seen.add(ref.slug)
        prefix = f"{volume.id}/{ref.slug}/"
        rows += [_row(volume, ref, figures[k]) for k in ids_under(ids, prefix)]
    return Leaderboard(
        volume=volume.id, title=volume.title, demonstration=volume.demonstration, rows=rows
    )


def json_bytes(board: Leaderboard) -> bytes:
    """The JSON download: canonical JSON of ``board``."""
    return dumps(board.model_dump(mode="json")).encode("utf-8")


def columns(board: Leaderboard) -> list[str]:
    """The CSV's columns: fixed ones, then any further interval's, by name."""
    extra = sorted({n for r in board.rows for n in r.intervals} - set(INTERVALS))
    spans = [f"{n}_{f}" for n in (*INTERVALS, *extra) for f in INTERVAL_FIELDS]
    return [*HEAD, *spans, *TAIL]


def _inert(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _cells(row: LeaderboardRow, header: list[str]) -> list[str]:
    plain = row.model_dump(mode="json", exclude={"intervals"})
    for name, interval in row.intervals.items():
        plain.update({f"{name}_{f}": getattr(interval, f) for f in INTERVAL_FIELDS})
    out = []
    for column in header:
        value = plain.get(column)
        cell = "" if value is None else str(value)
        out.append(_inert(cell) if column in TEXT_COLUMNS or column.endswith("_method") else cell)
    return out


def csv_bytes(board: Leaderboard) -> bytes:
    """The CSV download: a header line, then one line per row (UTF-8, ``\\n``)."""
    header = columns(board)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(_cells(row, header) for row in board.rows)
    return buffer.getvalue().encode("utf-8")


def downloads_of(volume: Volume, figures: Mapping[str, Figure]) -> dict[str, bytes]:
    """The volume's two leaderboard downloads by name inside ``downloads/``."""
    board = leaderboard(volume, figures)
    return {csv_name(volume.id): csv_bytes(board), json_name(volume.id): json_bytes(board)}
