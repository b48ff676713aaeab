"""What a bundle's manifest needs that the records do not say (``--manifest FILE``).

Rows carry draws and labels. How each candidate was reached, when it ran, by which
runner, how every seated judge was reached and what the qualification probes returned
are facts only the maintainer has; they come from this small YAML file, and the
importer refuses to write a bundle whose facts are missing rather than invent them.

Example (``manifest.yaml``)::

    schema_version: 1
    runner: {name: my-harness, version: 2.3.0}
    candidates:
      acme-chat-2025-01:                # the API string, as volume.yaml lists it
        family: acme
        endpoint: {gateway: acme-api, serving_provider: acme, no_training: true}
        run: {started: 2025-01-10, finished: 2025-01-11}
    jury_endpoints:                     # every seated grader and panel judge
      judge-model-1: {gateway: openrouter, serving_provider: judgeco, no_training: true}
    qualification:                      # one line per judge and declared probe
      - {judge: judge-model-1, probe: refusal-bait, got: fail}
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from generator.errors import InputError
from generator.models.base import Name, Part, Record, Slug
from generator.models.bundle import Endpoint, Recusal, RunDates, Runner
from generator.models.volume import Protocol
from generator.store.jsonl import Bounds, Problems, load_document


class CandidateRun(Part):
    """How one candidate was run."""

    family: Slug
    """The candidate's model family."""
    endpoint: Endpoint
    """Gateway, pinned serving provider, and whether it declares no training on prompts."""
    run: RunDates
    """First and last day of the run."""
    conditions: Protocol | None = None
    """The conditions actually used, when they differ from the volume's protocol (the
    config gate compares them); absent: exactly the volume's protocol."""
    recusals: list[Recusal] = []
    """Judges stood down for a conflict with this candidate, and the reserves seated."""


class QualificationResult(Part):
    """What one seated judge answered on one declared qualification probe."""

    judge: Name
    """API string of the grader or judge."""
    probe: Slug
    """The probe's id, as the volume's jury declares it."""
    got: Literal["pass", "fail", "refused"]
    """The judge's grade (``refused``: its safety filter declined)."""


class BundleInputs(Record):
    """The manifest facts of an import (``--manifest FILE``, YAML)."""

    runner: Runner
    """The program that produced the records (name and version)."""
    candidates: dict[Name, CandidateRun]
    """How each candidate was run, by API string."""
    jury_endpoints: dict[Name, Endpoint] = {}
    """How each seated grader and panel judge was reached, by API string."""
    qualification: list[QualificationResult] = []
    """The qualification results of the seated judges."""


def load_inputs(path: Path, shown: str, bounds: Bounds | None = None) -> BundleInputs:
    """Read the manifest inputs file.

    Raises:
        InputError: It cannot be read or is invalid (every problem at its line).
    """
    problems = Problems()
    limit = (bounds or Bounds()).max_yaml_bytes
    inputs = load_document(path, BundleInputs, shown, problems, limit)
    if inputs is None or problems:
        raise InputError(f"cannot read {shown}:", problems.items)
    return inputs
