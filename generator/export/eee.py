"""A volume's results as Every Eval Ever records (``probepress export eee``).

Every Eval Ever (schema 0.3.0) keeps one *aggregate* JSON per model and evaluation run and,
beside it, an *instance* JSONL with one record per sample. Here each candidate of a volume
is one evaluation run (a baseline is not a model and is not exported): its aggregate lists
every registered rate of that candidate (value, the narrow interval as the confidence
interval, the wide one in the details), and its
instances are the draws of **public** items only, each with the item, the response, the
reference criterion and the verdict. Held-out items contribute to the aggregates and never
appear as instances: their texts, responses and per-draw verdicts stay private.

Only numbers that hold are exported: the volume is read strictly and every registered
figure of it is recomputed first; a figure that does not recompute refuses the export.
Values nobody recorded are left out, never invented (the grader's prompt, for instance,
is not something probepress holds, so no ``llm_scoring`` block is written).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator import figures
from generator.canonical import dumps, dumps_line, write_bytes
from generator.errors import CheckFailed, Problem
from generator.export.aggregate import aggregate_record
from generator.export.instances import instance_records
from generator.export.run import SCHEMA_VERSION, Run, Source
from generator.models.figures import Figure
from generator.store import Layout, VolumeData, load_volume
from generator.words import counted


@dataclass(frozen=True)
class Exported:
    """What ``export eee`` wrote, relative to the output folder."""

    volume: str
    files: tuple[str, ...]
    instances: int

    def summary(self) -> str:
        """One line for people."""
        runs = len(self.files) // 2
        return (
            f"{self.volume}: {counted(runs, 'evaluation run')} written as Every Eval Ever "
            f"{SCHEMA_VERSION} records, with "
            f"{counted(self.instances, 'public instance record')}"
        )


def export_eee(layout: Layout, volume: str, out: Path, source: Source) -> Exported:
    """Write the Every Eval Ever records of ``volume`` under ``out/data/…``.

    Raises:
        InputError, UsageError: The volume cannot be read.
        CheckFailed: The volume has no registered figures, or one does not recompute.
    """
    data = load_volume(layout, volume, private=False)
    registered = _registered(layout, data)
    planned: dict[str, bytes] = {}  # every file made before the first is written
    count = 0
    for ref in data.volume.ranked():  # a baseline is not a model: it is not exported as one
        run = Run(layout, data, ref, data.bundles[data.slug_of(ref)], registered, source)
        lines = [dumps_line(r) for r in instance_records(run.context())]
        samples = "".join(lines).encode("utf-8")
        planned[run.samples_path] = samples
        planned[run.aggregate_path] = dumps(aggregate_record(run, samples, len(lines))).encode(
            "utf-8"
        )
        count += len(lines)
    for rel, body in planned.items():
        write_bytes(out / rel, body, out)
    return Exported(volume, tuple(planned), count)


def _registered(layout: Layout, data: VolumeData) -> dict[str, Figure]:
    """The volume's registered figures, after checking every one still recomputes."""
    registry = figures.load_registry(layout)
    prefix = f"{data.id}/"
    mine = {k: f for k, f in registry.figures.items() if k.startswith(prefix)}
    shown = layout.rel(layout.figures_registry)
    if not mine:
        raise CheckFailed(
            f"{data.id}: no figures are registered; nothing published to export",
            [
                Problem(
                    shown,
                    None,
                    "export/no-figures",
                    f"no figure id starts with {prefix}",
                    "publish the volume first",
                )
            ],
        )
    mismatches = figures.verify(layout, data.id, data=data)
    if mismatches:
        raise CheckFailed(
            f"{data.id}: not exported; registered figures do not recompute from the files "
            "(publish again, or find what changed since publication):",
            mismatches,
        )
    return mine
