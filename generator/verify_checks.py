"""The integrity and authenticity checks of ``probepress verify``, over a view read in place.

A *view* is a publication root or a built site, inventoried by ``generator.inventory``
(nothing copied, nothing followed). Paths in the records are root-relative; a built site
is read through ``generator.release.site_path``, the same plan that wrote it. Files are
opened only when the inventory found them regular and within bounds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from generator import fingerprints
from generator.errors import ProbepressError, Problem, UsageError
from generator.hashing import Drift, drift
from generator.inventory import Entry, Inventory, scan
from generator.models.release import Release, ReleaseLedger, Signature, SiteManifest
from generator.progress import Progress
from generator.release import (
    SiteLayout,
    load_ledger,
    load_manifest,
    load_release_file,
    site_path,
    sums_places,
    unsealed,
)
from generator.store import Layout
from generator.store.cut import current_digests
from generator.store.paths import (
    BANK,
    BUILT_MANIFEST,
    BUNDLES,
    DOWNLOADS_FOLDER,
    FINGERPRINT_REGISTRY,
    MANIFEST,
    PUBLISHED_AREAS,
    RELEASE_FILE,
    RELEASE_LEDGER,
    SITE,
    SUMS,
    SUMS_FILE,
    TEMPLATES,
    VOLUMES,
    release_rel,
)
from generator.trust import Trust, fingerprint, signature_problem

READER_FIX = (
    "this copy is not what was published: fetch it again from the publisher and compare "
    "it with SHA256SUMS; if it still differs, tell the publisher"
)
"""What a reader holding a publication can do about a file that is not what it should be."""
PUBLISHER_FIX = "the publication does not agree with itself: tell the publisher"
"""What a reader can do when the publisher's own records disagree."""
Kind = Literal["integrity", "recomputed", "authenticated"]
"""The question a verify problem fails, which is its rule."""
T = TypeVar("T")
ROOT_AREAS = (*PUBLISHED_AREAS, BANK, BUNDLES, TEMPLATES)


@dataclass
class View:
    """A publication read in place: a root, or a built site seen through SITE_PLACES."""

    base: Path
    site: bool
    inventory: Inventory
    layout: Layout
    findings: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)

    def locate(self, rel: str) -> str | None:
        """Where the root file ``rel`` is in this view (None: a site does not ship it)."""
        return site_path(rel) if self.site else rel

    def entry(self, rel: str) -> Entry | None:
        """The inventory entry of root file ``rel``, if present and regular."""
        place = self.locate(rel)
        return None if place is None else self.inventory.files.get(place)

    def shown(self, rel: str) -> str:
        """How to name root file ``rel`` in a message."""
        return self.locate(rel) or rel

    def readable(self, rel: str) -> bool:
        """Whether root file ``rel`` may be opened (a regular file within bounds)."""
        return self.entry(rel) is not None

    def unreadable(self, rel: str) -> bool:
        """Whether ``rel`` is there but not a readable regular file (already a finding)."""
        return self.odd_at(self.shown(rel))

    def odd_at(self, place: str) -> bool:
        """Whether the view's ``place`` is there but not a readable regular file."""
        return any(o.path == place for o in self.inventory.odd)

    def drift(
        self, recorded: Iterable[tuple[str, T]], current: Callable[[str], T | None]
    ) -> list[Drift]:
        """``hashing.drift`` over places of the view; what is odd there is already a
        finding, never also missing."""
        return drift(((p, v) for p, v in recorded if not self.odd_at(p)), current)

    def sha256(self, rel: str) -> str | None:
        """SHA-256 of root file ``rel`` as inventoried (None: not there or not readable)."""
        found = self.entry(rel)
        return None if found is None else found.sha256

    def sha256_at(self, place: str) -> str | None:
        """SHA-256 of the view's ``place`` as inventoried (None: not there or not readable)."""
        found = self.inventory.files.get(place)
        return None if found is None else found.sha256

    def missing(self, rel: str) -> bool:
        """Whether root file ``rel`` is not there at all (neither readable nor odd)."""
        return not self.readable(rel) and not self.unreadable(rel)

    def path(self, rel: str) -> Path:
        """The file of root file ``rel`` in this view."""
        return self.base / self.shown(rel)

    def place(self, rel: str) -> str:
        """The view's name of ``rel``, a path relative to the layout (a built site's
        readers see ``downloads/``, not the publisher's ``site_src/``)."""
        return Path(os.path.relpath(self.layout.root / rel, self.base)).as_posix()

    def add(
        self,
        what: str,
        message: str,
        kind: Kind = "integrity",
        *,
        fix: str | None = None,
        line: int | None = None,
        cause: str | None = None,
    ) -> None:
        """Record a finding about ``what`` (a path, a figure or a volume); an integrity
        finding's fix defaults to the reader's (``READER_FIX``)."""
        if fix is None and kind == "integrity":
            fix = READER_FIX
        self.findings.append(Problem(what, line, kind, message, fix, cause=cause))


def open_view(path: Path) -> View:
    """The root or built site at ``path``, inventoried in place.

    Raises:
        UsageError: ``path`` is neither.
    """
    if (path / BUNDLES).is_dir() and (path / BANK).is_dir():
        layout = Layout.at(path, path / ".private", cache=False)
        view = View(path, False, scan(path, ROOT_AREAS), layout)
    elif (path / DOWNLOADS_FOLDER).is_dir():
        layout = SiteLayout.at(path / DOWNLOADS_FOLDER, path / ".no-private-store", cache=False)
        view = View(path, True, scan(path, ("",)), layout)
    else:
        raise UsageError(
            f"{path} is neither a publication root (bank/, bundles/) nor a built site (downloads/)"
        )
    for odd in view.inventory.odd:
        view.add(odd.path, f"{odd.what}; not read")
    return view


@dataclass
class Evidence:
    """What says a volume was published, and its release when there is one."""

    release: Release | None = None
    reasons: list[str] = field(default_factory=list)


def check_publication(view: View, trust: Trust | None, step: Progress) -> list[str]:
    """Run every integrity and authenticity check; return the published volumes."""
    step("records")
    frozen = _frozen(view)
    ledger = _read(view, RELEASE_LEDGER, lambda p, s: load_ledger(p.parent, p.name))
    manifest = _read(view, MANIFEST, load_manifest)
    evidence = _evidence(view, frozen, ledger, manifest)
    published = sorted(v for v, e in evidence.items() if e.reasons)
    for volume, found in sorted(evidence.items()):
        if not found.reasons:
            view.notes.append(f"{volume}: not published yet (no release.json, nothing registered)")
        elif found.release is None:
            view.add(
                view.shown(release_rel(volume)),
                f"is missing, though {' and '.join(found.reasons)} "
                f"{'shows' if len(found.reasons) == 1 else 'show'} {volume} was published",
            )
        else:
            _check_release(view, found.release, ledger, trust)
    view.checked["releases"] = sum(e.release is not None for e in evidence.values())
    step("SHA256SUMS")
    _check_sums(view, required=bool(published))
    if published and view.missing(FINGERPRINT_REGISTRY):
        shown = view.shown(FINGERPRINT_REGISTRY)
        view.add(shown, "the fingerprint registry is missing (a deleted ledger)")
    step("site manifest")
    _check_manifest(view, manifest, ledger, trust, required=bool(published))
    return published


def _read(view: View, rel: str, loader: Callable[[Path, str], object]) -> object:
    """``loader(path, shown)`` when ``rel`` is readable; findings instead of errors."""
    if not view.readable(rel):
        return None
    try:
        return loader(view.path(rel), view.shown(rel))
    except ProbepressError as exc:
        view.add(view.shown(rel), exc.render(3))
        return None


def _frozen(view: View) -> dict[str, fingerprints.FrozenFile]:
    """The fingerprint registry's entries, each checked against the files."""
    if not view.readable(FINGERPRINT_REGISTRY):
        return {}
    try:
        frozen = fingerprints.load_frozen(view.layout)
    except ProbepressError as exc:
        view.add(view.shown(FINGERPRINT_REGISTRY), exc.render(3))
        return {}
    view.checked["frozen_files"] = len(frozen)
    recorded = ((rel, e.sha256) for rel, e in frozen.items() if not view.unreadable(rel))
    for found in drift(recorded, view.sha256):
        what = "is missing" if found.change == "missing" else "changed after it was published"
        view.add(view.shown(found.path), f"frozen file {what}")
    return frozen


def _evidence(
    view: View,
    frozen: dict[str, fingerprints.FrozenFile],
    ledger: object,
    manifest: object,
) -> dict[str, Evidence]:
    """Every volume the view mentions, with what says it was published."""
    out = {v: Evidence() for v in view.layout.volume_ids()}
    prefix = view.shown(f"{VOLUMES}/")
    for place in view.inventory.files:
        parts = place.removeprefix(prefix).split("/")
        if place.startswith(prefix) and len(parts) == 2 and parts[1] == RELEASE_FILE:
            out.setdefault(parts[0], Evidence())
    for volume, found in out.items():
        release = _read(view, release_rel(volume), load_release_file)
        if isinstance(release, Release):
            found.release = release
            found.reasons.append("its release.json")
        if any(e.volume == volume for e in frozen.values()):
            found.reasons.append(f"its frozen files in {view.shown(FINGERPRINT_REGISTRY)}")
        if isinstance(ledger, ReleaseLedger) and volume in ledger.volumes:
            found.reasons.append(f"{view.shown(RELEASE_LEDGER)}")
        if isinstance(manifest, SiteManifest) and any(
            p.startswith(f"{VOLUMES}/{volume}/") for p in manifest.files
        ):
            found.reasons.append("the site manifest")
    return out


def _check_signature(
    view: View, what: str, record: Release | SiteManifest, trust: Trust | None
) -> Signature | None:
    """Self-consistency always (integrity); a trusted key when trust is given."""
    signature = record.signature
    if signature is not None:
        problem = signature_problem(record, signature)
        if problem:
            view.add(what, problem)
    if trust is not None:
        refused = trust.judge(signature)
        if refused:
            view.add(what, refused, "authenticated")
        elif signature is not None:
            view.notes.append(f"{what}: signed by {trust.who(signature)}")
    return signature


def _check_release(view: View, release: Release, ledger: object, trust: Trust | None) -> None:
    """A volume's release: its signature, its ledger entry, its inputs and outputs."""
    where = view.shown(release_rel(release.volume))
    signature = _check_signature(view, where, release, trust)
    recorded = ledger.volumes.get(release.volume) if isinstance(ledger, ReleaseLedger) else None
    if recorded is not None and signature is None:
        view.add(
            where,
            f"is unsigned, but {view.shown(RELEASE_LEDGER)} records it was published signed by "
            f"{recorded.signed_by} (a downgrade)",
        )
    elif recorded is not None and signature is not None:
        if fingerprint(signature.public_key) != recorded.signed_by:
            view.add(where, f"is signed by another key than {view.shown(RELEASE_LEDGER)} records")
    elif signature is not None and view.missing(RELEASE_LEDGER):
        ledger_at = view.shown(RELEASE_LEDGER)
        view.add(ledger_at, f"the release ledger is missing, yet {where} is signed")
    files = [
        (place, digest)
        for path, digest in sorted({**release.inputs, **release.outputs}.items())
        # templates are inputs a built site does not ship
        if (place := view.locate(path)) is not None
    ]
    for found in view.drift(files, current_digests(view, release)):
        if found.change == "missing":
            view.add(found.path, f"is missing (listed in {where})")
        else:
            view.add(found.path, f"differs from {where}")


def _check_sums(view: View, *, required: bool) -> None:
    """Every ``SHA256SUMS`` line against the file it names, read in place."""
    shown = view.shown(SUMS)
    if not view.readable(SUMS):
        if required and not view.unreadable(SUMS):
            view.add(shown, "is missing (a deleted ledger): the downloads are covered by nothing")
        return
    folder = shown.removesuffix(SUMS_FILE)
    listed: list[tuple[str, str]] = []
    count = 0
    text = view.path(SUMS).read_bytes().decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), start=1):
        digest, _, name = line.partition("  ")
        name = name.lstrip("*")
        parts = name.split("/")
        if not name or len(digest) != 64 or name.startswith("/") or ".." in parts:
            view.add(f"{shown}:{number}", "not a sha256sum line inside the downloads")
        else:
            listed.extend((place, digest) for place in _sums_places(view, folder, name))
            count += 1
    for found in view.drift(listed, view.sha256_at):
        if found.change == "missing":
            view.add(found.path, "is listed in SHA256SUMS but missing")
        else:
            view.add(found.path, "does not match its SHA256SUMS line")
    view.checked["downloads"] = count


def _sums_places(view: View, folder: str, name: str) -> list[str]:
    """The files a ``SHA256SUMS`` line speaks for (in a root: ``release.sums_places``)."""
    copy = folder + name
    if view.site:
        return [copy]
    return sums_places(name, built=copy in view.inventory.files or view.odd_at(copy))


def _check_manifest(
    view: View, manifest: object, ledger: object, trust: Trust | None, *, required: bool
) -> None:
    """The site manifest: signed as the ledger says, covering every file exactly."""
    shown = view.shown(MANIFEST)
    if not isinstance(manifest, SiteManifest):
        if not view.unreadable(MANIFEST) and (required or trust is not None):
            view.add(shown, "the site manifest is missing: the published files are covered by none")
        if trust is not None:
            view.add(shown, "no signed site manifest: nothing is authenticated", "authenticated")
        return
    signature = _check_signature(view, shown, manifest, trust)
    if signature is None and isinstance(ledger, ReleaseLedger) and ledger.volumes:
        ledger_at = view.shown(RELEASE_LEDGER)
        view.add(shown, f"is unsigned, but {ledger_at} records signed volumes (a downgrade)")
    expected = _expected(view, manifest)
    view.checked["manifest_files"] = len(expected)
    own = {view.shown(MANIFEST), view.shown(BUILT_MANIFEST)}
    areas = tuple(f"{a}/" for a in PUBLISHED_AREAS)
    covered = {
        p: e
        for p, e in view.inventory.files.items()
        if p not in own and (view.site or (p.startswith(areas) and not unsealed(p)))
    }
    for found in view.drift(sorted(expected.items()), covered.get):  # size and SHA-256
        if found.change == "missing":
            view.add(found.path, "is listed in the site manifest but missing")
        else:
            view.add(found.path, "differs from the site manifest")
    for place in sorted(set(covered) - set(expected)):
        view.add(place, "is listed in no manifest (not part of the signed publication)")
    copy = view.inventory.files.get(BUILT_MANIFEST)
    if not view.site and copy is not None and copy != view.entry(MANIFEST):
        view.add(BUILT_MANIFEST, f"differs from {MANIFEST}")


def _expected(view: View, manifest: SiteManifest) -> dict[str, Entry]:
    """The manifest's entries in view coordinates (a built site holds only ``site/``)."""
    files = {p: Entry(f.size, f.sha256) for p, f in manifest.files.items()}
    site = f"{SITE}/"
    if view.site:
        return {p.removeprefix(site): e for p, e in files.items() if p.startswith(site)}
    if not any(p.startswith(site) for p in view.inventory.files):
        built = [p for p in files if p.startswith(site)]
        if built:
            view.notes.append(f"{site} is not built here: {len(built)} of its files not checked")
        return {p: e for p, e in files.items() if not p.startswith(site)}
    return files
