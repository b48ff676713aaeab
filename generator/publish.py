"""One-command publication of a volume (``probepress publish``).

Everything is built in a staging copy of the publication root: figures, frozen HTML and
PDFs, downloads, the release manifest and the site; all nine gates run there (the
clean-commit check against the real checkout). Only when everything passed are the
changed files moved into place, under a journal: a failure or a kill at any moment
leaves the previous publication intact, and the next ``publish`` (or
``publish --recover``) rolls an interrupted move back before doing anything else.
Publishing unchanged inputs rewrites nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator import __version__, figures, git
from generator.canonical import write_json
from generator.checking import run_gates
from generator.errors import CheckFailed, InputError, Problem
from generator.hashing import sha256_bytes, sha256_file
from generator.models.release import GateVerdict, Release
from generator.release import (
    MANIFEST,
    intact,
    load_release,
    refuse_downgrade,
    sign,
    signed_as,
    site_manifest,
    volume_figures_sha256,
    volume_inputs,
    volume_outputs,
    write_manifest,
    write_release,
)
from generator.signing import load_private_key
from generator.store import Layout

Step = Callable[[str], None]
JOURNAL = ".probepress-journal.json"
STAGING_PREFIX = ".probepress-staging-"
SITE_STAMP = ".probepress-site.json"
#: Folders whose files the tool alone writes: stale files there are removed on publish.
GENERATED = ("site_src/volumes", "site_src/downloads", "site")
#: Folders and files a publication reads as its inputs and copies into staging.
SKIP = {
    ".git",
    ".venv",
    "venv",
    ".private",
    "site",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "build",
    "dist",
}


@dataclass(frozen=True)
class PublishResult:
    """What ``publish`` did."""

    volumes: tuple[str, ...]
    changed: tuple[str, ...]
    noop: bool
    draft: bool
    releases: tuple[Release, ...] = ()

    def summary(self) -> str:
        """One line for people."""
        names = ", ".join(self.volumes)
        if self.noop:
            return f"{names}: already published from these inputs; nothing rewritten"
        what = "draft" if self.draft else "publication"
        return f"{names}: {what} complete, {len(self.changed)} file(s) written"

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "volumes": list(self.volumes),
            "noop": self.noop,
            "draft": self.draft,
            "changed": list(self.changed),
        }


# -- inputs and releases ---------------------------------------------------------------


def _files(base: Path) -> Iterator[Path]:
    if base.is_dir():
        yield from sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink())


def site_digest(layout: Layout) -> str:
    """Digest of everything the built site is made from."""
    parts = [f"probepress {__version__}"]
    for path in [layout.root / "mkdocs.yml", *_files(layout.site_src), *_files(layout.figures_dir)]:
        if path.is_file() and layout.rel(path) != MANIFEST:  # sealed after the stamp
            parts.append(f"{layout.rel(path)} {sha256_file(path)}")
    return sha256_bytes("\n".join(parts).encode("utf-8"))


def _site_fresh(layout: Layout) -> bool:
    stamp = layout.root / "site" / SITE_STAMP
    try:
        return bool(json.loads(stamp.read_text("utf-8"))["digest"] == site_digest(layout))
    except (OSError, ValueError, KeyError, TypeError):
        return False


# -- staging and the journalled move ---------------------------------------------------


@contextmanager
def staging(layout: Layout) -> Iterator[Path]:
    """A private copy of the root (inputs, hand-written pages, current outputs)."""
    stage = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=layout.root))
    try:
        for entry in sorted(layout.root.iterdir()):
            if (
                entry.name in SKIP
                or entry.name.startswith(".probepress-")
                or entry == layout.private
            ):
                continue
            target = stage / entry.name
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, target, symlinks=True, ignore=shutil.ignore_patterns(*SKIP))
            elif entry.is_file():
                shutil.copy2(entry, target)
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


@dataclass
class Plan:
    """Files to move from staging into the root, and stale generated files to delete."""

    moves: list[str] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)


def plan(root: Path, stage: Path) -> Plan:
    """What differs between the staged outputs and the root's."""
    out = Plan()
    for area in ("figures", "site_src", "site"):
        for path in _files(stage / area):
            rel = path.relative_to(stage).as_posix()
            current = root / rel
            if not current.is_file() or current.read_bytes() != path.read_bytes():
                out.moves.append(rel)
    for area in GENERATED:
        for path in _files(root / area):
            rel = path.relative_to(root).as_posix()
            if not (stage / rel).exists():
                out.deletes.append(rel)
    return out


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit(layout: Layout, stage: Path, todo: Plan) -> None:
    """Move staged files into place under a journal (see ``recover``)."""
    root = layout.root
    backup = Path(tempfile.mkdtemp(prefix=".probepress-backup-", dir=root))
    journal = root / JOURNAL
    record = {"backup": backup.name, "moves": todo.moves, "deletes": todo.deletes}
    write_json(journal, record)
    _fsync_dir(root)
    for rel in [*todo.moves, *todo.deletes]:
        current = root / rel
        if current.is_file():
            saved = backup / rel
            saved.parent.mkdir(parents=True, exist_ok=True)
            os.link(current, saved)
    for rel in todo.moves:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage / rel, target)
    for rel in todo.deletes:
        (root / rel).unlink(missing_ok=True)
    _fsync_dir(root)
    journal.unlink()  # the commit point: from here on the new publication stands
    _fsync_dir(root)
    shutil.rmtree(backup, ignore_errors=True)


def recover(layout: Layout) -> bool:
    """Roll back a move a kill interrupted; True if there was one. Also removes stale
    staging and backup folders."""
    root = layout.root
    journal = root / JOURNAL
    rolled = False
    if journal.exists():
        try:
            record = json.loads(journal.read_text("utf-8"))
            backup = root / record["backup"]
            for rel in [*record["moves"], *record["deletes"]]:
                saved, target = backup / rel, root / rel
                if saved.is_file():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(saved, target)
                elif rel in record["moves"]:
                    target.unlink(missing_ok=True)  # a new file: the previous state had none
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{JOURNAL}: cannot roll back an interrupted publish ({exc})") from exc
        journal.unlink()
        rolled = True
    for leftover in root.glob(".probepress-*"):
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
    return rolled


# -- the pipeline ----------------------------------------------------------------------


def _verdicts(report: Any) -> dict[str, GateVerdict]:
    return {
        r.name: GateVerdict(
            passed=r.passed(),
            errors=len(r.errors()),
            warnings=sum(f.severity == "warning" for f in r.findings),
        )
        for r in report.results
    }


def _gate(stage_layout: Layout, layout: Layout, volume: str, allow_dirty: bool) -> Any:
    report = run_gates(stage_layout, volume, options={"repo_root": layout.root})
    blocking = []
    for result in report.results:
        for finding in result.errors():
            if (
                allow_dirty
                and finding.gate == "publishing"
                and finding.rule in ("dirty-tree", "not-a-repository", "no-commit")
            ):
                continue
            blocking.append(finding)
    if blocking:
        problems = [
            Problem(
                f.path.replace(str(stage_layout.root) + "/", ""),
                f.line,
                f"{f.gate}/{f.rule}",
                f.message,
                f.fix,
            )
            for f in blocking
        ]
        raise CheckFailed(f"{volume}: not published; the gates found:", problems)
    return report


def _unchanged(layout: Layout, volume: str, inputs: dict[str, str]) -> Release | None:
    """The volume's release when it was published from exactly ``inputs`` (None when it
    was never published or only as a draft); refuses when a published volume's inputs
    changed."""
    previous = load_release(layout, volume)
    if previous is None or previous.draft:
        return None
    changed = sorted(
        p for p in set(inputs) | set(previous.inputs) if inputs.get(p) != previous.inputs.get(p)
    )
    if changed:
        raise CheckFailed(
            f"{volume} is published and its inputs changed since; published volumes never "
            "change (publish an erratum as a new volume with erratum_of):",
            [Problem(p, None, "immutable-archive", "changed since publication") for p in changed],
        )
    return previous


def publish(
    layout: Layout,
    volumes: Sequence[str],
    *,
    allow_dirty: bool = False,
    jobs: int | None = None,
    signing_key: Path | None = None,
    progress: Step | None = None,
) -> PublishResult:
    """Gates → figures → frozen HTML → PDFs → downloads → site for ``volumes``, built
    together in staging and moved into place atomically.

    Raises:
        CheckFailed: A gate failed, or a volume is already published and its inputs
            changed (an erratum is a new volume).
        InputError, UsageError: A volume cannot be read.
    """
    from generator.render import render_volume
    from generator.site import build_site

    step = progress or (lambda label: None)
    recover(layout)
    key = load_private_key(signing_key)
    refuse_downgrade(layout, key is not None)
    inputs = {v: volume_inputs(layout, v) for v in volumes}
    previous = {v: _unchanged(layout, v, inputs[v]) for v in volumes}
    intact_now = {v: r is not None and intact(layout, r) for v, r in previous.items()}
    clean = git.is_repository(layout.root) and not git.dirty_paths(layout.root)
    sealed = (layout.root / MANIFEST).is_file() and signed_as(layout, previous.values(), key)
    if all(intact_now.values()) and (clean or allow_dirty) and _site_fresh(layout) and sealed:
        standing = tuple(r for r in previous.values() if r is not None)
        return PublishResult(tuple(volumes), (), noop=True, draft=False, releases=standing)
    draft = allow_dirty and not clean
    if not clean and not allow_dirty:
        dirty = git.dirty_paths(layout.root) if git.is_repository(layout.root) else []
        what = ", ".join(dirty[:10]) if dirty else f"{layout.root} is not a git checkout"
        raise CheckFailed(
            f"{', '.join(volumes)}: not published; the working tree is not clean: {what}",
            [
                Problem(
                    ".",
                    None,
                    "publishing/dirty-tree",
                    "commit or remove these changes (or publish a draft with --allow-dirty)",
                )
            ],
        )
    releases: list[Release] = []
    with staging(layout) as stage:
        stage_layout = Layout.at(stage, layout.private, cache=layout.cache_dir or False)
        for volume in volumes:
            if not intact_now[volume]:
                step(f"figures of {volume}")
                figures.write(stage_layout, volume)
                step(f"frozen HTML and PDFs of {volume}")
                render_volume(stage_layout, volume, jobs=jobs, pdf=True, progress=step, draft=draft)
        step("downloads")
        shown = tuple(volumes) if draft else ()
        build_site(stage_layout, build=False, drafts=shown)
        for volume in volumes:
            step(f"gates of {volume}")
            report = _gate(stage_layout, layout, volume, allow_dirty)
            kept = previous[volume]
            if intact_now[volume] and kept is not None:
                if key is not None:  # re-signed (deterministic: unchanged bytes if it was)
                    kept = write_release(
                        stage_layout, kept.model_copy(update={"signature": None}), key
                    )
                releases.append(kept)
                continue
            release = Release(
                volume=volume,
                generator=f"probepress {__version__}",
                inputs_commit=git.last_commit_touching(
                    layout.root, ["bank", f"bundles/{volume}", "templates"]
                ),
                draft=draft,
                inputs=inputs[volume],
                outputs=volume_outputs(stage_layout, volume),
                figures_sha256=volume_figures_sha256(stage_layout, volume),
                gates=_verdicts(report),
            )
            releases.append(write_release(stage_layout, release, key))
        step("site")
        build_site(stage_layout, build=True, drafts=shown)
        write_json(stage / "site" / SITE_STAMP, {"digest": site_digest(stage_layout)})
        # Sealed last, over the built site too: every published file is in it.
        manifest = site_manifest(stage)
        write_manifest(stage, sign(manifest, key) if key is not None else manifest)
        step("holdout scan of the built site")
        _gate_site(stage_layout, layout, volumes[0])  # the scan covers every volume
        todo = plan(layout.root, stage)
        step("moving into place")
        commit(layout, stage, todo)
    return PublishResult(
        tuple(volumes),
        tuple(todo.moves + todo.deletes),
        noop=False,
        draft=draft,
        releases=tuple(releases),
    )


def _gate_site(stage_layout: Layout, layout: Layout, volume: str) -> None:
    report = run_gates(stage_layout, volume, ["holdout"], options={"repo_root": layout.root})
    if not report.passed:
        findings = [f for r in report.results for f in r.errors()]
        raise CheckFailed(
            f"{volume}: not published; held-out text reached the built site:",
            [Problem(f.path, f.line, f"{f.gate}/{f.rule}", f.message, f.fix) for f in findings],
        )
