"""One-command publication of a volume (``probepress publish``).

Everything is built in a staging copy of the publication root, in one pass: each volume
is read once; its figures are computed once (from its public view) and registered; the
gates' input parts run on what was read; the frozen HTML and PDFs are rendered; the
releases are written; the site (downloads and MkDocs) is built once; the gates' output
parts run once on the finished tree (the clean-commit check against the real checkout).
Only when everything passed are the changed files moved into place, under a journal: a
failure or a kill at any moment leaves the previous publication intact, and the next
``publish`` (or ``publish --recover``) rolls an interrupted move back before doing
anything else.
Publishing unchanged inputs rewrites nothing, decided from the records alone (no volume
read, no figure computed, no gate run): each volume's standing release records its current
inputs, the tree is clean, the site stamp (``generator.release.sealed_intact``) vouches
for every release and the manifest is signed as asked. ``check`` and ``verify`` re-run
the gates and recompute the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from generator import __version__, git, lock, old_releases
from generator.confine import UnsafePath, symlinks_under
from generator.errors import CheckFailed, Problem
from generator.figures import load_registry
from generator.journal import commit, recover
from generator.models.release import Release
from generator.progress import Progress, expect, silent
from generator.release import (
    intact,
    load_release,
    refuse_downgrade,
    sealed_intact,
    sign,
    signed_as,
    site_manifest,
    stamp_site,
    volume_figures_sha256,
    volume_inputs,
    volume_outputs,
    write_manifest,
    write_release,
)
from generator.signing import load_private_key
from generator.staging import Plan, plan, staging
from generator.store import Layout
from generator.store.cut import kept
from generator.store.paths import (
    BANK,
    BUNDLES,
    DOWNLOADS,
    FIGURES,
    SITE,
    TEMPLATES,
    VOLUMES,
    WRITTEN_AREAS,
)
from generator.words import counted

FINAL_STEPS = 3
"""The steps of a publish after the pages: the site, the gates on the finished tree,
moving into place."""


_KINDS = (
    ("frozen page", None, lambda p: p.startswith(f"{VOLUMES}/") and p.endswith(".html")),
    ("PDF", None, lambda p: p.startswith(f"{VOLUMES}/") and p.endswith(".pdf")),
    ("other volume file", None, lambda p: p.startswith(f"{VOLUMES}/")),
    ("download", None, lambda p: p.startswith(f"{DOWNLOADS}/")),
    ("registry", "registries", lambda p: p.startswith(f"{FIGURES}/")),
    ("built site file", None, lambda p: p.startswith(f"{SITE}/")),
    ("other file", None, lambda p: True),
)


def written(paths: tuple[str, ...]) -> str:
    """What ``paths`` are, counted by kind ("2 frozen pages, 2 PDFs, 180 built site
    files"): a draft that changed no frozen page says so, not just a number of files."""
    counts = dict.fromkeys((kind for kind, _, _ in _KINDS), 0)
    plurals = {kind: plural for kind, plural, _ in _KINDS}
    for path in paths:
        kind = next(k for k, _, matches in _KINDS if matches(path))
        counts[kind] += 1
    parts = [counted(n, kind, plurals[kind]) for kind, n in counts.items() if n]
    if not counts["frozen page"]:
        parts.insert(0, "no frozen page")
    return ", ".join(parts)


@dataclass(frozen=True)
class PublishResult:
    """What ``publish`` did."""

    volumes: tuple[str, ...]
    changed: tuple[str, ...]
    noop: bool
    draft: bool
    releases: tuple[Release, ...] = ()
    removed: tuple[str, ...] = ()
    """The files of ``changed`` that were deleted (no longer produced)."""

    def summary(self) -> str:
        """One line for people."""
        names = ", ".join(self.volumes)
        if self.noop:
            return f"{names}: already published from these inputs; nothing rewritten"
        what = "draft" if self.draft else "publication"
        kept = tuple(p for p in self.changed if p not in set(self.removed))
        gone = f"; {counted(len(self.removed), 'file')} removed" if self.removed else ""
        return f"{names}: {what} complete; written: {written(kept)}{gone}"

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "volumes": list(self.volumes),
            "noop": self.noop,
            "draft": self.draft,
            "changed": list(self.changed),
        }


# -- inputs and releases ---------------------------------------------------------------


# -- the pipeline ----------------------------------------------------------------------


def _unchanged(layout: Layout, volume: str, inputs: dict[str, str]) -> Release | None:
    """The volume's release when it was published from exactly ``inputs`` (None when it
    was never published or only as a draft); refuses when a published volume's inputs
    changed."""
    previous = load_release(layout, volume)
    if previous is None or previous.draft:
        return None
    changed = sorted(
        p
        for p in set(inputs) | set(previous.inputs)
        if not kept(layout.root, p, previous.inputs.get(p), inputs.get(p))
    )
    if changed:
        raise CheckFailed(
            f"{volume} is published and its inputs changed since; published volumes never "
            "change (publish an erratum as a new volume with erratum_of):",
            old_releases.refusals(layout, previous, changed),
        )
    return previous


def publish(
    layout: Layout,
    volumes: Sequence[str],
    *,
    allow_dirty: bool = False,
    jobs: int | None = None,
    signing_key: Path | None = None,
    progress: Progress | None = None,
) -> PublishResult:
    """Read → figures → input gates → frozen HTML and PDFs → releases → site (downloads
    and MkDocs) → output gates → seal for ``volumes``, in one pass in staging, moved
    into place atomically, holding the root's writer lock
    (after first recovering any interrupted publish).

    Raises:
        CheckFailed: A gate failed, or a volume is already published and its inputs
            changed (an erratum is a new volume).
        InputError, UsageError: A volume cannot be read.
        UnsafePath: A folder the publication writes is or holds a symbolic link.
        LockBusy: Another probepress is writing the root.
        CommitError: The move into place failed (the previous publication was restored).
    """
    with lock.writing(layout.root):
        recover(layout.root)
        # Refused up front when a symlink is on the way to a folder publish writes, or inside.
        unsafe = symlinks_under(layout.root, WRITTEN_AREAS)
        if unsafe:
            raise UnsafePath(
                "not published: no file is ever written through a symbolic link:", unsafe
            )
        return _publish(
            layout,
            volumes,
            allow_dirty=allow_dirty,
            jobs=jobs,
            signing_key=signing_key,
            progress=progress,
        )


@dataclass(frozen=True)
class _Run:
    """What the steps of one publish share: the request and the standing of each volume."""

    layout: Layout
    volumes: Sequence[str]
    key: Ed25519PrivateKey | None
    inputs: dict[str, dict[str, str]]
    previous: dict[str, Release | None]
    clean: bool
    allow_dirty: bool
    jobs: int | None
    step: Progress

    @cached_property
    def intact_now(self) -> dict[str, bool]:
        """Whether each volume's frozen files and figures are still what its release
        sealed, recomputed from the files (when something is to be built)."""
        return {v: r is not None and intact(self.layout, r) for v, r in self.previous.items()}

    @property
    def draft(self) -> bool:
        """Whether this publish is a draft (a dirty tree, allowed)."""
        return self.allow_dirty and not self.clean

    @property
    def shown(self) -> tuple[str, ...]:
        """The volumes the site shows as drafts."""
        return tuple(self.volumes) if self.draft else ()


def _publish(
    layout: Layout,
    volumes: Sequence[str],
    *,
    allow_dirty: bool,
    jobs: int | None,
    signing_key: Path | None,
    progress: Progress | None,
) -> PublishResult:
    """Publish ``volumes`` unless nothing changed: in staging, read each volume once,
    compute and register its figures, run the gates' input parts, render the pages,
    write the releases, build the site once, run the gates' output parts once on the
    finished tree, seal; then commit."""
    run = _survey(
        layout,
        volumes,
        allow_dirty=allow_dirty,
        jobs=jobs,
        signing_key=signing_key,
        progress=progress,
    )
    standing = _noop(run)
    if standing is not None:
        return standing
    if not run.clean and not allow_dirty:
        _refuse_dirty(layout, volumes)
    releases, todo = _build(run, layout, volumes, allow_dirty)
    return PublishResult(
        tuple(volumes),
        tuple(todo.moves + todo.deletes),
        False,
        run.draft,
        releases,
        removed=tuple(todo.deletes),
    )


def _build(
    run: _Run, layout: Layout, volumes: Sequence[str], allow_dirty: bool
) -> tuple[tuple[Release, ...], Plan]:
    """In staging: read each volume once, compute and register the changed volumes'
    figures, run the gates' input parts, render, write the releases, build the site once,
    run the gates' output parts once on the finished tree, seal; then move into place."""
    # The gates, statistics and renderers: imported once something is to be built (a
    # no-op publish, decided above from the records, needs none of them).
    from generator import pipeline
    from generator.gating import gate_inputs, gate_outputs

    with staging(layout.root, layout.private) as stage:
        stage_layout = Layout.at(stage, layout.private, cache=layout.cache_dir or False)
        loaded = pipeline.load(stage_layout, volumes, run.step)
        changed = [v for v in volumes if not run.intact_now[v]]
        computed = pipeline.compute_figures(stage_layout, changed, loaded, run.step)
        reports = {
            v: gate_inputs(stage_layout, layout, loaded.gated[v], allow_dirty, loaded.public)
            for v in pipeline.announced(volumes, "gates of", run.step)
        }
        pages = pipeline.Pages(run.jobs, run.draft, run.step)
        pipeline.render_pages(stage_layout, changed, loaded, computed, pages)
        releases = tuple(_release(run, stage_layout, v, reports[v]) for v in volumes)
        expect(run.step, FINAL_STEPS)
        run.step("site")
        from generator.site import build_site  # MkDocs, when a publish gets this far

        build_site(stage_layout, build=True, drafts=run.shown, loaded=loaded.public)
        run.step("gates on the finished tree")
        # Root-wide: one scan covers the whole tree, every volume's pages included.
        gate_outputs(stage_layout, layout, loaded.gated[volumes[0]])
        _seal(run, stage_layout, stage)
        todo = plan(layout.root, stage)
        run.step("moving into place")
        commit(layout.root, stage, todo)
    return releases, todo


def _survey(
    layout: Layout,
    volumes: Sequence[str],
    *,
    allow_dirty: bool,
    jobs: int | None,
    signing_key: Path | None,
    progress: Progress | None,
) -> _Run:
    """Load the signing key and find each volume's standing release and the tree's state."""
    key = load_private_key(signing_key)
    refuse_downgrade(layout, key is not None)
    inputs = {v: volume_inputs(layout, v) for v in volumes}
    previous = {v: _unchanged(layout, v, inputs[v]) for v in volumes}
    clean = git.is_repository(layout.root) and not git.dirty_paths(layout.root)
    return _Run(
        layout,
        volumes,
        key,
        inputs,
        previous,
        clean,
        allow_dirty,
        jobs,
        progress or silent,
    )


def _noop(run: _Run) -> PublishResult | None:
    """The no-op result when every volume, the site and the seal already stand as the
    last publish left them (what that proves: the module's docstring)."""
    layout = run.layout
    standing = tuple(r for r in run.previous.values() if r is not None)
    if len(standing) < len(run.volumes) or not (run.clean or run.allow_dirty):
        return None
    if not {r.volume for r in standing} <= sealed_intact(layout):
        return None
    if not (layout.manifest_file.is_file() and signed_as(layout, standing, run.key)):
        return None
    return PublishResult(tuple(run.volumes), (), noop=True, draft=False, releases=standing)


def _refuse_dirty(layout: Layout, volumes: Sequence[str]) -> None:
    """Refuse to publish from a working tree that is not clean (or not a git checkout)."""
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


def _release(run: _Run, stage_layout: Layout, volume: str, report: Any) -> Release:
    """The standing release of an intact volume (re-signed), or a new one written."""
    kept = run.previous[volume]
    receipt = load_registry(stage_layout).receipts.get(volume)
    # A release without the receipt its figures now carry is written anew (once).
    if run.intact_now[volume] and kept is not None and kept.receipt == receipt:
        if run.key is not None:  # re-signed (deterministic: unchanged bytes if it was)
            kept = write_release(stage_layout, kept.model_copy(update={"signature": None}), run.key)
        return kept
    from generator.gating import verdicts  # imported by _publish already

    release = Release(
        volume=volume,
        generator=f"probepress {__version__}",
        inputs_commit=git.last_commit_touching(
            run.layout.root, [BANK, f"{BUNDLES}/{volume}", TEMPLATES]
        ),
        draft=run.draft,
        inputs=run.inputs[volume],
        outputs=volume_outputs(stage_layout, volume),
        figures_sha256=volume_figures_sha256(stage_layout, volume),
        gates=verdicts(report),
        receipt=receipt,
    )
    return write_release(stage_layout, release, run.key)


def _seal(run: _Run, stage_layout: Layout, stage: Path) -> None:
    """Stamp the built site (what a later no-op publish relies on) and seal the manifest
    over everything."""
    stamp_site(stage_layout)
    # Sealed last, over the built site too: every published file is in it.
    manifest = site_manifest(stage)
    write_manifest(stage, sign(manifest, run.key) if run.key is not None else manifest)
