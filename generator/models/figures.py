"""The figures registry (``figures/figures.json``): every publishable number with receipts."""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from generator.canonical import dumps
from generator.models.base import Part, Record, Sha256
from generator.models.receipts import Receipt

Decimal = Annotated[str, Field(pattern=r"^-?[0-9]+(\.[0-9]+)?$")]
"""A number as a decimal string with its declared precision (never a float repr)."""
Param = str | int | bool


_FIELD_SETS: dict[frozenset[str], set[str]] = {}
"""One set object for each distinct set of field names given to a figures model."""


class _Many(Part):
    """A part of which a volume holds tens of thousands (a figure, its intervals and
    sources): every instance with the same fields given shares one set of their names.

    pydantic gives every instance its own ``__pydantic_fields_set__``, a set of about
    730 bytes; it was 40 % of a registry in memory (issue 19). Sharing one is safe
    because these models are frozen: pydantic changes the set of an instance only on
    assignment (refused) or on the copy ``model_copy`` makes."""

    def model_post_init(self, context: Any, /) -> None:
        names = self.__pydantic_fields_set__
        object.__setattr__(
            self, "__pydantic_fields_set__", _FIELD_SETS.setdefault(frozenset(names), names)
        )


class Source(_Many):
    """A file a figure was computed from."""

    path: str
    """Path relative to the publication root."""
    sha256: Sha256
    """SHA-256 of the file when the figure was computed."""


class Interval(_Many):
    """An interval around a figure."""

    lo: Decimal
    """Lower bound."""
    hi: Decimal
    """Upper bound."""
    display: str
    """How pages print the interval."""
    method: str
    """Method name (see the methodology)."""
    confidence: Decimal
    """Nominal coverage."""
    params: dict[str, Param] = {}
    """Method parameters (seed, resamples …)."""


SourceKey = Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
"""A source list's key in the registry's table: the first 16 hex digits of the SHA-256 of
its canonical JSON."""


def _sources_cited_by_key(schema: dict[str, Any]) -> None:
    """The file's ``sources`` of a figure: its list, or (since version 3) its table key."""
    listed = schema["properties"]["sources"]
    key = {"type": "string", "pattern": "^[0-9a-f]{16}$"}
    schema["properties"]["sources"] = {
        "anyOf": [listed, key],
        "description": listed.pop("description", ""),
    }


class Figure(_Many):
    """One publishable number."""

    model_config = ConfigDict(json_schema_extra=_sources_cited_by_key)

    id: str
    """Stable id, e.g. ``vol-001/<candidate-slug>/core_rate``."""
    label: str
    """What the number is, in a sentence."""
    kind: Literal["rate", "difference", "count", "agreement", "points", "rank", "share", "score"]
    """What sort of number it is (``score``: a mean rubric item score in [0, 1], higher is
    better, never a failure rate)."""
    value: Decimal
    """The number."""
    precision: int = Field(ge=0, le=12)
    """Decimal places of ``value`` and interval bounds."""
    display: str
    """How pages print it."""
    intervals: dict[str, Interval] = {}
    """Intervals by name (``narrow``, ``wide``, ``ci``)."""
    method: str
    """How the number was computed."""
    params: dict[str, Param] = {}
    """Parameters of the computation."""
    detail: dict[str, Param | list[str]] = {}
    """Supporting facts (counts, item ids) a page may show."""
    sources: list[Source]
    """Every file the number was computed from. In the registry file (since schema
    version 3) the key of the list in the registry's ``sources`` table."""


def _validated_once(listed: Any) -> Any:
    """A table's source list as ``Source`` models, validated once for all the figures
    citing it (a figure given a model keeps it: the figures share one object per file,
    not a copy each; issue 19). A list that does not validate is returned as it is, so
    each citing figure reports its errors where it always did."""
    if not isinstance(listed, list):
        return listed
    try:
        return [Source.model_validate(entry) for entry in listed]
    except ValidationError:
        return listed


def cited(name: str, figure: Any, table: dict[str, Any], shared: dict[str, Any]) -> Any:
    """Figure ``name`` as the file gives it, its source key (if it has one) replaced by the
    list of that key in ``table``; ``shared`` holds each list cited so far, validated once
    (``_validated_once``) for all the figures citing it.

    Raises:
        ValueError: The key is not in the table.
    """
    key = figure.get("sources") if isinstance(figure, dict) else None
    if not isinstance(key, str):
        return figure
    if key not in table:
        raise ValueError(f"figure {name}: sources {key!r} is not in the table")
    if key not in shared:
        shared[key] = _validated_once(table[key])
    return {**figure, "sources": shared[key]}


REGISTRY_SCHEMA_VERSION = 3


class FiguresRegistry(Record):
    """``figures/figures.json``."""

    # The published schema (a download, which never changes) keeps its first title.
    model_config = ConfigDict(title="Registry")
    supported_schema_version: ClassVar[int] = REGISTRY_SCHEMA_VERSION

    schema_version: int = Field(default=REGISTRY_SCHEMA_VERSION, ge=1)
    """Version of this file format (2: ``receipts``; 3: the ``sources`` table). Version 1
    and 2 files still read; the audit says version 1 figures carry no receipt."""
    generator: str
    """Name and version of the generator that computed the figures."""
    figures: dict[str, Figure]
    """Every figure by id."""
    receipts: dict[str, Receipt] = {}
    """What scored each volume's figures, by volume id (since schema version 2)."""
    sources: dict[SourceKey, list[Source]] = {}
    """Every distinct list of source files, by key (since schema version 3): a figure's
    ``sources`` in the file names one, so each list is written once (a volume has a few
    dozen lists for thousands of figures). Reading puts each list back into its figures,
    so a registry read into memory has this table empty."""

    @model_validator(mode="before")
    @classmethod
    def _cited_sources(cls, data: Any) -> Any:
        """Each figure's source key replaced by its list from the table."""
        if not isinstance(data, dict) or "sources" not in data:
            return data
        table, figures = data["sources"], data.get("figures")
        if not isinstance(table, dict) or not isinstance(figures, dict):
            return data
        shared: dict[str, Any] = {}
        resolved = {name: cited(name, fig, table, shared) for name, fig in figures.items()}
        return {k: v for k, v in data.items() if k != "sources"} | {"figures": resolved}

    def file_chunks(self) -> Iterator[str]:
        """The registry's file text, one figure at a time (``registry_chunks``)."""
        rest = self.model_dump(mode="json", exclude={"figures", "sources"})
        named = (
            (name, self.figures[name].model_dump(mode="json")) for name in sorted(self.figures)
        )
        return registry_chunks(named, rest)


def registry_chunks(
    figures: Iterable[tuple[str, dict[str, Any]]], rest: dict[str, Any]
) -> Iterator[str]:
    """The registry's file text (this schema version: each distinct source list once, in
    the ``sources`` table, and every figure citing its list by key), from ``figures`` (in
    id order, each as ``model_dump(mode="json")``) and ``rest`` (the registry's other
    fields, dumped so), one figure at a time: the pieces join into the canonical JSON of
    the whole document (``canonical.dumps``), which is never held as a tree of dicts
    (issue 19: at 600 candidates that tree was the largest thing ``figures`` held)."""
    table: dict[str, Any] = {}
    rest = rest | {"schema_version": REGISTRY_SCHEMA_VERSION, "sources": table}
    # Canonical order: "figures" sorts before every other key, "sources" (the table
    # the figures fill) after it.
    yield '{\n  "figures": {'
    number = 0
    for number, (name, figure) in enumerate(figures, start=1):
        text = json.dumps(figure["sources"], sort_keys=True, separators=(",", ":"))
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        if table.setdefault(key, figure["sources"]) != figure["sources"]:
            raise ValueError(f"two source lists share the key {key}")
        figure["sources"] = key
        yield f"{',' if number > 1 else ''}\n    {_nested(name, 2)}: {_nested(figure, 2)}"
    yield "\n  }" if number else "}"
    for name in sorted(rest):
        yield f",\n  {_nested(name, 1)}: {_nested(rest[name], 1)}"
    yield "\n}\n"


def _nested(value: Any, level: int) -> str:
    """``value``'s canonical JSON as it reads ``level`` levels deep in a document."""
    return dumps(value)[:-1].replace("\n", "\n" + "  " * level)


def ids_under(ids: list[str], prefix: str) -> list[str]:
    """The ids of sorted ``ids`` that start with ``prefix`` (in sorted ids they are
    adjacent: a page or download picks one candidate's figures out of thousands)."""
    start = bisect.bisect_left(ids, prefix)
    end = start
    while end < len(ids) and ids[end].startswith(prefix):
        end += 1
    return ids[start:end]
