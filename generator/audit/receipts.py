"""Receipts: every figure and release of the volume records what scored it.

The figures registry and, once the volume is published, its release manifest must carry
the scorer (probepress version and Tier 0 code hash) and the grader (its key, and its
prompt hash and settings as the volume declares them under ``jury.grading``). A receipt
that is missing fails; one naming other Tier 0 code than the code running now fails too
(the figures were decided by other rules: recompute them).
"""

from __future__ import annotations

from generator import figures, receipts, release
from generator.audit.base import AuditContext, Case, Section
from generator.models.receipts import Receipt

NAME = "receipts"


def _compare(name: str, where: str, found: Receipt | None, now: Receipt) -> list[Case]:
    if found is None:
        return [
            Case(
                name,
                "fail",
                "records no receipt (scorer version, Tier 0 code hash, grader prompt hash "
                "and settings); recompute with `probepress figures` (and publish again)",
                where,
                "missing-receipt",
            )
        ]
    if found.scorer.tier0_sha256 != now.scorer.tier0_sha256:
        return [
            Case(
                name,
                "fail",
                f"was scored by other Tier 0 code (sha256 {found.scorer.tier0_sha256[:12]}…, "
                f"running {now.scorer.tier0_sha256[:12]}…): recompute with `probepress figures`",
                where,
                "stale-receipt",
            )
        ]
    if (found.grader, found.grading) != (now.grader, now.grading):
        return [
            Case(
                name,
                "fail",
                "records another grader setup than the volume declares",
                where,
                "stale-receipt",
            )
        ]
    return [Case(name, "pass", f"scored by {found.scorer.probepress}")]


def receipts_section(ctx: AuditContext) -> Section:
    """The registry's and the release's receipts for the volume."""
    layout = ctx.data.layout
    vid = ctx.data.volume.id
    now = receipts.receipt(ctx.data.volume)
    registry = figures.load_registry(layout)
    cases = _compare(
        "figures", layout.rel(layout.figures_registry), registry.receipts.get(vid), now
    )
    published = release.load_release(layout, vid)
    if published is not None:
        cases += _compare("release", layout.rel(layout.release_file(vid)), published.receipt, now)
    else:
        cases.append(
            Case(
                "release",
                "skip",
                f"{vid} is not published yet: no release to check",
                rule="untested",
            )
        )
    if now.grading is None:
        cases.append(
            Case(
                "grader-settings",
                "skip",
                f"could not record the grader's prompt hash and settings: {vid} declares "
                "none (jury.grading: prompt_sha256, temperature, max_output_tokens)",
                layout.rel(layout.volume_file(vid)),
                "untested",
            )
        )
    return Section(NAME, "Receipts", tuple(cases))
