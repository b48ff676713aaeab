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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import __version__, figures, git, lock
from generator.canonical import dumps, write_bytes, write_json
from generator.checking import run_gates
from generator.confine import UnsafePath, symlinks_under
from generator.errors import CheckFailed, InputError, Problem
from generator.hashing import sha256_bytes, sha256_file
from generator.journal import commit, recover
from generator.models.release import GateVerdict, Release
from generator.signing import PUBLIC_KEY_FILE, load_private_key, public_pem, sign
from generator.staging import plan, staging
from generator.store import Layout
from generator.store.jsonl import Problems, load_document

Step = Callable[[str], None]
SITE_STAMP = ".probepress-site.json"
#: Folders publish writes: refused up front when a symlink is on the way or inside.
WRITTEN = ("figures", "site_src/volumes", "site_src/downloads", "site")


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


def volume_inputs(layout: Layout, volume: str) -> dict[str, str]:
    """Every input of ``volume`` (bank, its bundles, templates) with its SHA-256."""
    paths = [
        *_files(layout.bank_dir),
        *_files(layout.volume_dir(volume)),
        *_files(layout.root / "templates"),
    ]
    return {layout.rel(p): sha256_file(p) for p in paths}


def release_path(layout: Layout, volume: str) -> Path:
    """``site_src/volumes/<volume>/release.json``."""
    return layout.site_src / "volumes" / volume / "release.json"


def load_release(layout: Layout, volume: str) -> Release | None:
    """The volume's release manifest, if it was published."""
    path = release_path(layout, volume)
    if not path.exists():
        return None
    problems = Problems()
    release = load_document(path, Release, layout.rel(path), problems, 16 << 20)
    if release is None:
        raise InputError("cannot read the release manifest:", problems.items)
    return release


def volume_figures_sha256(layout: Layout, volume: str) -> str:
    """SHA-256 of the volume's own figures (other volumes' entries excluded)."""
    own = {
        k: v.model_dump(mode="json")
        for k, v in figures.load_registry(layout).figures.items()
        if k.startswith(f"{volume}/")
    }
    return sha256_bytes(dumps(own).encode("utf-8"))


def volume_outputs(layout: Layout, volume: str) -> dict[str, str]:
    """The volume's frozen files (HTML and PDF) with their SHA-256."""
    folder = layout.site_src / "volumes" / volume
    return {layout.rel(p): sha256_file(p) for p in _files(folder) if p.suffix in (".html", ".pdf")}


def _intact(layout: Layout, release: Release) -> bool:
    return (
        volume_outputs(layout, release.volume) == release.outputs
        and volume_figures_sha256(layout, release.volume) == release.figures_sha256
    )


def site_digest(layout: Layout) -> str:
    """Digest of everything the built site is made from."""
    parts = [f"probepress {__version__}"]
    for path in [layout.root / "mkdocs.yml", *_files(layout.site_src), *_files(layout.figures_dir)]:
        if path.is_file():
            parts.append(f"{layout.rel(path)} {sha256_file(path)}")
    return sha256_bytes("\n".join(parts).encode("utf-8"))


def _site_fresh(layout: Layout) -> bool:
    stamp = layout.root / "site" / SITE_STAMP
    try:
        return bool(json.loads(stamp.read_text("utf-8"))["digest"] == site_digest(layout))
    except (OSError, ValueError, KeyError, TypeError):
        return False


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
    together in staging and moved into place atomically, holding the root's writer lock
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
        unsafe = symlinks_under(layout.root, WRITTEN)
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


def _publish(
    layout: Layout,
    volumes: Sequence[str],
    *,
    allow_dirty: bool,
    jobs: int | None,
    signing_key: Path | None,
    progress: Step | None,
) -> PublishResult:
    from generator.render import render_volume
    from generator.site import build_site

    step = progress or (lambda label: None)
    key = load_private_key(signing_key)
    inputs = {v: volume_inputs(layout, v) for v in volumes}
    previous = {v: _unchanged(layout, v, inputs[v]) for v in volumes}
    intact = {v: r is not None and _intact(layout, r) for v, r in previous.items()}
    clean = git.is_repository(layout.root) and not git.dirty_paths(layout.root)
    if all(intact.values()) and (clean or allow_dirty) and _site_fresh(layout):
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
    with staging(layout.root, layout.private) as stage:
        stage_layout = Layout.at(stage, layout.private, cache=layout.cache_dir or False)
        for volume in volumes:
            if not intact[volume]:
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
            if intact[volume] and kept is not None:
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
            if key is not None:
                release = sign(release, key)
                write_bytes(
                    stage_layout.site_src / "downloads" / PUBLIC_KEY_FILE, public_pem(key), stage
                )
            write_bytes(
                release_path(stage_layout, volume),
                dumps(release.model_dump(mode="json", exclude_none=True)).encode("utf-8"),
                stage,
            )
            releases.append(release)
        step("site")
        build_site(stage_layout, build=True, drafts=shown)
        write_json(stage / "site" / SITE_STAMP, {"digest": site_digest(stage_layout)}, stage)
        step("holdout scan of the built site")
        _gate_site(stage_layout, layout, volumes[0])  # the scan covers every volume
        todo = plan(layout.root, stage)
        step("moving into place")
        commit(layout.root, stage, todo)
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
