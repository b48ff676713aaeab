"""The mixing lint: one sentence of a hand-written page compares like with like.

A core rate is measured on the permanent core items, a full-bank rate on every active
item of the volume's bank version. Set side by side in one sentence they read as one
measurement, and the difference between them as a finding; two full-bank rates of
volumes that ran different bank versions are measured on different item sets. So a
sentence (or a table row) of a hand-written page may cite figures of one population
only: the core, or the full bank of one bank version. Counts, agreement and other
figures that are no rate of a candidate are free to sit beside either.

A figure's population follows from its id (the registry's naming contract,
``generator.figures``): ``<volume>/<candidate>/core_rate``, the rank range and tie group
(derived from core rates) and ``<volume>/drift/<anchor>/core`` are core figures; every
other rate, score or difference of a candidate (``full_rate``, ``judged_rate``,
``tier0_rate``, ``half/…``, ``split_half/…``, ``category/…``, ``rubric/…``) is a
full-bank figure of its volume's bank version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from generator.site.figrefs import CITATION

CORE_TAILS = frozenset({"core_rate", "rank_best", "rank_worst", "tie_group"})
"""Last parts of a candidate's figure ids that are measured on the core."""
FULL_KINDS = frozenset({"rate", "score", "difference"})
"""Figure kinds a full-bank figure has (a count or an agreement belongs to no population)."""
_VOLUME_LEVEL = frozenset({"bank", "calibration", "jury", "movement", "rates", "split_half"})
"""Second parts of volume-level figure ids (no candidate's)."""
_BREAK = re.compile(
    r"\n[ \t]*\n|\n(?=[ \t]*\|)|(?<=\|)[ \t]*\n|(?<=[.!?])[ \t\n]+(?=[A-Z{\[*_(\"“])"
)
"""Where one unit of text ends: a blank line, a table row's edges, or a sentence's end
(a full stop, question or exclamation mark before a capital or a citation; "vs. the"
goes on)."""


@dataclass(frozen=True)
class Population:
    """What a figure is measured on: the core, or one bank version's full bank."""

    core: bool
    bank_version: str | None

    def __str__(self) -> str:
        return "the core" if self.core else f"the full bank (bank {self.bank_version})"


def population(
    figure_id: str, kind: str | None, bank_versions: Mapping[str, str]
) -> Population | None:
    """The population of a figure (by id and kind), or None for one that has none."""
    parts = figure_id.split("/")
    if len(parts) < 3 or parts[0] not in bank_versions:
        return None
    if parts[1] == "drift":
        return Population(True, None) if parts[-1] == "core" else None
    if parts[1] in _VOLUME_LEVEL:
        return None
    if len(parts) == 3 and parts[2] in CORE_TAILS:
        return Population(True, None)
    if kind in FULL_KINDS:
        return Population(False, bank_versions[parts[0]])
    return None


@dataclass(frozen=True)
class Mixed:
    """A sentence that cites figures of two populations."""

    line: int
    """1-based line where the sentence starts."""
    first: str
    second: str
    """The two figure ids, in reading order."""
    why: str
    rule: str


def _units(text: str) -> list[tuple[int, int]]:
    """Start and end offsets of every sentence, paragraph or table row, citations whole."""
    masked = CITATION.sub(lambda m: re.sub(r"[.!?|\n]", "_", m.group(0)), text)
    out, start = [], 0
    for m in _BREAK.finditer(masked):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def mixed_sentences(
    text: str, kind_of: Callable[[str], str | None], bank_versions: Mapping[str, str]
) -> list[Mixed]:
    """Every sentence or table row of ``text`` that cites figures of two populations.

    Args:
        text: A hand-written page's Markdown.
        kind_of: The registered kind of a figure id (None if unknown).
        bank_versions: Each volume's bank version, by volume id.
    """
    found = []
    for start, end in _units(text):
        ids = [m.group("id").strip() for m in CITATION.finditer(text, start, end)]
        cited = [(fid, population(fid, kind_of(fid), bank_versions)) for fid in ids]
        scoped = [(fid, pop) for fid, pop in cited if pop is not None]
        clash = _clash(scoped)
        if clash is not None:
            line = text.count("\n", 0, start) + 1
            found.append(Mixed(line, *clash))
    return found


def _clash(scoped: list[tuple[str, Population]]) -> tuple[str, str, str, str] | None:
    """The first pair of figures of two populations, with why and the rule broken."""
    for n, (first, a) in enumerate(scoped):
        for second, b in scoped[n + 1 :]:
            if a.core != b.core:
                why = f"cites a figure of {a} beside one of {b}"
                return first, second, why, "mixed-core-full"
            if not a.core and a.bank_version != b.bank_version:
                why = f"compares figures of {a} and of {b}"
                return first, second, why, "mixed-bank-versions"
    return None
