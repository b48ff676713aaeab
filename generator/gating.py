"""The gates as ``publish`` runs them in its staging copy: every blocking finding becomes
one refusal naming the gate, the rule and the file, and nothing is moved into place."""

from __future__ import annotations

from dataclasses import replace

from generator.checking import CheckReport, run_gates
from generator.errors import CheckFailed
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


def gate_inputs(
    stage_layout: Layout,
    layout: Layout,
    data: VolumeData,
    allow_dirty: bool,
    loaded: dict[str, VolumeData],
) -> CheckReport:
    """All nine gates on the staged publication; refuse on any blocking finding."""
    volume = data.volume.id
    report = run_gates(
        stage_layout, volume, options={"repo_root": layout.root}, data=data, loaded=loaded
    )
    blocking = []
    for result in report.results:
        for finding in result.errors():
            if allow_dirty and finding.gate == "publishing" and finding.rule in DRAFT_ALLOWED:
                continue
            blocking.append(finding)
    if blocking:
        staged = str(stage_layout.root) + "/"
        problems = [replace(f, path=f.path.replace(staged, "")) for f in blocking]
        raise CheckFailed(f"{volume}: not published; the gates found:", problems)
    return report


def gate_built_site(stage_layout: Layout, layout: Layout, data: VolumeData) -> None:
    """The holdout gate once more, on the finished tree with the built site."""
    volume = data.volume.id
    report = run_gates(
        stage_layout, volume, ["holdout"], options={"repo_root": layout.root}, data=data
    )
    if not report.passed:
        raise CheckFailed(
            f"{volume}: not published; held-out text reached the built site:",
            [f for r in report.results for f in r.errors()],
        )
