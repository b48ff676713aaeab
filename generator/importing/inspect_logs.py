"""Inspect AI eval logs (``.eval`` and ``.json``) as records rows, through ``inspect_ai``'s
own log API (``inspect_ai.log.read_eval_log``), so every log version Inspect reads is read
the way Inspect reads it. ``inspect_ai`` is the optional extra ``probepress[inspect]``; it
is imported only when a log is read.

How a log maps to rows (one per sample × epoch):

- candidate: the eval's model (``provider/model`` as Inspect names it) unless declared;
  a sample some of whose requests to it another model served (a fallback) is refused;
- item: the sample id, or the item the id map declares for it; the sample's input must be
  the bank item's prompt, turn for turn (the answer must be to the bank's question);
- draw: the epoch; half: ``A`` unless declared;
- response: the final output's completion; ``finish_reason`` its stop reason;
- status: an error that halted the sample is a lost draw (``provider_error``, the error's
  class kept); a time or working limit is a ``timeout``; another limit keeps the output
  with ``finish_reason`` ``<type>_limit``, and is refused when it left no output; a
  ``content_filter`` stop is ``content_filter``; an empty completion is ``empty``;
- attempts: 1 plus the sample's retried errors;
- tokens: the candidate model's usage in the sample, when recorded; latency: the final
  generation's time, when it was the only generation and there were no retries;
- labels: each scorer's value (scorer name → rater id, as declared or the name itself);
  a lost draw keeps none (its scores rate an output that never came);
- rubric grades: a scorer whose value is a dict grades a rubric item line by line — the
  dict maps each rubric line id to met or not (``true``/``false``, ``1``/``0`` or
  ``"yes"``/``"no"``); the score's ``metadata`` gives ``deflected`` (bool, required) and
  ``evidence`` (line id → quote, public items only). Inspect keeps a score's value a
  flat dict of scalars, so the quotes and the flag ride in its metadata.

A log whose status is not ``success`` is refused: its samples may be incomplete.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.errors import UsageError
from generator.store.bank import Bank
from generator.store.jsonl import Bounds, Problems
from generator.store.regular import open_regular
from generator.words import counted

from .rows import RecordRow
from .sources import (
    Collected,
    Declared,
    Where,
    bank_text,
    item_for,
    label_text,
    make_row,
    prompt_turns,
    shown_id,
)

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

MISSING = (
    "reading Inspect AI logs needs the inspect_ai package, which is not installed; "
    "install the extra: pip install 'probepress[inspect]'"
)
TIMEOUT_LIMITS = ("time", "working")
_CALL = re.compile(r"^([A-Za-z_][\w.]*)\(")
_RAISED = re.compile(r"^([A-Za-z_][\w.]*)(?::|$)")


def _log_api() -> Any:
    """``inspect_ai.log``, or a ``UsageError`` saying how to install it."""
    try:
        import inspect_ai.log as api
    except ImportError:
        raise UsageError(MISSING) from None
    return api


def read_inspect_logs(
    paths: Sequence[Path],
    bank: Bank,
    declared: Declared,
    candidate: str | None = None,
    bounds: Bounds | None = None,
) -> list[RecordRow]:
    """Rows of every sample × epoch of the logs at ``paths``.

    Args:
        paths: Inspect AI logs (``.eval`` or ``.json``).
        bank: The bank (with held-out texts when the logs have held-out items).
        declared: The id map, rater names and half.
        candidate: The candidate's API string, if not the eval's model.
        bounds: Reader bounds (a log larger than ``max_file_bytes`` is refused).

    Raises:
        UsageError: ``inspect_ai`` is not installed.
        InputError: Any sample that cannot be mapped honestly (every one is listed).
    """
    api = _log_api()
    bounds = bounds or Bounds()
    problems = Problems()
    collected = Collected()
    for path in paths:
        log = _read(api, path, bounds, problems)
        if log is None:
            continue
        who = candidate or log.eval.model
        for sample in log.samples or []:
            where = Where(str(path), None, f"sample {shown_id(sample.id)} epoch {sample.epoch}")
            row = _row(sample, log, who, bank, declared, where, problems)
            if row is not None:
                collected.add(row, where, problems)
    return collected.result(problems, "the Inspect AI logs")


def _read(api: Any, path: Path, bounds: Bounds, problems: Problems) -> EvalLog | None:
    """The log at ``path``, or None (reported) when it cannot be used whole."""
    shown = str(path)
    if path.suffix not in (".eval", ".json"):
        problems.add(shown, None, "inspect-file", "an Inspect AI log ends in .eval or .json")
        return None
    # Opened the way every probepress reader opens a file: regular, no symlink, bounded.
    handle = open_regular(path, shown, problems, bounds.max_file_bytes)
    if handle is None:
        return None
    try:
        with handle:
            log: EvalLog = api.read_eval_log(
                handle, resolve_attachments=True, format=path.suffix[1:]
            )
    except OSError:
        raise
    except Exception as exc:  # inspect_ai raises what its parsers raise
        # The exception's text is not shown: a parser's message may quote the log's text.
        message = f"inspect_ai cannot read this log ({type(exc).__name__})"
        problems.add(shown, None, "inspect-read", message, "open it with `inspect view`")
        return None
    if log.status != "success":
        message = f"the eval's status is {log.status!r}, not 'success': samples may be missing"
        fix = "finish the eval (`inspect eval-retry LOG`) and import the finished log"
        problems.add(shown, None, "inspect-status", message, fix)
        return None
    if not log.samples:
        problems.add(
            shown, None, "inspect-samples", "the log has no samples (run with samples logged)"
        )
        return None
    return log


def _row(
    sample: EvalSample,
    log: EvalLog,
    candidate: str,
    bank: Bank,
    declared: Declared,
    where: Where,
    problems: Problems,
) -> RecordRow | None:
    """One sample × epoch as a row, or None (reported)."""
    item = item_for(str(sample.id), declared, bank, where, problems)
    if item is None or not _same_prompt(sample, item, bank, where, problems):
        return None
    if not _served_by(sample, log.eval.model, where, problems):
        return None
    outcome = _outcome(sample, where, problems)
    if outcome is None:
        return None
    retries = len(sample.error_retries or [])
    data: dict[str, Any] = {
        "candidate": candidate,
        "item": item,
        "half": declared.half,
        "draw": sample.epoch,
        "attempts": 1 + retries,
        **outcome,
        **_usage(sample, log.eval.model, retries),
    }
    if retries:
        data["retried_after"] = "provider_error"
    if data["status"] not in ("provider_error", "timeout"):
        scores = _labels(sample, declared, where, problems)
        if scores is None:
            return None
        data["labels"] = scores[0]
        if scores[1]:
            data["rubric"] = scores[1]
    return make_row(data, where, problems)


def _same_prompt(
    sample: EvalSample, item: str, bank: Bank, where: Where, problems: Problems
) -> bool:
    """True when the sample's input is the bank item's prompt, turn for turn."""
    full = bank_text(item, bank, where, problems)
    if full is None:
        return False
    if isinstance(sample.input, str):
        turns = [("user", sample.input)]
    else:
        turns = [(m.role, m.text) for m in sample.input]
    if turns == prompt_turns(full):
        return True
    message = f"{where.what}: the sample's input is not the prompt of bank item {item}"
    fix = "run the bank's prompts verbatim (or map the id to the item whose prompt it is)"
    problems.add(where.path, where.line, "inspect-prompt", message, fix)
    return False


def _served_by(sample: EvalSample, model: str, where: Where, problems: Problems) -> bool:
    """True unless another model served some of the eval model's requests (a fallback)."""
    served = sorted({f.fallback_model for f in sample.model_fallbacks or [] if f.model == model})
    if not served:
        return True
    message = (
        f"{where.what}: {counted(len(served), 'other model')} served requests made to {model} "
        "(a fallback): the answer is not the candidate's"
    )
    problems.add(where.path, where.line, "inspect-fallback", message, "rerun without fallbacks")
    return False


def _outcome(sample: EvalSample, where: Where, problems: Problems) -> dict[str, Any] | None:
    """Status, response, error class and finish reason of the sample, or None (reported)."""
    output = sample.output
    finish: str | None = output.choices[0].stop_reason if output.choices else None
    if sample.error is not None:
        return {"status": "provider_error", "error_class": _error_class(sample.error)}
    if sample.limit is not None and sample.limit.type in TIMEOUT_LIMITS:
        return {"status": "timeout", "error_class": f"inspect {sample.limit.type} limit"}
    text = output.completion
    if sample.limit is not None:
        if not output.choices:
            message = (
                f"{where.what}: a {sample.limit.type} limit halted the sample before it had "
                "an output; a draw's response cannot be told"
            )
            fix = "rerun the sample without the limit (or raise it)"
            problems.add(where.path, where.line, "inspect-limit", message, fix)
            return None
        finish = f"{sample.limit.type}_limit"
    found: dict[str, Any] = {"status": _status(finish, text), "response": text}
    if finish is not None:
        found["finish_reason"] = finish
    return found


def _status(finish: str | None, text: str) -> str:
    """The final attempt's status from a stop reason and the completion."""
    if finish == "content_filter":
        return "content_filter"
    return "ok" if text.strip() else "empty"


def _error_class(error: Any) -> str:
    """The class of the error that halted a sample (never its text: it may quote input)."""
    match = _CALL.match(error.message or "")
    if match is None:
        last = (error.traceback or "").strip().splitlines()[-1:] or [""]
        match = _RAISED.match(last[0])
    return match.group(1)[:200] if match else "error"


def _usage(sample: EvalSample, model: str, retries: int) -> dict[str, Any]:
    """Token counts and latency when the log recorded them (else left out: unknown)."""
    found: dict[str, Any] = {}
    usage = sample.model_usage.get(model) or sample.output.usage
    if usage is not None:
        found["input_tokens"] = usage.input_tokens
        found["output_tokens"] = usage.output_tokens
    single = sample.turn_count in (None, 1)
    if sample.output.time is not None and single and not retries:
        found["latency_ms"] = round(sample.output.time * 1000)
    return found


def _grade(score: Any) -> dict[str, Any]:
    """A dict-valued score as a rubric grade (``RowGrade``'s shape; the row validates it)."""
    metadata = score.metadata if isinstance(score.metadata, dict) else {}
    grade: dict[str, Any] = {"met": dict(score.value)}
    for key in ("evidence", "deflected"):
        if key in metadata:
            grade[key] = metadata[key]
    return grade


def _labels(
    sample: EvalSample, declared: Declared, where: Where, problems: Problems
) -> tuple[dict[str, str], dict[str, Any]] | None:
    """Each scorer's value under its rater id: a label, or (a dict) rubric grades; None
    (reported) when a value is neither."""
    labels: dict[str, str] = {}
    grades: dict[str, Any] = {}
    for name, score in sorted((sample.scores or {}).items()):
        rater = declared.raters.get(name, name)
        if rater in labels or rater in grades:
            message = f"{where.what}: two scorers are both rater {rater!r}"
            problems.add(where.path, where.line, "inspect-score", message, "map them apart")
            return None
        if isinstance(score.value, dict):
            grades[rater] = _grade(score)
            continue
        label = label_text(score.value)
        if label is None:
            message = (
                f"{where.what}: scorer {name!r} gave a {type(score.value).__name__}, not one "
                "label (text, number or bool) or rubric grades (a dict)"
            )
            problems.add(where.path, where.line, "inspect-score", message)
            return None
        labels[rater] = label
    return labels, grades


__all__ = ["MISSING", "read_inspect_logs"]
