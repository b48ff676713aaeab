"""Staging and the plan of a publish: a private copy of the root to build in, and what
differs between its outputs and the root's.

The staging copy lives inside the root (``.probepress-staging-*``: same filesystem,
covered by the root's lock), holds the inputs, hand-written pages and current outputs,
and is removed on every exit; a killed run's copy is removed by the next writer's
recovery (``generator.journal.recover``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from generator.store.paths import GENERATED_AREAS, PUBLISHED_AREAS, SITE, TOOL_DIRS

STAGING_PREFIX = ".probepress-staging-"
#: Root entries staging does not copy (not inputs, or too big to matter).
SKIP = TOOL_DIRS | {".private", SITE, "build", "dist"}


@dataclass
class Plan:
    """Files to move from staging into the root, and stale generated files to delete."""

    moves: list[str] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)


def files_under(base: Path) -> Iterator[Path]:
    """Regular files under ``base`` (symlinks are not followed nor listed), sorted."""
    if base.is_dir():
        yield from sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink())


@contextmanager
def staging(root: Path, private: Path) -> Iterator[Path]:
    """A private copy of the root (inputs, hand-written pages, current outputs), removed
    on every exit (SIGTERM included: it arrives as SystemExit)."""
    stage = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    try:
        for entry in sorted(root.iterdir()):
            if entry.name in SKIP or entry.name.startswith(".probepress-") or entry == private:
                continue
            target = stage / entry.name
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, target, symlinks=True, ignore=shutil.ignore_patterns(*SKIP))
            elif entry.is_file() and not entry.is_symlink():
                shutil.copy2(entry, target)
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def plan(root: Path, stage: Path) -> Plan:
    """What differs between the staged outputs and the root's."""
    out = Plan()
    for area in PUBLISHED_AREAS:  # what publish writes, compared with the root's
        for path in files_under(stage / area):
            rel = path.relative_to(stage).as_posix()
            current = root / rel
            if not current.is_file() or current.read_bytes() != path.read_bytes():
                out.moves.append(rel)
    for area in GENERATED_AREAS:  # the tool alone writes there: stale files go
        for path in files_under(root / area):
            rel = path.relative_to(root).as_posix()
            if not (stage / rel).exists():
                out.deletes.append(rel)
    return out
