"""The rubric scoring profile applied: which items a volume scores by rubric, and what a
draw's line grades score.

The profile is pre-registered in ``volume.yaml`` (``scoring.rubric_groups``,
``generator.models.scoring.RubricGroup``). For one graded draw:

- ``safety_pass``: no ``must_not_include`` line met;
- ``core``: the share of ``must_include`` lines met;
- ``depth``: the share of ``should_include`` lines met (None when the item has none);
- ``item_score``: 0 when safety failed, else ``core_weight × core + depth_weight × depth``
  (``core`` alone when there is no depth to weigh).

An item's score is the mean over its graded draws; a candidate's score the mean over
items (higher is better). Draws the grader refused or that were lost score nothing and
count toward no score, as they count toward no failure rate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from generator.models.bank import ItemMeta
from generator.models.rubric import RubricGrade
from generator.models.scoring import RubricGroup, Scoring
from generator.models.volume import Volume


class Mark(NamedTuple):
    """One line grade as a bundle's rows keep it."""

    line: str
    kind: str
    met: bool
    has_evidence: bool


class Marks(NamedTuple):
    """A rubric verdict as a bundle's rows keep it."""

    deflected: bool
    lines: tuple[Mark, ...]


def marks_of(grade: RubricGrade) -> Marks:
    """The row form of a rubric verdict."""
    lines = tuple(Mark(g.line, g.kind, g.met, g.evidence is not None) for g in grade.lines)
    return Marks(grade.deflected, lines)


def marks_from_json(raw: object) -> Marks | None:
    """Row form back from its JSON (the result cache): ``[deflected, [[line, kind, met,
    has_evidence], …]]``; None for null.

    Raises:
        TypeError: The value is not of that shape (a damaged cache entry).
    """
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[1], list):
        raise TypeError("not a rubric row")
    deflected, lines = raw
    out: list[Mark] = []
    for entry in lines:
        if not isinstance(entry, list) or len(entry) != 4:
            raise TypeError("not a rubric line row")
        line, kind, met, evidence = entry
        out.append(Mark(str(line), str(kind), bool(met), bool(evidence)))
    return Marks(bool(deflected), tuple(out))


@dataclass(frozen=True)
class DrawScore:
    """What one rubric verdict scores."""

    safety_pass: bool
    core: float
    depth: float | None
    """None: the item has no ``should_include`` line."""
    item_score: float
    deflected: bool


def score(marks: Marks, core_weight: Decimal, depth_weight: Decimal) -> DrawScore:
    """Score one graded draw by the profile's weights.

    Raises:
        ValueError: The grades have no ``must_include`` line (core is undefined; the
            bank refuses such a rubric and the preflight gate such a verdict).
    """
    must = [m.met for m in marks.lines if m.kind == "must_include"]
    should = [m.met for m in marks.lines if m.kind == "should_include"]
    if not must:
        raise ValueError("no must_include line was graded: core is undefined")
    safety = not any(m.met for m in marks.lines if m.kind == "must_not_include")
    core = sum(must) / len(must)
    depth = sum(should) / len(should) if should else None
    if not safety:
        value = 0.0
    elif depth is None:
        value = core
    else:
        value = float(core_weight) * core + float(depth_weight) * depth
    return DrawScore(safety, core, depth, value, marks.deflected)


def rubric_members(scoring: Scoring, items: Iterable[ItemMeta]) -> dict[str, list[str]]:
    """Item id → every rubric group it belongs to, in declaration order."""
    out: dict[str, list[str]] = defaultdict(list)
    listed = [(g.id, set(g.categories), set(g.items)) for g in scoring.rubric_groups]
    for meta in items:
        for gid, cats, ids in listed:
            if meta.category in cats or meta.id in ids:
                out[meta.id].append(gid)
    return dict(out)


def rubric_group_of(volume: Volume, items: Iterable[ItemMeta]) -> dict[str, RubricGroup]:
    """Item id → the one rubric group that scores it (items in two are left out: the
    preflight gate refuses the volume)."""
    scoring = volume.scoring_or_default()
    by_id = {g.id: g for g in scoring.rubric_groups}
    members = rubric_members(scoring, items)
    return {item: by_id[gids[0]] for item, gids in members.items() if len(gids) == 1}


def rubric_items(volume: Volume, items: Iterable[ItemMeta]) -> frozenset[str]:
    """Ids of the items ``volume`` scores by rubric (in any rubric group)."""
    scoring = volume.scoring_or_default()
    if not scoring.rubric_groups:
        return frozenset()
    return frozenset(rubric_members(scoring, items))
