"""Small roots for the import tests: ``init``, a filled-in volume, the CLI runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from generator.cli import main

EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def run(root: Path, *args: str) -> Result:
    """``probepress --root ROOT ARGS`` (private store ROOT/.private)."""
    return CliRunner().invoke(
        main, ["--root", str(root), "--private", str(root / ".private"), *args]
    )


def init(root: Path, *categories: str) -> Result:
    """``probepress init ROOT`` with ``categories``."""
    args = [arg for c in categories for arg in ("--category", c)]
    result = CliRunner().invoke(
        main, ["init", str(root), "--name", "Test bank", "--released", "2024-01-02", *args]
    )
    assert result.exit_code == 0, result.output
    return result


def fill_volume(
    root: Path,
    *,
    grader: tuple[str, str],
    panel: list[tuple[str, str]],
    candidates: list[tuple[str, str]],
    fraction: str = "1",
    halves: list[str] | None = None,
    draws: int = 1,
    probe: str = "case-1",
    edit: Callable[[dict[str, Any]], None] | None = None,
) -> Path:
    """Fill in the skeleton ``bundles/vol-001/volume.yaml`` (then ``edit`` it, when given)
    and fix its pre-registration."""
    path = root / "bundles" / "vol-001" / "volume.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
    data.update(
        title="Imported volume",
        publication_date="2024-06-01",
        window={"start": "2024-03-01", "end": "2024-05-31"},
    )
    data["protocol"].update(
        halves=halves or ["A"],
        draws_per_half=draws,
        temperature=0,
        max_output_tokens=512,
        system_prompt_sha256=EMPTY_SHA,
    )
    data["thresholds"].update(
        circuit_breaker_error_share="0.1",
        ac1_floor="0.6",
        panel_sample_fraction=fraction,
        sample_seed=7,
        # A test bank of a few items declares its own small minimums (init writes 30).
        min_category_items=1,
        min_volume_items=1,
    )
    data["jury"]["grader"] = {"api": grader[0], "family": grader[1]}
    data["jury"]["panel"] = [{"api": a, "family": f} for a, f in panel]
    data["jury"]["qualification"]["probes"] = [{"id": probe, "expected": "fail"}]
    data["preregistration"]["registered"] = "2024-03-01"
    data["candidates"] = [
        {"api": api, "display_name": name, "role": "candidate", "run_date": "2024-03-15"}
        for api, name in candidates
    ]
    if edit is not None:
        edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    result = run(root, "prereg", "vol-001", "--write")
    assert result.exit_code == 0, result.output
    return path


def manifest(path: Path, candidates: list[str], judges: list[str]) -> Path:
    """A manifest inputs file for ``candidates`` and the seated ``judges``."""
    endpoint = {"gateway": "direct", "serving_provider": "self-hosted", "no_training": True}
    data = {
        "schema_version": 1,
        "runner": {"name": "test-runner", "version": "1.0"},
        "candidates": {
            c: {
                "family": "acme",
                "endpoint": dict(endpoint),
                "run": {"started": "2024-03-15", "finished": "2024-03-16"},
            }
            for c in candidates
        },
        "jury_endpoints": {j: dict(endpoint) for j in judges},
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    return path


def edit_volume(root: Path, fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Change ``bundles/vol-001/volume.yaml`` through ``fn(doc)`` and fix its
    pre-registration again (as a maintainer does before any run); return the document."""
    path = root / "bundles" / "vol-001" / "volume.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    result = run(root, "prereg", "vol-001", "--write")
    assert result.exit_code == 0, result.output
    return data


def human_jury(panel: list[str], adjudicator: str, reason: str, scoring: dict[str, Any]) -> Any:
    """An edit for ``edit_volume``: human annotators ``panel`` as the panel, the human
    ``adjudicator`` adjudicating all of them, qualification not run for ``reason``, and
    ``scoring`` (schema version 3: the version with human raters)."""

    def edit(doc: dict[str, Any]) -> None:
        doc["schema_version"] = 3
        doc["jury"]["panel"] = [{"kind": "human", "id": h} for h in panel]
        doc["jury"]["adjudication"] = {
            "rater": {"kind": "human", "id": adjudicator},
            "adjudicates": list(panel),
        }
        doc["jury"]["qualification"] = {"status": "not_run", "reason": reason}
        doc["scoring"] = scoring

    return edit
