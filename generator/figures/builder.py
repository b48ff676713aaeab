"""Turn statistics into registry entries: decimal strings, display forms, sources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import InputError, Problem
from generator.figures.computed import Computed, Made
from generator.hashing import sha256_file
from generator.models.figures import Figure, Interval, Param, Source
from generator.stats import Interval as StatsInterval
from generator.stats import percent_str, to_decimal_str
from generator.store.paths import FIGURES_REGISTRY, Layout

RATE_PLACES = 4
PERCENT_PLACES = 1


def rate_display(x: float) -> str:
    """``0.2143`` -> ``21.4%``."""
    return percent_str(x, PERCENT_PLACES)


def signed(x: float, places: int) -> str:
    """``x`` with an explicit sign unless it rounds to zero: ``+2.1``, ``-0.4``, ``0.0``."""
    text = to_decimal_str(x, places)
    return f"+{text}" if not text.startswith("-") and text.strip("0.") else text


def points_display(x: float) -> str:
    """A difference of rates (a proportion) in percentage points: ``+2.1 pts``."""
    return f"{signed(x * 100, PERCENT_PLACES)} pts"


@dataclass
class SourceCache:
    """SHA-256 of source files, computed once each (bundle files come pre-hashed).

    A volume's figures cite the same few hundred files thousands of times: each path's
    root-relative name and each (name, digest) source record are made once, and each
    bundle's pre-hashed files are entered once (``figures.context.sources_of``)."""

    layout: Layout
    known: dict[str, str] = field(default_factory=dict)
    entered: set[Path] = field(default_factory=set)
    """Bundle folders whose pre-hashed files are in ``known``."""
    _rels: dict[Path, str] = field(default_factory=dict)
    _made: dict[tuple[str, str], Source] = field(default_factory=dict)

    def rel(self, path: Path) -> str:
        """``layout.rel(path)``, worked out once per path."""
        found = self._rels.get(path)
        if found is None:
            found = self._rels[path] = self.layout.rel(path)
        return found

    def source(self, path: Path) -> Source:
        rel = self.rel(path)
        if rel not in self.known:
            self.known[rel] = sha256_file(path)
        key = (rel, self.known[rel])
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = Source(path=rel, sha256=key[1])
        return made

    def sources(self, paths: Sequence[Path]) -> list[Source]:
        unique = sorted({self.rel(p): p for p in paths}.items())
        return [self.source(p) for _, p in unique]


def interval(iv: StatsInterval, places: int, display: str) -> Interval:
    """A registry interval from a statistics interval."""
    params: dict[str, Param] = {
        k: (to_decimal_str(v, 6) if isinstance(v, float) else v)
        for k, v in sorted(iv.params.items())
    }
    return Interval(
        lo=to_decimal_str(iv.lo, places),
        hi=to_decimal_str(iv.hi, places),
        display=display,
        method=iv.method,
        confidence=to_decimal_str(iv.confidence, 2),
        params=params,
    )


def rate_interval(iv: StatsInterval) -> Interval:
    """A rate's interval, displayed as percentages."""
    return interval(iv, RATE_PLACES, f"{rate_display(iv.lo)}–{rate_display(iv.hi)}")


def difference_interval(iv: StatsInterval) -> Interval:
    """A difference's interval, displayed in points."""
    return interval(iv, RATE_PLACES, f"{points_display(iv.lo)} to {points_display(iv.hi)}")


@dataclass
class FigureSet:
    """Figures being computed for one volume."""

    figures: Computed = field(default_factory=Computed)
    """Kept compactly: a model per figure held 130 MB at 600 candidates (issue 19)."""

    def add(
        self,
        fid: str,
        label: str,
        kind: str,
        value: float | int,
        *,
        precision: int,
        display: str,
        method: str,
        sources: list[Source],
        intervals: Mapping[str, Interval] | None = None,
        params: Mapping[str, Param] | None = None,
        detail: Mapping[str, Param | list[str]] | None = None,
    ) -> None:
        self._new(fid)
        self.figures.add(
            Figure.model_validate(
                {
                    "id": fid,
                    "label": label,
                    "kind": kind,
                    "value": to_decimal_str(float(value), precision)
                    if precision
                    else str(int(value)),
                    "precision": precision,
                    "display": display,
                    "method": method,
                    "intervals": dict(intervals or {}),
                    "params": dict(params or {}),
                    "detail": dict(detail or {}),
                    "sources": sources,
                }
            )
        )

    def _new(self, fid: str) -> None:
        """Refuse ``fid`` when it is registered already."""
        if fid in self.figures:
            # Inputs, not code, make ids collide (two candidates of one slug): refuse them
            # as input, in words, rather than register one number over another.
            raise InputError(
                f"cannot compute the figures: figure {fid!r} would be registered twice",
                [
                    Problem(
                        FIGURES_REGISTRY,
                        None,
                        "figure-id-collision",
                        f"two sources compute figure {fid!r}",
                        "run `probepress gate naming VOLUME`: two candidates whose API "
                        "strings slugify alike share figure ids",
                    )
                ],
            )

    def made(self) -> list[Made]:
        """Every figure registered here, to hand on to another set (``extend``)."""
        return self.figures.made()

    def extend(self, made: list[Made]) -> None:
        """Register figures another set made (``made``), refusing an id already here."""
        for fid, text, sources in made:
            self._new(fid)
            self.figures.put(fid, text, sources)

    def count(
        self,
        fid: str,
        label: str,
        value: int,
        sources: list[Source],
        method: str = "count",
        detail: Mapping[str, Param | list[str]] | None = None,
        kind: str = "count",
    ) -> None:
        self.add(
            fid,
            label,
            kind,
            value,
            precision=0,
            display=str(value),
            method=method,
            sources=sources,
            detail=detail,
        )
