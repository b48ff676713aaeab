"""lm-evaluation-harness sample logs (``--log_samples``: ``samples_<task>_<date>.jsonl``)
as records rows, with the log's hashes re-checked against the bank.

lm-eval writes one line per document and filter. Its hashes (``lm_eval.utils.hash_string``
is the hex SHA-256 of the UTF-8 text, ``lm_eval.evaluator``) are:

- ``doc_hash``: of ``json.dumps(doc, indent=2, ensure_ascii=False)``, the document as
  the task loaded it (logged in full beside it);
- ``prompt_hash``: of the first request's context, the text sent to the model (for a chat
  prompt sent to an API model, ``json.dumps`` of its ``role``/``content`` messages);
- ``target_hash``: of ``str(target)`` (not checked: the target is the task's, not the
  bank's).

Each line is checked: its ``doc_hash`` must be the hash of the document it logs, the
document must name a bank item (its ``id`` field, or ``doc_id`` through the id map) whose
prompt it carries (its ``prompt`` field; other field names may be declared), and its
``prompt_hash`` must be the hash of that item's prompt as lm-eval sends it — so the
responses answer the bank's question, verbatim, with no few-shot examples, description or
template around it. A mismatch is refused at its line, naming the hash.

Rows: ``resps[0]`` (the raw generations of the document's one request; ``repeats`` of them)
are the draws 1…K of half ``A`` (unless declared); a document's lines must agree on them.
Each line's metrics are labels: rater id = the metric's name when the log has one filter,
``<filter>/<metric>`` when it has several (or as ``--rater`` declares). A metric is a
value per document, so with more than one repeat it cannot be a draw's label: refused
unless labels are left out. A metric whose value is an object is the rater's rubric
grades of a rubric item: ``{"met": {line: true|false}, "evidence": {line: quote},
"deflected": true|false}`` (a task's ``process_results`` returns it per document; one
value per document too, so with one repeat only). The log records no status, tokens or
latency: a draw is ``ok`` (``empty`` for blank text) and the rest is unknown. The
candidate is declared (the samples file does not name the model).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.hashing import sha256_text
from generator.store.bank import Bank
from generator.store.jsonl import Bounds, Problems
from generator.store.regular import read_regular
from generator.store.strict import StrictError, parse_json

from .rows import RecordRow
from .sources import (
    Collected,
    Declared,
    Where,
    bank_text,
    item_for,
    label_text,
    make_row,
    prompt_hashes,
    prompt_turns,
    shown_id,
)

HASHES = ("doc_hash", "prompt_hash")


@dataclass(frozen=True)
class LmEvalOptions:
    """How to read the documents of a task (defaults: a task built from the bank)."""

    labels: bool = True
    """Keep the metrics as labels (False: responses only; needed with repeats > 1)."""
    id_field: str = "id"
    """The doc field holding the bank item id (unless an id map declares ``doc_id``s)."""
    prompt_field: str = "prompt"
    """The doc field holding the prompt (text, or role/content messages)."""


@dataclass
class _Doc:
    """What the lines of one document carry: its item, generations and labels."""

    item: str
    where: Where
    resps: list[str]
    labels: dict[str, str] = field(default_factory=dict)
    rubric: dict[str, Any] = field(default_factory=dict)
    """Rater id → rubric grades (a metric whose value is an object)."""


def read_lm_eval_samples(
    paths: Sequence[Path],
    bank: Bank,
    declared: Declared,
    candidate: str,
    options: LmEvalOptions | None = None,
    bounds: Bounds | None = None,
) -> list[RecordRow]:
    """Rows of every document × repeat of the sample logs at ``paths``.

    Args:
        paths: ``samples_*.jsonl`` files written by ``lm_eval --log_samples``.
        bank: The bank (with held-out texts when the logs have held-out items).
        declared: The id map (``doc_id`` → item), rater names and half.
        candidate: The candidate's API string.
        options: Labels or not, and the doc fields holding the item id and the prompt.
        bounds: Reader bounds (file size, line length, line count).

    Raises:
        InputError: Any line that cannot be mapped honestly (every one is listed).
    """
    bounds, options = bounds or Bounds(), options or LmEvalOptions()
    problems = Problems()
    collected = Collected()
    for path in paths:
        docs = _read_docs(path, bank, declared, options, bounds, problems)
        for doc in docs.values():
            for draw, text in enumerate(doc.resps, start=1):
                row = _row(doc, draw, text, candidate, declared, problems)
                if row is not None:
                    collected.add(row, doc.where, problems)
    return collected.result(problems, "the lm-evaluation-harness samples")


def _row(
    doc: _Doc, draw: int, text: str, candidate: str, declared: Declared, problems: Problems
) -> RecordRow | None:
    data: dict[str, Any] = {
        "candidate": candidate,
        "item": doc.item,
        "half": declared.half,
        "draw": draw,
        "response": text,
        "status": "ok" if text.strip() else "empty",
        "labels": doc.labels,
    }
    if doc.rubric:
        data["rubric"] = doc.rubric
    return make_row(data, doc.where, problems)


def _lines(path: Path, bounds: Bounds, problems: Problems) -> list[tuple[int, dict[str, Any]]]:
    """The file's JSON objects with their line numbers (bad lines reported)."""
    shown = str(path)
    raw = read_regular(path, shown, problems, bounds.max_file_bytes)
    if raw is None:
        return []
    found: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        if len(line) > bounds.max_line_bytes or number > bounds.max_records:
            rule = "line-size" if len(line) > bounds.max_line_bytes else "records"
            problems.add(shown, number, rule, "over the reader's bound (raise it with --limit)")
            continue
        try:
            data = parse_json(line)
        except StrictError as exc:
            problems.add(shown, number, exc.rule, exc.message)
            continue
        if not isinstance(data, dict):
            problems.add(shown, number, "lm-eval-line", "a samples line is a JSON object")
            continue
        found.append((number, data))
    return found


def _read_docs(
    path: Path,
    bank: Bank,
    declared: Declared,
    options: LmEvalOptions,
    bounds: Bounds,
    problems: Problems,
) -> dict[int, _Doc]:
    """Each document of the file, its lines merged (every problem reported)."""
    lines = _lines(path, bounds, problems)
    filters = {str(data.get("filter")) for _, data in lines}
    docs: dict[int, _Doc] = {}
    for number, data in lines:
        where = Where(str(path), number, f"doc_id {shown_id(data.get('doc_id'))}")
        line = _checked_line(data, bank, declared, options, where, problems)
        if line is None:
            continue
        doc_id, item, resps = line
        doc = docs.setdefault(doc_id, _Doc(item, where, resps))
        if doc.resps != resps or doc.item != item:
            first = doc.where.line
            message = f"{where.what}: the generations differ from those of line {first}"
            problems.add(where.path, number, "lm-eval-resps", message)
            continue
        if options.labels:
            _add_labels(doc, data, len(filters) > 1, declared, where, problems)
    return docs


def _checked_line(
    data: dict[str, Any],
    bank: Bank,
    declared: Declared,
    options: LmEvalOptions,
    where: Where,
    problems: Problems,
) -> tuple[int, str, list[str]] | None:
    """(doc_id, item, generations) of a line whose hashes hold, or None (reported)."""
    doc_id, doc = data.get("doc_id"), data.get("doc")
    if not isinstance(doc_id, int) or isinstance(doc_id, bool) or not isinstance(doc, dict):
        problems.add(where.path, where.line, "lm-eval-line", "a line needs doc_id and doc")
        return None
    missing = [name for name in HASHES if not isinstance(data.get(name), str)]
    if missing:
        message = f"{where.what}: no {' or '.join(missing)} (logs of lm-eval 0.4 have both)"
        problems.add(where.path, where.line, "lm-eval-hash", message)
        return None
    dumped = json.dumps(doc, indent=2, ensure_ascii=False)
    if sha256_text(dumped) != data["doc_hash"]:
        message = f"{where.what}: doc_hash is not the hash of the doc logged beside it"
        problems.add(
            where.path, where.line, "lm-eval-doc-hash", message, "use the log as lm-eval wrote it"
        )
        return None
    source = str(doc_id) if declared.ids is not None else doc.get(options.id_field)
    if not isinstance(source, str):
        field_name = shown_id(options.id_field)
        message = f"{where.what}: the doc has no text {field_name} field naming its bank item"
        problems.add(
            where.path, where.line, "import-id", message, "declare the items with --ids FILE"
        )
        return None
    item = item_for(source, declared, bank, where, problems)
    prompt = doc.get(options.prompt_field)
    if item is None or not _same_prompt(data, prompt, item, bank, where, problems):
        return None
    resps = _generations(data.get("resps"))
    if resps is None:
        message = (
            f"{where.what}: resps is not one request's generated texts (a generate_until task)"
        )
        problems.add(where.path, where.line, "lm-eval-resps", message)
        return None
    return doc_id, item, resps


def _same_prompt(
    data: dict[str, Any],
    prompt: Any,
    item: str,
    bank: Bank,
    where: Where,
    problems: Problems,
) -> bool:
    """True when the doc carries the item's prompt and prompt_hash is its hash as sent."""
    full = bank_text(item, bank, where, problems)
    if full is None:
        return False
    carried = [("user", prompt)] if isinstance(prompt, str) else _turns(prompt)
    if carried != prompt_turns(full):
        message = f"{where.what}: the doc's prompt field is not the prompt of bank item {item}"
        problems.add(
            where.path, where.line, "lm-eval-doc", message, "build the task's docs from the bank"
        )
        return False
    if data["prompt_hash"] not in prompt_hashes(full):
        message = (
            f"{where.what}: prompt_hash is not the hash of bank item {item}'s prompt: the "
            "model was sent other text (few-shot examples, a description or a template)"
        )
        fix = "run zero-shot with doc_to_text giving the prompt verbatim"
        problems.add(where.path, where.line, "lm-eval-prompt-hash", message, fix)
        return False
    return True


def _turns(prompt: Any) -> list[tuple[str, str]] | None:
    """A doc's chat prompt (a list of role/content objects) as turns, or None."""
    if not isinstance(prompt, list):
        return None
    turns = [(m.get("role"), m.get("content")) for m in prompt if isinstance(m, dict)]
    return turns if len(turns) == len(prompt) else None  # type: ignore[return-value]


def _generations(resps: Any) -> list[str] | None:
    """``resps`` of a document with one generate request: its K texts, or None."""
    if not isinstance(resps, list) or len(resps) != 1 or not isinstance(resps[0], list):
        return None
    texts = resps[0]
    if not texts or not all(isinstance(text, str) for text in texts):
        return None
    return list(texts)


def _add_labels(
    doc: _Doc,
    data: dict[str, Any],
    several: bool,
    declared: Declared,
    where: Where,
    problems: Problems,
) -> None:
    """The line's metrics as labels of its document (reported when they cannot be)."""
    metrics = data.get("metrics")
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        problems.add(
            where.path,
            where.line,
            "lm-eval-metrics",
            f"{where.what}: metrics is not a list of names",
        )
        return
    if metrics and len(doc.resps) > 1:
        message = (
            f"{where.what}: {len(doc.resps)} repeats share one value per metric, so a metric "
            "is not any one draw's label"
        )
        problems.add(where.path, where.line, "lm-eval-repeats", message, "import with --no-labels")
        return
    for metric in metrics:
        name = f"{data.get('filter')}/{metric}" if several else metric
        value = data.get(metric)
        rater = declared.raters.get(name, name)
        second = rater in doc.labels or rater in doc.rubric
        if isinstance(value, dict) and not second:
            doc.rubric[rater] = value  # rubric grades (the row validates their shape)
            continue
        label = label_text(value)
        if label is None or second:
            why = (
                f"gives rater {rater!r} a second label"
                if second
                else "is not one finite value (nor rubric grades: an object)"
            )
            problems.add(
                where.path, where.line, "lm-eval-metrics", f"{where.what}: metric {name!r} {why}"
            )
            continue
        doc.labels[rater] = label
