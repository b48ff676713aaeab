"""``probepress import records``: the flat records format (CSV or JSONL) into rows.

A JSONL line is a ``RecordRow`` as JSON (``labels``, ``evidence`` and ``rubric`` objects
by rater). A CSV row has the scalar fields as columns (``candidate``, ``item``, ``half``,
``draw``, ``response``, ``status``, ``attempts`` …; an empty cell is a value not recorded)
and one ``label:<rater>`` column per rater, with an optional ``evidence:<rater>`` column;
the grader's rubric grades of a rubric item are ``met:<rater>:<line>`` (yes/no) and
``quote:<rater>:<line>`` columns per rubric line and a ``deflected:<rater>`` column (the
line id is what follows the last colon: line ids have none). A JSONL line may use the
same prefixed keys. Every invalid row is reported at its line.
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
MET = "met:"
QUOTE = "quote:"
DEFLECTED = "deflected:"
GATHERED = ("labels", "evidence", "rubric")


def _rubric_key(key: str, value: Any, rubric: dict[str, Any]) -> bool:
    """Put a ``met:``/``quote:``/``deflected:`` key's value into ``rubric``; False when
    ``key`` is not one of them (a malformed one is left for the model to refuse)."""
    if key.startswith(DEFLECTED):
        if value is not None:
            grade = rubric.setdefault(key.removeprefix(DEFLECTED), {})
            if isinstance(grade, dict):
                grade["deflected"] = value
        return True
    for prefix, part in ((MET, "met"), (QUOTE, "evidence")):
        if key.startswith(prefix):
            rater, sep, line = key.removeprefix(prefix).rpartition(":")
            if not sep or not rater or not line:
                return False
            if value is not None:
                grade = rubric.setdefault(rater, {})
                lines = grade.setdefault(part, {}) if isinstance(grade, dict) else None
                if isinstance(lines, dict):  # else the model refuses what the line gave
                    lines[line] = value
            return True
    return False


def _copied(value: Any) -> Any:
    """A JSONL grade object copied two levels deep (so prefixed keys can add to it)."""
    if not isinstance(value, dict):
        return value
    return {k: dict(v) if isinstance(v, dict) else v for k, v in value.items()}


def _gathered(data: dict[str, Any]) -> dict[str, Any]:
    """``label:<rater>``/``evidence:<rater>`` keys gathered into ``labels``/``evidence``,
    ``met:``/``quote:``/``deflected:`` keys into ``rubric``."""
    out: dict[str, Any] = {}
    labels = dict(data.get("labels") or {})
    evidence = dict(data.get("evidence") or {})
    given = data.get("rubric") or {}
    if not isinstance(given, dict):
        return {**data, "labels": labels, "evidence": evidence}  # the model refuses it
    rubric = {k: _copied(v) for k, v in given.items()}
    for key, value in data.items():
        if key.startswith(LABEL):
            if value is not None:
                labels[key.removeprefix(LABEL)] = value
        elif key.startswith(EVIDENCE):
            if value is not None:
                evidence[key.removeprefix(EVIDENCE)] = value
        elif _rubric_key(key, value, rubric):
            continue
        elif key not in GATHERED and value is not None:
            out[key] = value
    gathered = {**out, "labels": labels, "evidence": evidence}
    return {**gathered, "rubric": rubric} if rubric else gathered


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
