"""publishing: a release is a clean commit, and everything it cites resolves.

The working tree is clean (no modified, staged or untracked files — the dirty paths are
named) and the release records HEAD; publishing outside a git checkout fails. Figure
citations, figure recomputation and archive immutability are checked by the parts
registered in ``generator.gates.publishing.EXTRA_CHECKS`` once the figures and rendering
stages exist.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from generator.gates.base import Findings, GateContext, GateResult

NAME = "publishing"
LISTED = 10

#: Further publishing checks (figure citations, recomputation, archive immutability),
#: each adding findings and returning the name of what it checked.
EXTRA_CHECKS: list[Callable[[GateContext, Findings], str]] = []


def _git(ctx: GateContext, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", "-C", str(ctx.layout.root), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def head_commit(ctx: GateContext) -> str | None:
    """HEAD of the root's repository, or None outside git."""
    done = _git(ctx, "rev-parse", "HEAD")
    return done.stdout.strip() if done is not None and done.returncode == 0 else None


def check(ctx: GateContext) -> GateResult:
    """Run the publishing gate."""
    out = Findings(NAME)
    root = ctx.layout.root
    notes = []
    inside = _git(ctx, "rev-parse", "--show-toplevel")
    if inside is None or inside.returncode != 0:
        out.add(
            "not-a-repository",
            ".",
            None,
            f"{root} is not inside a git repository",
            "publish from a git checkout so the release can record its inputs commit",
        )
    else:
        status = _git(ctx, "status", "--porcelain=v1", "--untracked-files=all", "--", ".")
        dirty = [line[3:] for line in (status.stdout if status else "").splitlines() if line]
        if dirty:
            shown = ", ".join(dirty[:LISTED])
            more = f" and {len(dirty) - LISTED} more" if len(dirty) > LISTED else ""
            out.add(
                "dirty-tree",
                ".",
                None,
                f"the working tree is not clean: {shown}{more}",
                "commit or remove these changes (or publish a draft with --allow-dirty)",
            )
        head = head_commit(ctx)
        if head is None:
            out.add("no-commit", ".", None, "the repository has no commit yet")
        else:
            notes.append(f"inputs commit {head}")
    checked = [extra(ctx, out) for extra in EXTRA_CHECKS]
    pending = (
        []
        if checked
        else [
            "figure citations, figure recomputation and archive immutability: "
            "wired in when the figures and rendering stages land"
        ]
    )
    return out.result(pending=pending, notes=notes)
