"""The one place probepress talks to git (read-only)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

TIMEOUT = 120


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    """``git -C root ARGS…`` with text output; None when git is missing or times out."""
    return _git(root, args, text=True)


def _git(
    root: Path, args: tuple[str, ...], *, text: bool
) -> subprocess.CompletedProcess[Any] | None:
    """``git -C root ARGS…`` without optional locks, in the C locale; None when git is
    missing or times out."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=text,
            check=False,
            timeout=TIMEOUT,
            env=env,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def output(root: Path, *args: str) -> str | None:
    """Standard output of a successful git command, else None."""
    done = run(root, *args)
    return done.stdout if done is not None and done.returncode == 0 else None


def is_repository(root: Path) -> bool:
    """True when ``root`` is inside a git work tree."""
    return (output(root, "rev-parse", "--is-inside-work-tree") or "").strip() == "true"


def head(root: Path) -> str | None:
    """The commit HEAD points at, or None."""
    text = output(root, "rev-parse", "HEAD")
    return text.strip() if text else None


def dirty_paths(root: Path) -> list[str]:
    """Modified, staged and untracked (not ignored) paths under ``root`` — except
    probepress's own staging, backup and journal files of a publish in progress."""
    text = output(root, "status", "--porcelain=v1", "--untracked-files=all", "--", ".") or ""
    paths = [line[3:] for line in text.splitlines() if line]
    return [p for p in paths if not p.lstrip('"').startswith(".probepress-")]


def last_commit_touching(root: Path, paths: list[str]) -> str | None:
    """The newest commit that changed any of ``paths`` (the inputs' commit), or None."""
    text = output(root, "log", "-1", "--format=%H", "--", *paths)
    return text.strip() or None if text else None


def file_at(root: Path, commit: str, rel: str) -> bytes | None:
    """The bytes of ``rel`` (relative to ``root``) in ``commit``, or None (no such
    commit or file, or no git)."""
    done = _git(root, ("show", f"{commit}:./{rel}"), text=False)
    if done is None:
        return None
    return done.stdout if done.returncode == 0 else None
