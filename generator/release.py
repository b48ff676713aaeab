"""What a release is made of, where its files live, and how it is sealed.

Three records make a publication checkable (DESIGN §10):

- each volume's ``site_src/volumes/<volume>/release.json`` (:class:`Release`): its
  inputs, frozen outputs, figures digest and gate verdicts;
- the **site manifest** ``site_src/downloads/release-manifest.json``
  (:class:`SiteManifest`, copied to ``site/downloads/``): path, size and SHA-256 of every
  file under ``figures/``, ``site_src/`` and the built ``site/``, written after the site
  is built, so generated pages, the search index and theme assets are covered too
  (``site_src/``'s UNSEALED folders, which every build writes from elsewhere and git
  ignores, are covered by what they became under ``site/``);
- the **release ledger** ``figures/releases.json`` (:class:`ReleaseLedger`): which key
  signed each volume, so an unsigned release of a once-signed volume is a downgrade.

This module is the whole of the release format that ``verify`` depends on: it never
touches staging, the journal, git, or a key file (a loaded key object is passed in).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from generator import __version__, figures
from generator.canonical import dumps, write_bytes, write_json
from generator.errors import CheckFailed, InputError, Problem
from generator.hashing import sha256_bytes, sha256_file
from generator.inventory import scan
from generator.models.base import Record
from generator.models.release import (
    LedgerEntry,
    ManifestFile,
    Release,
    ReleaseLedger,
    Signature,
    SiteManifest,
)
from generator.store.cut import bank_cut
from generator.store.jsonl import Problems, load_document
from generator.store.paths import (
    ARCHIVES_FOLDER,
    BANK,
    BANK_LEDGERS,
    BANK_SOURCES,
    BUILT_MANIFEST,
    BUNDLES,
    DOWNLOADS,
    DOWNLOADS_FOLDER,
    FIGURES,
    FIGURES_REGISTRY,
    FINGERPRINT_REGISTRY,
    MANIFEST,
    PUBLISHED_AREAS,
    RELEASE_LEDGER,
    SITE,
    SITE_SRC,
    Layout,
)
from generator.trust import fingerprint, signed_bytes

MAX_RECORD_BYTES = 64 << 20
Signed = TypeVar("Signed", Release, SiteManifest)
R = TypeVar("R", bound=Record)

# -- the one plan of where a root's files appear in a built site -----------------------

SITE_PLACES = (
    (f"{SITE_SRC}/", ""),
    (f"{BANK}/", f"{DOWNLOADS_FOLDER}/{BANK}/"),
    (f"{BUNDLES}/", f"{DOWNLOADS_FOLDER}/{BUNDLES}/"),
    (f"{FIGURES}/", f"{DOWNLOADS_FOLDER}/"),
)
"""Root-relative prefix -> site-relative prefix. ``site/downloads.py`` names its copies
with it and ``verify`` reads a built site through it, so the two never disagree."""
SHIPPED_REGISTRIES = (FIGURES_REGISTRY, FINGERPRINT_REGISTRY, RELEASE_LEDGER)
"""The files of ``figures/`` a built site ships (``downloads.json`` is the publisher's)."""
MADE_AT_BUILD = (f"{ARCHIVES_FOLDER}/",)
"""Download folders every site build fills from root files (each volume's bundle archive)
and git never holds: a root without them has their ``SHA256SUMS`` lines checked by
rebuilding them (``generator.verify_derived``)."""


def site_path(rel: str) -> str | None:
    """Where the root file ``rel`` appears in a built site (None: it is not shipped)."""
    if rel.startswith(f"{FIGURES}/") and rel not in SHIPPED_REGISTRIES:
        return None
    if rel.startswith(f"{SITE_SRC}/") and rel.endswith(".md"):
        return None  # pages are rendered to HTML, not copied
    for prefix, place in SITE_PLACES:
        if rel.startswith(prefix):
            return place + rel.removeprefix(prefix)
    return None


def download_name(rel: str) -> str:
    """The name inside ``downloads/`` of a root file the site ships there."""
    place = site_path(rel)
    if place is None or not place.startswith(f"{DOWNLOADS_FOLDER}/"):
        raise ValueError(f"{rel} is not shipped under {DOWNLOADS_FOLDER}/")
    return place.removeprefix(f"{DOWNLOADS_FOLDER}/")


COPIED_AT_BUILD = {
    download_name(rel): rel
    for rel in (*BANK_SOURCES, *BANK_LEDGERS, f"{BUNDLES}/", *SHIPPED_REGISTRIES)
}
"""Download name -> root original of every download that is a byte copy of a root file
(``/``-ended: a folder). Every site build writes the copies and git never holds them (a
root keeps each file once): a root without them checks their ``SHA256SUMS`` lines
against the originals."""
UNSEALED = (
    f"{SITE_SRC}/assets",
    f"{DOWNLOADS}/{ARCHIVES_FOLDER}",
    *(f"{DOWNLOADS}/{name}".removesuffix("/") for name in COPIED_AT_BUILD),
    f"{SITE_SRC}/overrides",
)
"""What of ``site_src/`` every site build writes from elsewhere (the tool's theme files,
the copies of ``COPIED_AT_BUILD``, the archives of ``MADE_AT_BUILD``) and git ignores, so
a clean clone has none of it: the site manifest lists the built copies under ``site/``,
not these, which are neither missing from a clean clone nor extra to a built one."""


def unsealed(rel: str) -> bool:
    """Whether the root file ``rel`` is one the manifest leaves out (UNSEALED)."""
    return any(rel == place or rel.startswith(f"{place}/") for place in UNSEALED)


def copy_source(name: str) -> str | None:
    """The root original of download ``name`` when its copy is written at build time
    (``COPIED_AT_BUILD``), else None."""
    for copy, original in COPIED_AT_BUILD.items():
        if name == copy or (copy.endswith("/") and name.startswith(copy)):
            return original + name.removeprefix(copy)
    return None


def made_at_build(name: str) -> bool:
    """Whether download ``name`` is made by every site build and never committed."""
    return name.startswith(MADE_AT_BUILD)


def sums_places(name: str, *, built: bool) -> list[str]:
    """What a root's ``SHA256SUMS`` line for download ``name`` speaks for (root-relative):
    the download itself; for a copy written at build time (``COPIED_AT_BUILD``), its
    original, and the copy when ``built``; for a file made at build time
    (``MADE_AT_BUILD``), the file when ``built`` (else ``verify`` rebuilds it to check the
    line: ``generator.verify_derived``)."""
    copy = f"{DOWNLOADS}/{name}"
    source = copy_source(name)
    if source is None and not made_at_build(name):
        return [copy]
    return ([source] if source else []) + ([copy] if built else [])


class SiteLayout(Layout):
    """A built site's ``downloads/`` read in place as a publication root: ``bank/`` and
    ``bundles/`` sit where a root has them, the registries directly inside (SITE_PLACES)."""

    @property
    def figures_dir(self) -> Path:
        return self.root


# -- a volume's release ----------------------------------------------------------------


def _files(base: Path) -> Iterator[Path]:
    if base.is_dir():
        yield from sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink())


def volume_inputs(layout: Layout, volume: str) -> dict[str, str]:
    """Every input of ``volume`` (bank, its bundles, templates) with its SHA-256.

    The bank grows after a volume is published, so its manifest and item files are
    recorded as the cut at the volume's bank version (``store.cut.cut_digests``): later
    versions leave them as they were. The bank's append-only ledgers are not among them:
    they grow after every volume, and the part a volume counts (lines dated up to its
    publication date) is held fixed by the download registry
    (``bank_downloads.ledger_problems``), not by a whole-file hash.
    """
    ledgers = {layout.status_ledger, layout.disagreement_ledger}
    paths = [
        *(p for p in _files(layout.bank_dir) if p not in ledgers),
        *_files(layout.volume_dir(volume)),
        *_files(layout.templates_dir),
    ]
    found = {layout.rel(p): p for p in paths}
    cut = bank_cut(found.get, volume)
    return {rel: cut.get(rel) or sha256_file(p) for rel, p in found.items()}


def load_release(layout: Layout, volume: str) -> Release | None:
    """The volume's release manifest, if it was published."""
    path = layout.release_file(volume)
    return _load(path, Release, layout.rel(path))


def _load(path: Path, model: type[R], shown: str) -> R | None:
    if not path.exists() and not path.is_symlink():
        return None
    problems = Problems()
    loaded = load_document(path, model, shown, problems, MAX_RECORD_BYTES)
    if loaded is None:
        raise InputError(f"cannot read {shown}:", problems.items)
    return loaded


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
    folder = layout.volume_pages(volume)
    return {layout.rel(p): sha256_file(p) for p in _files(folder) if p.suffix in (".html", ".pdf")}


def intact(layout: Layout, release: Release) -> bool:
    """Whether the volume's frozen files and figures are still what ``release`` sealed."""
    return (
        volume_outputs(layout, release.volume) == release.outputs
        and volume_figures_sha256(layout, release.volume) == release.figures_sha256
    )


# -- the site stamp: what a no-op publish relies on ------------------------------------

SITE_STAMP = ".probepress-site.json"
"""In ``site/``: the digest of what the site was built from, and the volumes whose
releases were intact then."""


def site_digest(layout: Layout) -> str:
    """Digest of everything the built site is made from (``mkdocs.yml``, ``site_src/``,
    ``figures/``: frozen pages, PDFs, releases, downloads, registries)."""
    parts = [f"probepress {__version__}"]
    for path in [layout.root / "mkdocs.yml", *_files(layout.site_src), *_files(layout.figures_dir)]:
        if path.is_file() and layout.rel(path) != MANIFEST:  # sealed after the stamp
            parts.append(f"{layout.rel(path)} {sha256_file(path)}")
    return sha256_bytes("\n".join(parts).encode("utf-8"))


def stamp_site(layout: Layout) -> None:
    """Write the stamp of the built site: its digest, and every volume whose release is
    :func:`intact` in it (recomputed here, once per publish)."""
    releases = [load_release(layout, v) for v in layout.volume_ids()]
    whole = sorted(r.volume for r in releases if r is not None and intact(layout, r))
    stamp = {"digest": site_digest(layout), "intact": whole}
    write_json(layout.site_dir / SITE_STAMP, stamp, layout.root)


def sealed_intact(layout: Layout) -> set[str]:
    """The volumes whose releases were intact when the site was stamped, if nothing the
    site is made from changed since (then they still are: the same bytes, the same
    probepress); none when the stamp is missing, unreadable or stale."""
    try:
        found = json.loads((layout.site_dir / SITE_STAMP).read_text("utf-8"))
        if found["digest"] == site_digest(layout):
            return {v for v in found["intact"] if isinstance(v, str)}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return set()


# -- signing and the ledger ------------------------------------------------------------


def sign(record: Signed, key: Ed25519PrivateKey) -> Signed:
    """``record`` with its signature (Ed25519 signatures are deterministic)."""
    public = key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    signature = Signature(public_key=public.hex(), value=key.sign(signed_bytes(record)).hex())
    return record.model_copy(update={"signature": signature})


def load_ledger(root: Path, rel: str = RELEASE_LEDGER) -> ReleaseLedger | None:
    """The release ledger at ``root/rel`` (a built site ships it under downloads/)."""
    return _load(root / rel, ReleaseLedger, rel)


def refuse_downgrade(layout: Layout, signing: bool) -> None:
    """Refuse to publish unsigned once any volume was published signed.

    Raises:
        CheckFailed: The ledger records signed volumes and no key was given.
    """
    ledger = load_ledger(layout.root)
    if signing or ledger is None or not ledger.volumes:
        return
    raise CheckFailed(
        "not published: this root was published signed; an unsigned publication would be "
        "a downgrade:",
        [
            Problem(
                RELEASE_LEDGER,
                None,
                "downgrade",
                f"{volume} was signed by {entry.signed_by}",
                "publish with --signing-key (or $PROBEPRESS_SIGNING_KEY)",
            )
            for volume, entry in sorted(ledger.volumes.items())
        ],
    )


def write_release(layout: Layout, release: Release, key: Ed25519PrivateKey | None) -> Release:
    """Sign ``release`` when a key is given, write it, and record its signer in the ledger
    (and the public key under downloads, for readers to fetch and pin out of band)."""
    if key is not None:
        release = sign(release, key)
        public = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        write_bytes(layout.public_key, public, layout.root)
        assert release.signature is not None  # just signed
        ledger = load_ledger(layout.root) or ReleaseLedger(volumes={})
        entries = {**ledger.volumes, release.volume: LedgerEntry(signed_by=_fp(release))}
        text = dumps(ReleaseLedger(volumes=dict(sorted(entries.items()))).model_dump(mode="json"))
        write_bytes(layout.release_ledger, text.encode("utf-8"), layout.root)
    write_bytes(
        layout.release_file(release.volume),
        dumps(release.model_dump(mode="json", exclude_none=True)).encode("utf-8"),
        layout.root,
    )
    return release


def signed_as(
    layout: Layout, releases: Iterable[Release | None], key: Ed25519PrivateKey | None
) -> bool:
    """Whether the standing releases and site manifest carry ``key``'s signature (always
    True without a key: nothing was asked), so that starting to sign is never a no-op."""
    if key is None:
        return True
    wanted = fingerprint(
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )
    manifest = load_manifest(layout.manifest_file, MANIFEST)
    records = [*releases, manifest]
    return all(r is not None and r.signature is not None and _fp(r) == wanted for r in records)


def _fp(record: Release | SiteManifest) -> str:
    assert record.signature is not None
    return fingerprint(record.signature.public_key)


# -- the site manifest -----------------------------------------------------------------


def site_manifest(root: Path) -> SiteManifest:
    """The manifest of every file under ``figures/``, ``site_src/`` and ``site/`` (the
    build's UNSEALED folders of ``site_src/`` aside: ``site/`` holds what they became).

    Raises:
        InputError: Something there is not a regular file (it could not be covered).
    """
    found = scan(root, PUBLISHED_AREAS, skip=frozenset((MANIFEST, BUILT_MANIFEST, *UNSEALED)))
    if found.odd:
        raise InputError(
            "cannot seal the publication:",
            [Problem(o.path, None, "not-regular", o.what) for o in found.odd],
        )
    files = {p: ManifestFile(size=e.size, sha256=e.sha256) for p, e in found.files.items()}
    return SiteManifest(generator=f"probepress {__version__}", files=files)


def write_manifest(root: Path, manifest: SiteManifest) -> None:
    """Write the manifest into ``site_src/downloads/`` and, when built, ``site/downloads/``."""
    data = dumps(manifest.model_dump(mode="json", exclude_none=True)).encode("utf-8")
    write_bytes(root / MANIFEST, data, root)
    if (root / SITE).is_dir():
        write_bytes(root / BUILT_MANIFEST, data, root)


def load_manifest(path: Path, shown: str) -> SiteManifest | None:
    """The site manifest at ``path``, if there is one."""
    return _load(path, SiteManifest, shown)


def load_release_file(path: Path, shown: str) -> Release | None:
    """A release manifest read from ``path`` (a root's or a built site's), if there."""
    return _load(path, Release, shown)
