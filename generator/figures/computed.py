"""A volume's computed figures, held compactly until a model is asked for (issue 19).

A ``Figure`` model with its intervals is about 2.9 KB in memory (every pydantic instance
has its own ``__dict__``, every dict and string its own object); at 600 candidates the
44,432 figures ``compute`` returns held 130 MB while the volume's rows were still alive.
``Computed`` keeps each validated figure as the canonical JSON text of its fields without
``sources`` (about 650 bytes) and its list of shared ``Source`` models: the text is what
``verify`` compares and what ``write`` puts in the registry; a consumer that reads a
figure (a page, a test) gets a model built from the text, equal to the one validated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from generator.models.figures import Figure, Source


def compared(figure: Figure) -> str:
    """What a registered and a recomputed figure must agree on: the canonical JSON text
    of every field but ``sources`` (keys sorted, so the order fields were given in
    does not count)."""
    return _text(figure.model_dump(mode="json", exclude={"sources"}))


def _text(dumped: dict[str, Any]) -> str:
    return json.dumps(dumped, sort_keys=True, separators=(",", ":"))  # ASCII: 1 byte a char


Made = tuple[str, str, list[Source]]
"""A figure as ``Computed.made`` hands it on: its id, ``compared`` text and sources."""


class Computed(Mapping[str, Figure]):
    """Figures by id, each kept as ``compared`` text and its sources (see the module)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._sources: dict[str, list[Source]] = {}
        self._lists: dict[tuple[int, ...], list[Source]] = {}
        """Each distinct source list once (the ``Source`` models are shared already)."""
        self._dumps: dict[int, list[dict[str, Any]]] = {}
        """Each distinct source list dumped once, by the list's id (kept in ``_lists``)."""

    def add(self, figure: Figure) -> None:
        """Keep a validated figure (under its id)."""
        self[figure.id] = figure

    def __setitem__(self, fid: str, figure: Figure) -> None:
        self.put(fid, compared(figure), figure.sources)

    def made(self) -> list[Made]:
        """Every figure as ``(id, compared text, sources)``, in the order added: what a
        registry filled in another process hands back (``FigureSet.extend``)."""
        return [(fid, text, self._sources[fid]) for fid, text in self._texts.items()]

    def put(self, fid: str, text: str, sources: list[Source]) -> None:
        """Keep a figure already validated and made ``compared`` text (by ``made``)."""
        self._texts[fid] = text
        key = tuple(id(s) for s in sources)
        self._sources[fid] = self._lists.setdefault(key, sources)

    def same(self, fid: str, registered: Figure) -> bool:
        """Whether ``registered`` agrees with figure ``fid`` on every field but
        ``sources`` (``compared`` texts equal, without encoding the registered one)."""
        fields: dict[str, Any] = json.loads(self._texts[fid])
        return registered.model_dump(mode="json", exclude={"sources"}) == fields

    def dumped(self, fid: str) -> dict[str, Any]:
        """``model_dump(mode="json")`` of figure ``fid``, from its text."""
        out: dict[str, Any] = json.loads(self._texts[fid])
        listed = self._sources[fid]
        dumps = self._dumps.get(id(listed))
        if dumps is None:
            dumps = self._dumps[id(listed)] = [s.model_dump(mode="json") for s in listed]
        out["sources"] = dumps  # shared: read, never changed, by the registry's writer
        return out

    def sorted(self) -> Computed:
        """The same figures in id order."""
        out = Computed()
        for fid in sorted(self._texts):
            out._texts[fid] = self._texts[fid]
            out._sources[fid] = self._sources[fid]
        out._lists, out._dumps = self._lists, self._dumps
        return out

    def __getitem__(self, fid: str) -> Figure:
        fields = json.loads(self._texts[fid])
        return Figure.model_validate({**fields, "sources": self._sources[fid]})

    def __contains__(self, fid: object) -> bool:
        return fid in self._texts

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)
