"""The MkDocs-Material site (DESIGN §7): generated pages, downloads, then MkDocs.

``build_site`` writes the generated pages (``site_src/volumes/``: the results overview,
the archive and each volume's results and jury pages; ``site_src/downloads/``: the
downloads page, the bank changelog and every download with its ``SHA256SUMS``), then
runs ``mkdocs build --strict`` in-process. Hand-written pages (``site_src/*.md``) cite
figures by id (``generator.site.figrefs``) and carry no bare numbers
(``generator.site.lint``). Everything generated is deterministic and written with the
canonical writer, only when its bytes change.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from generator import bank_downloads, canary, confine, release
from generator.canonical import write_bytes, write_text
from generator.errors import CheckFailed, InputError
from generator.progress import Progress, silent
from generator.site import (
    archive,
    dictionary,
    downloads,
    jury,
    lint,
    listings,
    mkdocs_run,
    results,
    reuse,
)
from generator.site.published import Publication, load_publication
from generator.store.bank import Bank, load_bank
from generator.store.jsonl import Bounds, Problems
from generator.store.paths import (
    BANK,
    DOWNLOADS,
    DOWNLOADS_FOLDER,
    SITE_SRC,
    VOLUMES,
    VOLUMES_FOLDER,
    Layout,
)
from generator.store.volume import VolumeData

THEME = Path(__file__).with_name("theme")
"""The theme files every site needs (the demonstration banner's template override, the
stylesheet, the offline plugin's local polyfill). They ship with the tool and are
written under ``site_src/`` (``overrides/``, ``assets/``) by every ``generate``, so a
root holds no copy of its own to drift; a root's own extra assets stay untouched."""


def theme_files() -> dict[str, bytes]:
    """The tool's theme files by path under ``site_src/``."""
    return {
        p.relative_to(THEME).as_posix(): p.read_bytes()
        for p in sorted(THEME.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


@dataclass(frozen=True)
class SiteResult:
    """What ``build_site`` did."""

    volumes: tuple[str, ...]
    """Published volumes on the site."""
    pages: int
    """Generated pages."""
    downloads: int
    """Files in the downloads folder (``SHA256SUMS`` included)."""
    written: int
    """Generated files whose bytes changed (pages and downloads)."""
    removed: int
    """Stale generated files removed."""
    out: Path | None
    """Where the site was built (None with ``build=False``)."""
    generate_seconds: float
    build_seconds: float

    def summary(self) -> str:
        """One line for people."""
        built = (
            f"; built into {self.out} in {self.build_seconds:.1f} s (mkdocs --strict)"
            if self.out is not None
            else ""
        )
        shown = ", ".join(self.volumes) or "no volume"
        return (
            f"site: {shown}; {self.pages} generated pages and {self.downloads} downloads "
            f"({self.written} written, {self.removed} removed) in "
            f"{self.generate_seconds:.1f} s{built}"
        )


def _bank(layout: Layout) -> Bank:
    problems = Problems()
    bank = load_bank(layout, Bounds(), problems, private=False)
    if bank is None or problems:
        raise InputError("cannot read the bank:", problems.items)
    return bank


def generated_pages(
    pub: Publication, bank: Bank, files: list[downloads.Download]
) -> dict[str, str]:
    """Every generated page by path under ``site_src/``."""
    sums = {f.name: f.sha256 for f in files}
    pages = {
        f"{VOLUMES_FOLDER}/index.md": listings.volumes_index(pub),
        f"{VOLUMES_FOLDER}/archive.md": listings.archive_page(pub),
        f"{DOWNLOADS_FOLDER}/index.md": listings.downloads_page(pub, files),
        f"{DOWNLOADS_FOLDER}/changelog.md": listings.changelog_page(pub, bank, sums),
        f"{DOWNLOADS_FOLDER}/{dictionary.PAGE}": dictionary.dictionary_page(),
    }
    for pv in pub.volumes:
        cite = reuse.cite_block(pv, pub.bank)
        pages[f"{VOLUMES_FOLDER}/{pv.id}/index.md"] = f"{results.results_page(pv)}\n{cite}\n"
        pages[f"{VOLUMES_FOLDER}/{pv.id}/jury.md"] = jury.jury_page(pv)
    return dict(sorted(pages.items()))


def _prune(root: Path, site_src: Path, keep: set[str]) -> int:
    """Remove stale generated files: pages under volumes/, copies under the download
    folders that only this module fills. Frozen files and files other steps wrote stay.
    Every delete is confined to ``root`` (never through a symlink)."""
    removed = 0
    scopes = [(VOLUMES_FOLDER, "*.md")]
    scopes += [(f"{DOWNLOADS_FOLDER}/{d.rstrip('/')}", "*") for d in downloads.OWN_DIRS]
    for folder, pattern in scopes:
        base = site_src / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob(pattern)):
            if path.is_file() and path.relative_to(site_src).as_posix() not in keep:
                confine.unlink(root, path)
                removed += 1
        for path in sorted(base.rglob("*"), reverse=True):
            if path.is_dir() and not any(path.iterdir()):
                confine.checked(root, path, leaf="dir").rmdir()
    return removed


def _refuse_without_canary(
    layout: Layout, bank: Bank, files: list[downloads.Download], pages: Mapping[str, str]
) -> None:
    """Refuse to write public bank files that do not carry the bank's canary."""
    copies = {release.download_name(f"{BANK}/{n}"): n for n in ("public.jsonl", "bank.yaml")}
    public = [
        canary.PublicFile(canary.planned_path(f.name), f.data, f.name.endswith(".jsonl"))
        for f in files
        if f.group == "bank" or f.name in copies
    ]
    page = f"{DOWNLOADS_FOLDER}/changelog.md"
    public.append(canary.PublicFile(f"{SITE_SRC}/{page}", pages[page].encode("utf-8"), False))
    found = canary.refusals(bank.manifest, layout.public_items.read_bytes(), public)
    if found:
        raise CheckFailed(
            "public bank files must carry the bank's canary; nothing was written:", found
        )


def _refuse_bank_changes(layout: Layout, files: list[downloads.Download]) -> None:
    planned = {f"{DOWNLOADS}/{f.name}": f.data for f in files if f.group == "bank"}
    problems = bank_downloads.refused_changes(layout, planned)
    problems += bank_downloads.ledger_problems(layout)
    problems += archive.refusals(
        downloads.archives(files), bank_downloads.registered_archives(layout)
    )
    if problems:
        raise CheckFailed("published downloads would change; nothing was written:", problems)


def _register_archives(
    layout: Layout, files: list[downloads.Download], drafts: tuple[str, ...]
) -> None:
    """Record the published (not draft) volumes' archives as this build made them."""
    shown = {archive.archive_name(v) for v in drafts}
    planned = [p for p in downloads.archives(files) if p.name not in shown]
    known = bank_downloads.registered_archives(layout)
    bank_downloads.register_archives(layout, archive.records(planned, known))


@dataclass(frozen=True)
class Generated:
    """What ``generate`` wrote under ``site_src/``."""

    publication: Publication
    pages: int
    """Generated pages."""
    downloads: int
    """Files in the downloads folder."""
    written: int
    """Files whose bytes changed."""
    removed: int
    """Stale generated files removed."""


def generate(
    layout: Layout,
    progress: Progress | None = None,
    drafts: tuple[str, ...] = (),
    loaded: Mapping[str, VolumeData] | None = None,
) -> Generated:
    """Write the generated pages and downloads, only where their bytes change.

    ``drafts`` names volumes whose (watermarked, unregistered) pages are shown too;
    ``loaded``: volumes already read publicly (``store.public_view``), used instead of
    reading them again.

    Raises:
        InputError: An input cannot be read or a frozen file is missing or changed.
        CheckFailed: A hand-written page has a bare number, or a published bank download
            would change (then nothing is written).
    """
    step = progress or silent
    unsafe = confine.symlinks_under(layout.root, (VOLUMES, DOWNLOADS))
    if unsafe:
        raise confine.UnsafePath("nothing is ever written through a symbolic link:", unsafe)
    step("reading the publication")
    pub = load_publication(layout, drafts=drafts)
    bank = _bank(layout)
    bare = lint.lint_pages(layout)
    if bare:
        raise CheckFailed("hand-written pages type numbers instead of citing figures:", bare)
    step("planning downloads")
    files = downloads.plan(pub, bank, loaded)
    _refuse_bank_changes(layout, files)
    pages = generated_pages(pub, bank, files)
    _refuse_without_canary(layout, bank, files, pages)
    site_src = layout.site_src
    written = 0
    step("writing pages and downloads")
    for rel, page_text in pages.items():
        written += write_text(site_src / rel, page_text, layout.root)
    for f in files:
        written += write_bytes(layout.downloads_dir / f.name, f.data, layout.root)
    for rel, data in theme_files().items():
        written += write_bytes(site_src / rel, data, layout.root)
    keep = set(pages) | {f"{DOWNLOADS_FOLDER}/{f.name}" for f in files}
    removed = _prune(layout.root, site_src, keep)
    bank_downloads.register(
        layout, {f"{DOWNLOADS}/{f.name}": f.sha256 for f in files if f.group == "bank"}
    )
    published = [v.volume.publication_date for v in pub.volumes if v.id not in drafts]
    bank_downloads.register_ledgers(layout, max(published, default=None))
    _register_archives(layout, files, drafts)
    return Generated(pub, len(pages), len(files), written, removed)


def build_site(
    layout: Layout,
    out: Path | None = None,
    build: bool = True,
    progress: Progress | None = None,
    drafts: tuple[str, ...] = (),
    loaded: Mapping[str, VolumeData] | None = None,
) -> SiteResult:
    """Generate the site's pages and downloads, then build it with MkDocs (strict).

    Args:
        layout: The publication root.
        out: Where to build [default: ``ROOT/site``].
        build: Run MkDocs after generating (False: only write under ``site_src/``).
        progress: Called with a short description of each step.
        drafts: Volumes whose watermarked pages are shown too.
        loaded: Volumes already read publicly, handed on to ``generate``.

    Returns:
        What was generated, written and built.

    Raises:
        InputError: An input or ``mkdocs.yml`` cannot be read, a frozen file is missing
            or changed, or the demonstration banner contradicts the data.
        CheckFailed: A page has a bare number or cites an unknown figure, a published
            bank download would change, or MkDocs reported a warning.
    """
    started = time.perf_counter()
    done = generate(layout, progress, drafts, loaded)
    generated = time.perf_counter() - started
    target: Path | None = None
    if build:
        if progress is not None:
            progress("mkdocs build --strict")
        # Not resolved: a symlinked site/ must be refused, not followed.
        target = Path(os.path.abspath(out)) if out is not None else layout.site_dir
        base = layout.root if target.is_relative_to(layout.root) else target.parent
        pub = done.publication
        with confine.fresh_dir(base, target) as scratch:
            mkdocs_run.run(layout.root, scratch, pub.epoch(), pub.demonstration)
    return SiteResult(
        volumes=tuple(pv.id for pv in done.publication.volumes),
        pages=done.pages,
        downloads=done.downloads,
        written=done.written,
        removed=done.removed,
        out=target,
        generate_seconds=generated,
        build_seconds=time.perf_counter() - started - generated,
    )


__all__ = [
    "Generated",
    "SiteResult",
    "build_site",
    "generate",
    "generated_pages",
    "theme_files",
]
