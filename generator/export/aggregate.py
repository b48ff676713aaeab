"""The aggregate record of one Every Eval Ever evaluation run (one candidate)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from generator import __version__
from generator.calibration.check import UNVALIDATED
from generator.export.run import SCHEMA_VERSION, Run
from generator.figures.calibration import STATUS_KEY
from generator.hashing import sha256_bytes
from generator.models.base import version_slug
from generator.models.figures import Figure
from generator.store.paths import BUNDLES
from generator.words import counted


def aggregate_record(run: Run, samples: bytes, rows: int) -> dict[str, Any]:
    """The aggregate JSON of ``run``; ``samples`` are the bytes of its instance file."""
    data, manifest = run.data, run.bundle.manifest
    heldout = sum(
        1 for m in data.bank.active_items(data.volume.bank_version) if data.bank.is_heldout(m.id)
    )
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": run.evaluation_id,
        "retrieved_timestamp": run.retrieved,
        "evaluation_timestamp": _day(manifest.run.finished),
        "source_metadata": {
            "source_name": f"{data.bank.manifest.name}: {data.volume.title}",
            "source_type": "evaluation_run",
            "source_organization_name": run.source.organization,
            "evaluator_relationship": run.source.relationship,
            "additional_details": {
                "volume": data.id,
                "publication_date": data.volume.publication_date.isoformat(),
                "demonstration_data": _flag(data.volume.demonstration),
                "published_with": f"probepress {__version__}",
                "preregistration_sha256": data.volume.preregistration.sha256,
            },
        },
        "eval_library": {
            "name": manifest.runner.name,
            "version": manifest.runner.version,
            "additional_details": {"records_published_with": f"probepress {__version__}"},
        },
        "model_info": _model_info(run),
        "evaluation_results": [_result(run, f) for f in run.rates()],
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": run.samples_path,
            "hash_algorithm": "sha256",
            "checksum": sha256_bytes(samples),
            "total_rows": rows,
            "additional_details": {
                "instances": "draws of public items only",
                "held_out_items": f"{counted(heldout, 'held-out item')} count in the rates; "
                "their draws are never exported",
            },
        },
    }


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _model_info(run: Run) -> dict[str, Any]:
    manifest = run.bundle.manifest
    details = {
        # Not recorded by a bundle: unknown, never guessed.
        "deployment_type": "unknown",
        "model_availability": "unknown",
        "family": manifest.candidate.family,
        "role": manifest.candidate.role,
        "serving_provider": manifest.endpoint.serving_provider,
        "run_started": _day(manifest.run.started),
        "run_finished": _day(manifest.run.finished),
        "run_date": _day(run.ref.run_date),
        "bundle": f"{BUNDLES}/{run.data.id}/{run.slug}",
    }
    return {
        "name": manifest.candidate.display_name,
        "id": manifest.candidate.api,
        "developer": manifest.candidate.family,
        "inference_platform": manifest.endpoint.gateway,
        "additional_details": details,
    }


def _number(text: str) -> float:
    """A registered decimal string as a JSON number (the registry keeps the exact text)."""
    return float(Decimal(text))


def _judge_status(run: Run, figure: Figure) -> dict[str, str]:
    """A judged rate's calibration status and why (DESIGN §12): ``judge_validation`` is
    ``judge-unvalidated`` or ``judge-calibrated``; nothing for a rate no model judge
    decides. Every Eval Ever holds it as a string in ``metric_config.additional_details``
    (its ``llm_scoring`` block needs the judge prompt, which probepress does not hold)."""
    status = figure.detail.get(STATUS_KEY)
    if not isinstance(status, str):
        return {}
    draws = run.registered.get(f"{run.data.id}/calibration/draws")
    statement = draws.detail.get("statement") if draws is not None else None
    out = {"judge_validation": status}
    if isinstance(statement, str):
        out["judge_validation_statement"] = statement
    return out


def _result(run: Run, figure: Figure) -> dict[str, Any]:
    """One registered rate as an evaluation result (a judge-unvalidated rate says so in
    its name too, where every reader of the record sees it)."""
    data = run.data
    judge = _judge_status(run, figure)
    name = figure.label
    if judge.get("judge_validation") == UNVALIDATED:
        name = f"{name} [{UNVALIDATED}]"
    details = {
        "figure_id": figure.id,
        "value_text": figure.value,
        "method": figure.method,
        **{k: str(v) for k, v in sorted(figure.detail.items()) if not isinstance(v, list)},
    }
    uncertainty: dict[str, Any] = {}
    narrow, wide = figure.intervals.get("narrow"), figure.intervals.get("wide")
    if narrow is not None:
        uncertainty["confidence_interval"] = {
            "lower": _number(narrow.lo),
            "upper": _number(narrow.hi),
            "confidence_level": _number(narrow.confidence),
            "method": f"{narrow.method} (narrow: the bank is fixed, only draws vary)",
        }
    if wide is not None:
        details |= {
            "wide_interval_lower": wide.lo,
            "wide_interval_upper": wide.hi,
            "wide_interval_method": f"{wide.method} (wide: the items are a sample too)",
        }
    return {
        "evaluation_result_id": figure.id,
        "evaluation_name": name,
        "source_data": _source_data(run),
        "metric_config": {
            "evaluation_description": f"{name}: {figure.method}",
            "metric_id": "probepress." + figure.id.removeprefix(f"{data.id}/{run.slug}/"),
            "metric_name": name,
            "metric_kind": "failure_rate",
            "metric_unit": "proportion",
            "lower_is_better": True,
            "score_type": "continuous",
            "min_score": 0,
            "max_score": 1,
            "additional_details": _jury(run) | judge,
        },
        "score_details": {
            "score": _number(figure.value),
            "details": details,
            **({"uncertainty": uncertainty} if uncertainty else {}),
        },
        "generation_config": _generation(run),
    }


def _source_data(run: Run) -> dict[str, Any]:
    """The bank as the dataset: its name, version, public download and licence."""
    manifest, version = run.data.bank.manifest, run.data.volume.bank_version
    return {
        "dataset_name": manifest.name,
        "source_type": "other",
        "additional_details": {
            "bank_version": version,
            "public_items": f"downloads/bank_{version_slug(version)}_public.jsonl",
            "license": manifest.license,
        },
    }


def _generation(run: Run) -> dict[str, Any]:
    """The conditions the candidate ran under."""
    protocol = run.data.volume.protocol_for(run.ref)
    return {
        "generation_args": {
            "temperature": _number(str(protocol.temperature)),
            "max_tokens": protocol.max_output_tokens,
            "max_attempts": protocol.max_attempts,
        },
        "additional_details": {
            "system_prompt_sha256": protocol.system_prompt_sha256,
            "tools": _flag(protocol.tools),
            "halves": ",".join(protocol.halves),
            "draws_per_half": str(protocol.draws_per_half),
        },
    }


def _day(day: dt.date | None) -> str:
    """A date as ISO text, or ``unknown`` when the bundle did not record it."""
    return day.isoformat() if day is not None else "unknown"


def _jury(run: Run) -> dict[str, str]:
    """Who decided the verdicts: Tier 0 by code, Tier 1 by the seated grader."""
    seated = run.bundle.manifest.jury
    return {
        "tier0": "decided by the item's mechanical check (code, no judge)",
        "tier1_grader": seated.grader.key,
        "tier1_grader_family": seated.grader.family or "none (human)",
        "panel": ", ".join(j.key for j in seated.panel),
    }
