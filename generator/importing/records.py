"""``probepress import records``: the flat records format (CSV or JSONL) into rows.

A JSONL line is a ``RecordRow`` as JSON (``labels`` and ``evidence`` objects by rater).
A CSV row has the scalar fields as columns (``candidate``, ``item``, ``half``, ``draw``,
``response``, ``status``, ``attempts`` …; an empty cell is a value not recorded) and one
``label:<rater>`` column per rater, with an optional ``evidence:<rater>`` column; a JSONL
line may use the same prefixed keys. Every invalid row is reported at its line.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from generator.errors import InputError
from generator.importing.bundles import Located
from generator.importing.rows import RecordRow
from generator.importing.table import SourceRow, add_validation_problems
from generator.store.jsonl import Problems

LABEL = "label:"
EVIDENCE = "evidence:"


def _gathered(data: dict[str, Any]) -> dict[str, Any]:
    """``label:<rater>``/``evidence:<rater>`` keys gathered into ``labels``/``evidence``."""
    out: dict[str, Any] = {}
    labels = dict(data.get("labels") or {})
    evidence = dict(data.get("evidence") or {})
    for key, value in data.items():
        if key.startswith(LABEL):
            if value is not None:
                labels[key.removeprefix(LABEL)] = value
        elif key.startswith(EVIDENCE):
            if value is not None:
                evidence[key.removeprefix(EVIDENCE)] = value
        elif key not in ("labels", "evidence") and value is not None:
            out[key] = value
    return {**out, "labels": labels, "evidence": evidence}


def record_rows(rows: list[SourceRow], shown: str) -> list[Located]:
    """Every source row as a validated ``RecordRow`` with its line.

    Raises:
        InputError: A row is invalid (every problem is listed; nothing is written).
    """
    problems = Problems()
    out = []
    for line, data in rows:
        try:
            out.append(Located(shown, line, RecordRow.model_validate(_gathered(data))))
        except ValidationError as exc:
            add_validation_problems(exc, shown, line, problems)
    if problems:
        raise InputError(f"cannot read {shown}; nothing was written:", problems.items)
    return out
