"""The bare-number lint: hand-written pages print numbers only through figure citations.

A percentage or a decimal typed into a hand-written page is a number nobody can trace:
it has no sources, no interval and no method, and it silently goes stale when the data
change. Pages cite the figures registry instead (``generator.site.figrefs``). The
publishing gate runs :func:`bare_numbers` over every hand-written page.

What is flagged, outside citations:

* percentages: ``35%``, ``35.3 %``, ``12 per cent``, ``12 percent``;
* percentage points: ``3 pts``, ``3 points``, ``+2.1 percentage points``;
* decimals: ``0.75``, ``.75``, ``-0.8``, ``2.5x``.

What is not: whole numbers (counts in prose, dates, "nine gates"), dotted versions and
identifiers (``v1.2``, ``1.2.3``, ``bank_v1_2``), and licence names
(``CC BY 4.0``, ``Apache-2.0``), which are names rather than measurements.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from generator.errors import Problem
from generator.figures import load_registry
from generator.models.figures import Figure
from generator.models.volume import Volume
from generator.site.figrefs import CITATION
from generator.site.mixing import mixed_sentences
from generator.store.jsonl import Bounds, Problems, load_document
from generator.store.paths import GENERATED_FOLDERS, Layout

_NUMBER = r"[-+−]?(?<![\w.])(?:\d+(?:\.\d+)?|\.\d+)"
PERCENT = re.compile(_NUMBER + r"\s?(?:%|per\s?cent\b|percent\b)", re.IGNORECASE)
POINTS = re.compile(_NUMBER + r"\s?(?:pts?\b|points?\b|percentage\s+points?\b)", re.IGNORECASE)
DECIMAL = re.compile(r"[-+−]?(?<![\w.])\d*\.\d+(?!\.?\d)")
NAMES = re.compile(r"\bCC[ -]BY(?:[ -](?:SA|NC|ND))*[ -]\d+\.\d+\b|\bApache[ -]\d+\.\d+\b")
"""Names that contain a decimal but measure nothing."""


class BareNumber(NamedTuple):
    """A number typed into a page instead of cited."""

    line: int
    """1-based line number."""
    token: str
    """The number as written, e.g. ``35.3%``."""


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` replaced by spaces (line breaks kept)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def bare_numbers(text: str) -> list[BareNumber]:
    """Percentages, percentage points and decimals written outside figure citations.

    Args:
        text: A hand-written page's Markdown.

    Returns:
        One entry per bare number, in reading order (line, then column).
    """
    scrubbed = _blank(_blank(text, CITATION), NAMES)
    found: dict[int, tuple[int, str]] = {}
    for pattern in (PERCENT, POINTS, DECIMAL):
        for match in pattern.finditer(scrubbed):
            if any(start <= match.start() < start + len(tok) for start, (_, tok) in found.items()):
                continue  # already reported as part of a percentage or points
            line = scrubbed.count("\n", 0, match.start()) + 1
            found[match.start()] = (line, match.group(0))
    return [BareNumber(line, token) for _, (line, token) in sorted(found.items())]


def hand_written_pages(site_src: Path) -> list[Path]:
    """Hand-written Markdown pages under ``site_src`` (generated folders excluded)."""
    if not site_src.is_dir():
        return []
    return [
        path
        for path in sorted(site_src.rglob("*.md"))
        if path.relative_to(site_src).parts[0] not in GENERATED_FOLDERS
    ]


def _bank_versions(layout: Layout) -> dict[str, str]:
    """Each readable volume's bank version (an unreadable one is another gate's finding)."""
    out = {}
    for volume in layout.volume_ids():
        path = layout.volume_file(volume)
        found = load_document(path, Volume, volume, Problems(), Bounds().max_yaml_bytes)
        if found is not None:
            out[volume] = found.bank_version
    return out


def _kind(figures: Mapping[str, Figure], figure_id: str) -> str | None:
    return figures[figure_id].kind if figure_id in figures else None


def lint_pages(layout: Layout) -> list[Problem]:
    """Every bare number of every hand-written page, and every sentence that mixes
    populations (``generator.site.mixing``), as problems for a gate or the build."""
    problems = []
    pages = hand_written_pages(layout.site_src)
    if pages:
        figures = load_registry(layout).figures
        versions = _bank_versions(layout)
    for path in pages:
        text = path.read_text("utf-8", errors="replace")
        for found in bare_numbers(text):
            problems.append(
                Problem(
                    layout.rel(path),
                    found.line,
                    "bare-number",
                    f"{found.token!r} is typed into a hand-written page",
                    'cite the number from the registry: {{ fig("<figure id>") }}',
                )
            )
        for mixed in mixed_sentences(text, lambda fid: _kind(figures, fid), versions):
            problems.append(
                Problem(
                    layout.rel(path),
                    mixed.line,
                    mixed.rule,
                    f"one sentence {mixed.why}: {mixed.first} and {mixed.second}",
                    "compare core with core, or full-bank figures of one bank version; "
                    "say the other in its own sentence",
                )
            )
    return problems
