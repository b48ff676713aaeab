"""The gates as ``publish`` runs them in its staging copy: the input parts on each volume
as read, then the output parts once on the finished tree. Every blocking finding becomes
one refusal naming the gate, the rule and the file, and nothing is moved into place."""

from __future__ import annotations

from dataclasses import replace

from generator.checking import CheckReport, run_gates
from generator.errors import CheckFailed, Problem
from generator.models.release import GateVerdict
from generator.store import Layout, VolumeData

#: Publishing-gate findings a draft (``--allow-dirty``) may go past.
DRAFT_ALLOWED = ("dirty-tree", "not-a-repository", "no-commit")


def verdicts(report: CheckReport) -> dict[str, GateVerdict]:
    """Each gate's verdict as a release records it."""
    return {
        r.name: GateVerdict(
            passed=r.passed(),
            errors=len(r.errors()),
            warnings=sum(f.severity == "warning" for f in r.findings),
        )
        for r in report.results
    }


def _refuse(stage_layout: Layout, message: str, blocking: list[Problem]) -> None:
    """Refuse with ``blocking``, their paths shown relative to the root (not staging)."""
    if blocking:
        staged = str(stage_layout.root) + "/"
        raise CheckFailed(message, [replace(f, path=f.path.replace(staged, "")) for f in blocking])


def gate_inputs(
    stage_layout: Layout,
    layout: Layout,
    data: VolumeData,
    allow_dirty: bool,
    loaded: dict[str, VolumeData],
) -> CheckReport:
    """The nine gates' input parts on the staged volume; refuse on any blocking finding.

    The report is what the volume's release records: it is written before the site is
    built, and the output parts that run after can only refuse, never add to it."""
    volume = data.volume.id
    report = run_gates(
        stage_layout,
        volume,
        options={"repo_root": layout.root},
        data=data,
        loaded=loaded,
        phases=("inputs",),
    )
    blocking = [
        f
        for r in report.results
        for f in r.errors()
        if not (allow_dirty and f.gate == "publishing" and f.rule in DRAFT_ALLOWED)
    ]
    _refuse(stage_layout, f"{volume}: not published; the gates found:", blocking)
    return report


def gate_outputs(stage_layout: Layout, layout: Layout, data: VolumeData) -> None:
    """The output parts (leak scan, downloads, citations, archive) once, on the finished
    tree with the built site; refuse on any finding, a warning included: the releases
    are already written, so a finding here could not be recorded in them."""
    volume = data.volume.id
    report = run_gates(
        stage_layout, volume, options={"repo_root": layout.root}, data=data, phases=("outputs",)
    )
    blocking = [f for r in report.results for f in r.errors(strict=True)]
    _refuse(
        stage_layout, f"{volume}: not published; the gates found on the finished tree:", blocking
    )
