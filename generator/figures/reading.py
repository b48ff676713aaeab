"""Reading the figures registry a figure at a time (issue 19).

``load_document`` holds, at its peak, the file's bytes, their text, the whole parse tree
and every figure's model: about 4.5 times the file (60 MB at 600 candidates). Here the
bytes go as soon as they are parsed (and hashed), and each figure's part of the tree is
dropped as soon as its model is built, so the tree shrinks while the models grow.

It accepts exactly what ``load_document`` accepts, into equal models: each figure is
validated by the same ``Figure`` model, after the same source-key resolution
(``models.figures.cited``), and the rest of the document by ``FiguresRegistry`` itself
(given the figures' models, which it takes as they are). A document it refuses is read
again by ``load_document``, so every problem is reported in that reader's words, at its
lines: the careful reading is for refusals only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator.hashing import sha256_bytes
from generator.models.figures import Figure, FiguresRegistry, cited
from generator.store.jsonl import Problems, parse_document, validate_document


def read_registry(
    path: Path, shown: str, problems: Problems, max_bytes: int, without: str | None = None
) -> tuple[FiguresRegistry, str] | None:
    """The registry at ``path`` and the SHA-256 of the bytes it was read from, or None
    with its problems reported (as ``load_document`` reports them).

    ``without``: an id prefix whose figures are validated as every other but left out of
    the registry returned (``figures`` replaces a volume's figures: the old ones are
    never all held beside the new)."""
    parsed = parse_document(path, shown, problems, max_bytes)
    if parsed is None:
        return None
    digest = sha256_bytes(parsed.raw)
    data = parsed.data
    del parsed  # the file's bytes: not held while the figures are built
    registry = _figure_at_a_time(data, without)
    if registry is not None:
        return registry, digest
    del data  # what is left of the tree: the careful reading parses the file again
    again = parse_document(path, shown, problems, max_bytes)
    if again is None:  # the file changed since: its own problems
        return None
    found = validate_document(again, FiguresRegistry, shown, problems)
    if found is None:
        return None
    if without is not None:
        kept = {k: v for k, v in found.figures.items() if not k.startswith(without)}
        found = found.model_copy(update={"figures": kept})
    return found, sha256_bytes(again.raw)


def _figure_at_a_time(data: Any, without: str | None = None) -> FiguresRegistry | None:
    """``FiguresRegistry.model_validate(data)``, building each figure's model from its
    part of ``data`` and dropping that part (``data`` is consumed); None when anything
    is refused (``data`` is then partly consumed). The figures whose id starts with
    ``without`` are validated, then dropped too."""
    if not isinstance(data, dict) or not isinstance(data.get("figures"), dict):
        return None
    figures: dict[str, Any] = data["figures"]
    rest = {k: v for k, v in data.items() if k not in ("figures", "sources")}
    table = data.get("sources", {})
    if not isinstance(table, dict):
        return None
    shared: dict[str, Any] = {}
    built: dict[str, Figure] = {}
    try:
        for name in list(figures):
            figure = figures.pop(name)
            # Without a table (a version 1 or 2 file) every figure is given as it is.
            given = cited(name, figure, table, shared) if "sources" in data else figure
            model = Figure.model_validate(given)
            if without is None or not name.startswith(without):
                built[name] = model
        return FiguresRegistry.model_validate(rest | {"figures": built})
    except (ValueError, ValidationError):  # pydantic's ValidationError is a ValueError
        return None
