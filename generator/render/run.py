"""``probepress render VOLUME``: frozen pages, their PDFs and the fingerprint registry.

Everything is computed in memory first — pages, PDFs, registry — and compared with the
fingerprint registry; files are written only when every page and PDF succeeded and every
already registered file came out byte-identical. Published files never change: if a
registered file would, ``render`` refuses, names each file and writes nothing.

A PDF is re-rendered only when needed: when the registry holds a PDF made from an HTML
file with the same fingerprint and the PDF on disk still has its registered bytes, that
PDF is reused as it is.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from dataclasses import dataclass
from typing import Any, Literal

from generator import fingerprints
from generator.canonical import write_bytes
from generator.errors import CheckFailed, Problem, UsageError
from generator.figures import GENERATOR, load_registry
from generator.fingerprints import FrozenFile
from generator.hashing import sha256_bytes, sha256_file
from generator.models.figures import Figure
from generator.progress import Progress
from generator.render.context import demonstration
from generator.render.pages import Page, render_pages
from generator.render.pdf import RENDERER, PdfJob, render_pdfs
from generator.render.provenance import provenance
from generator.store import Layout, VolumeData, load_volume
from generator.store.paths import FIGURES_REGISTRY, FINGERPRINT_REGISTRY
from generator.words import counted

Action = Literal["written", "unchanged", "reused"]


@dataclass(frozen=True)
class RenderedFile:
    """One frozen file of the volume and what ``render`` did with it."""

    path: str
    kind: Literal["html", "pdf"]
    sha256: str
    action: Action
    """``written`` (new bytes on disk), ``unchanged`` (same bytes already there) or
    ``reused`` (a PDF whose HTML did not change, not re-rendered)."""


@dataclass(frozen=True)
class RenderResult:
    """What ``render_volume`` produced."""

    volume: str
    files: tuple[RenderedFile, ...]
    registry_changed: bool
    html_seconds: float
    pdf_seconds: float
    draft: bool = False

    def as_json(self) -> dict[str, Any]:
        """JSON-ready result (no timings, so it is the same on every run)."""
        return {
            "volume": self.volume,
            "files": [
                {"path": f.path, "kind": f.kind, "sha256": f.sha256, "action": f.action}
                for f in self.files
            ],
            "registry": FINGERPRINT_REGISTRY,
            "registry_changed": self.registry_changed,
            "draft": self.draft,
        }

    def summary(self) -> str:
        """One line for people."""
        parts = []
        for kind in ("html", "pdf"):
            files = [f for f in self.files if f.kind == kind]
            if files:
                counts = {a: sum(f.action == a for f in files) for a in ("written", "reused")}
                detail = ", ".join(f"{n} {a}" for a, n in counts.items() if n)
                parts.append(f"{len(files)} {kind.upper()} ({detail or 'all unchanged'})")
        registry = "updated" if self.registry_changed else "unchanged"
        if self.draft:
            registry = "untouched (a draft is not registered)"
        return (
            f"{self.volume}{' DRAFT' if self.draft else ''}: {'; '.join(parts)}; fingerprints "
            f"in {FINGERPRINT_REGISTRY} {registry} (HTML {self.html_seconds:.1f} s, "
            f"PDF {self.pdf_seconds:.1f} s)"
        )


def _cores() -> int:
    """CPUs this process may run on (the affinity mask, where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _epoch(day: dt.date) -> int:
    return int(dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).timestamp())


def _pdf_path(html_path: str) -> str:
    return html_path.removesuffix(".html") + ".pdf"


def _reusable(layout: Layout, entry: FrozenFile | None, html_sha: str) -> bool:
    if entry is None or entry.source_sha256 != html_sha:
        return False
    path = layout.root / entry.path
    return path.is_file() and sha256_file(path) == entry.sha256


def _refuse(volume: str, diffs: list[tuple[str, str]]) -> None:
    if diffs:
        raise CheckFailed(
            f"{volume} is published and re-rendering would change "
            f"{counted(len(diffs), 'frozen file')}; published files never change (an "
            "erratum is a new volume), so nothing was written:",
            [
                Problem(
                    path,
                    None,
                    "frozen-file-changed",
                    what,
                    "restore the inputs, templates and renderer that produced the registered bytes",
                )
                for path, what in diffs
            ],
        )


def _compare(
    registered: dict[str, FrozenFile], produced: dict[str, FrozenFile]
) -> list[tuple[str, str]]:
    diffs = []
    for path, entry in sorted(registered.items()):
        new = produced.get(path)
        if new is None:
            continue
        if new.sha256 != entry.sha256:
            what = f"renders to sha256 {new.sha256[:12]}…, registered {entry.sha256[:12]}…"
            if entry.renderer and new.renderer and entry.renderer != new.renderer:
                what += f" (registered with {entry.renderer}, now {new.renderer})"
            diffs.append((path, what))
    return diffs


def _figures(layout: Layout, volume: str) -> dict[str, Figure]:
    figures = {k: v for k, v in load_registry(layout).figures.items() if k.startswith(f"{volume}/")}
    if not figures:
        raise UsageError(
            f"no figures of {volume} in {FIGURES_REGISTRY}; run `probepress figures {volume}` first"
        )
    return figures


def _pdfs(
    layout: Layout,
    data: VolumeData,
    pages: list[Page],
    mine: dict[str, FrozenFile],
    produced: dict[str, FrozenFile],
    options: tuple[int, bool, Progress | None],
) -> tuple[dict[str, bytes], set[str]]:
    """Render the PDFs that need it (adding them to ``produced``); return their bytes and
    the reused ones' paths."""
    workers, draft, progress = options
    epoch = _epoch(data.volume.publication_date)
    todo, reused = [], set()
    for page in pages:
        path, html_sha = _pdf_path(page.path), produced[page.path].sha256
        if _reusable(layout, mine.get(path), html_sha):
            produced[path] = mine[path]
            reused.add(path)
        else:
            todo.append(PdfJob(path, page.html, html_sha, epoch, demonstration(data), draft))
    contents = render_pdfs(todo, workers, progress)
    for job in todo:
        produced[job.path] = FrozenFile(
            job.path, sha256_bytes(contents[job.path]), data.id, "pdf", job.fingerprint, RENDERER
        )
    return contents, reused


def _gone(mine: dict[str, FrozenFile], produced: dict[str, FrozenFile]) -> list[tuple[str, str]]:
    """The registered HTML pages of the volume that are no longer rendered."""
    return [
        (p, "is registered but no longer rendered")
        for p, e in mine.items()
        if p not in produced and e.kind == "html"
    ]


def _write(
    layout: Layout,
    produced: dict[str, FrozenFile],
    contents: dict[str, bytes],
    reused: set[str],
) -> tuple[RenderedFile, ...]:
    """Write each produced file that is not a reused PDF, in path order; say what was done."""
    return tuple(
        RenderedFile(
            path,
            "pdf" if entry.kind == "pdf" else "html",
            entry.sha256,
            "reused"
            if path in reused
            else (
                "written"
                if write_bytes(layout.root / path, contents[path], layout.root)
                else "unchanged"
            ),
        )
        for path, entry in sorted(produced.items())
    )


def render_volume(
    layout: Layout,
    volume: str,
    *,
    jobs: int | None = None,
    pdf: bool = True,
    progress: Progress | None = None,
    draft: bool = False,
    data: VolumeData | None = None,
    figures: dict[str, Figure] | None = None,
) -> RenderResult:
    """Render ``volume``'s frozen HTML pages and PDFs and register their fingerprints.

    Args:
        layout: The publication root.
        volume: ``vol-001`` …
        jobs: PDF worker processes (default: the machine's cores).
        pdf: Also render the PDFs.
        progress: Called with each file's path as it is done.
        draft: Watermark every page and PDF page DRAFT and register nothing (a draft is
            not a publication; a registered volume still refuses to change).
        data: The volume as already read without the private store (a renderer never
            sees held-out text); read here when not given.
        figures: The volume's figures as just computed and registered; read from the
            registry when not given.

    Returns:
        What was rendered and written.

    Raises:
        InputError: The volume cannot be read.
        UsageError: The volume's figures are not registered, or a template cites an
            unknown figure.
        CheckFailed: The volume is registered and a frozen file would change.
    """
    if data is None or data.problems or data.bank.private:
        data = load_volume(layout, volume, private=False)
    if figures is None:
        figures = _figures(layout, volume)
    started = time.perf_counter()
    pages = render_pages(data, figures, provenance(data, GENERATOR), progress, draft=draft)
    html_seconds = time.perf_counter() - started
    registered = fingerprints.load_frozen(layout)
    mine = {p: e for p, e in registered.items() if e.volume == volume}
    produced = {p.path: FrozenFile(p.path, sha256_bytes(p.html), volume, "html") for p in pages}
    contents = {p.path: p.html for p in pages}
    _refuse(volume, _compare(mine, produced) + _gone(mine, produced))
    started = time.perf_counter()
    reused: set[str] = set()
    if pdf:
        options = (jobs or _cores(), draft, progress)
        rendered, reused = _pdfs(layout, data, pages, mine, produced, options)
        contents.update(rendered)
        _refuse(volume, _compare(mine, produced))
    pdf_seconds = time.perf_counter() - started
    files = _write(layout, produced, contents, reused)
    changed = not draft and fingerprints.write_frozen(layout, {**registered, **produced})
    return RenderResult(volume, files, changed, html_seconds, pdf_seconds, draft)
