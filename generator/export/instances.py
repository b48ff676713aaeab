"""The instance records of one Every Eval Ever run: one per draw of a public item.

A draw's score is 1 when it failed and 0 when it passed, so the per-item mean of the
instance scores is the per-item fail fraction the rates average (a rate is the mean over
items of that fraction, not the mean over draws). Draws that do not count in the rates —
lost to provider failures, or refused by the grader and left undecided by the panel — are
not instances; the aggregate's counts include them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.errors import InputError
from generator.export.run import SCHEMA_VERSION, RunContext
from generator.figures.tally import decider
from generator.hashing import sha256_bytes
from generator.models.bank import BankItem
from generator.models.raters import ModelRater
from generator.models.records import Draw
from generator.scoring import adjudication_seat
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.rowtypes import DrawKey, record_key


def prompt_text(item: BankItem) -> str:
    """The item's prompt as one text (chat messages as ``role: content`` paragraphs)."""
    if isinstance(item.prompt, str):
        return item.prompt
    return "\n\n".join(f"{m.role}: {m.content}" for m in item.prompt)


def _draws(ctx: RunContext) -> dict[DrawKey, Draw]:
    """The bundle's draws of public items, read strictly (its rows keep no text)."""
    path = ctx.bundle.directory / "draws.jsonl"
    problems = Problems()
    shown = ctx.bundle.shown(ctx.data.layout, "draws.jsonl")
    out = {
        record_key(d): d
        for _, d in iter_jsonl(path, Draw, shown, problems, Bounds())
        if d.item in ctx.items
    }
    if problems:
        raise InputError(f"{shown}: cannot be read for the export:", problems.items)
    return out


def instance_records(ctx: RunContext) -> Iterator[dict[str, Any]]:
    """The instance records of ``ctx``'s candidate, in verdict order."""
    draws = _draws(ctx)
    decide = decider(ctx.bundle, ctx.data.volume)  # the rule the rates count by
    reference: str = ctx.data.volume.scoring_or_default().reference
    seat = adjudication_seat(ctx.data.volume)
    if reference == "adjudication" and seat:
        reference = f"adjudication by {seat[0]}"
    for verdict in ctx.bundle.verdicts:
        item = ctx.items.get(verdict.key.item)
        outcome = decide.outcome(verdict)
        draw = draws.get(verdict.key)
        if item is None or outcome is None or draw is None or item.rubric is not None:
            continue  # held out, or not counted in the rates (rubric items never are)
        how = f"reference rater set: {reference}" if decide.by_reference(verdict) else None
        yield _record(ctx, item, draw, verdict.verdict, outcome, how)


def _record(
    ctx: RunContext, item: BankItem, draw: Draw, verdict: str, outcome: str, how: str | None
) -> dict[str, Any]:
    raw, reference = prompt_text(item), [item.pass_criterion]
    if how is None:
        grader = ctx.bundle.manifest.jury.grader
        judged = "llm_judge" if isinstance(grader, ModelRater) else "human_grader"
        how = "mechanical check (code)" if item.tier == 0 else judged
        if verdict == "grader_refused":
            how = "panel majority (the grader refused)"
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": ctx.evaluation_id,
        "model_id": ctx.model_id,
        "evaluation_name": ctx.result.label,
        "evaluation_result_id": ctx.result.id,
        "sample_id": item.id,
        "sample_hash": sha256_bytes((raw + "\n" + "\n".join(reference)).encode("utf-8")),
        "interaction_type": "single_turn",
        "input": {"raw": raw, "reference": reference},
        "output": {"raw": [draw.response] if draw.response is not None else []},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": outcome,
                "extraction_method": how,
                "is_terminal": True,
            }
        ],
        "evaluation": {"score": 1.0 if outcome == "fail" else 0.0, "is_correct": outcome == "pass"},
        "token_usage": _usage(draw),
        "performance": {"latency_ms": draw.latency_ms},
        "error": None if draw.status == "ok" else draw.status,
        "metadata": {
            "category": item.category,
            "tier": str(item.tier),
            "core": "true" if item.core else "false",
            "half": draw.half,
            "draw": str(draw.draw),
            "attempts": str(len(draw.attempts)),
            "score_meaning": "1 = the draw failed the item's pass criterion",
            # The record quotes the public item: it carries the bank's canary GUID too.
            **({"canary": item.canary} if item.canary else {}),
        },
    }


def _usage(draw: Draw) -> dict[str, int] | None:
    if draw.usage is None:
        return None
    return {
        "input_tokens": draw.usage.input_tokens,
        "output_tokens": draw.usage.output_tokens,
        "total_tokens": draw.usage.input_tokens + draw.usage.output_tokens,
    }
