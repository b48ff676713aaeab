"""The texts of public draws that a page shows, read on demand.

Loading a bundle keeps no response text (rows stay small); a page that lists a few
draws reads their texts here, in one more streaming pass over ``draws.jsonl`` and
``verdicts.jsonl``. Held-out items are never returned, whatever the files contain.
"""

from __future__ import annotations

from typing import NamedTuple

from generator.models.records import Draw, Verdict
from generator.store.bank import Bank
from generator.store.jsonl import Bounds, Problems, StreamResult, iter_jsonl
from generator.store.paths import Layout
from generator.store.rowtypes import BundleData, DrawKey, record_key


class DrawTexts(NamedTuple):
    """The texts of one public draw that a page may show."""

    response: str | None
    evidence: str | None


def read_responses(
    layout: Layout,
    bundle: BundleData,
    bank: Bank,
    keys: set[DrawKey],
    bounds: Bounds | None = None,
) -> dict[DrawKey, DrawTexts]:
    """The response and the grader's evidence quote of each of ``keys``, public items only.

    Loading keeps no text (rows stay small); a page that lists a few draws reads their
    texts here, in one more streaming pass over ``draws.jsonl`` and ``verdicts.jsonl``.
    Held-out items are never returned, whatever the files contain. Each file must still
    have the SHA-256 it had when the bundle was loaded.

    Args:
        layout: The publication root.
        bundle: The bundle as loaded.
        bank: The bank (to tell public from held-out items).
        keys: The draws wanted.
        bounds: Reader limits.

    Returns:
        Texts of every wanted public draw found, by key.

    Raises:
        InputError: A file cannot be read, or changed since the bundle was loaded.
    """
    from generator.errors import InputError

    bounds = bounds or Bounds()
    wanted = {k for k in keys if not bank.is_heldout(k.item)}
    responses: dict[DrawKey, str | None] = {}
    evidence: dict[DrawKey, str | None] = {}
    problems = Problems()
    sources: list[tuple[str, type[Draw] | type[Verdict]]] = [
        ("draws.jsonl", Draw),
        ("verdicts.jsonl", Verdict),
    ]
    for name, model in sources:
        shown = bundle.shown(layout, name)
        result = StreamResult()
        path = bundle.directory / name
        for _, record in iter_jsonl(path, model, shown, problems, bounds, result):
            key = record_key(record)
            if key not in wanted:
                continue
            if isinstance(record, Draw):
                responses[key] = record.response
            else:
                evidence[key] = record.evidence
        if result.complete and result.sha256 != bundle.file_sha256.get(name):
            problems.add(shown, None, "changed", "file changed since the volume was loaded")
    if problems:
        where = layout.rel(bundle.directory)
        raise InputError(f"cannot read the texts of {where}:", problems.items)
    return {
        key: DrawTexts(responses.get(key), evidence.get(key))
        for key in sorted(wanted)
        if key in responses or key in evidence
    }
