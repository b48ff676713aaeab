"""``verify``'s check of the downloads made from other published files.

``SHA256SUMS`` says a download is the file the publisher listed; this says the listed file
is what the publication's own records give: each published volume's tidy leaderboard (CSV
and JSON) is rebuilt from its ``volume.yaml`` and the figures registry, and its bundle
archive's tar from the public bundles, and each must match byte for byte. The archive is
compared decompressed (another zlib may compress the same tar differently), with the
decompression bounded by the size of the expected tar.

A root keeps no archive until a site build makes one (``release.MADE_AT_BUILD``): there,
the archive this Python compresses from the bundles must be the one ``SHA256SUMS`` lists;
under another zlib, the line must name the archive ``figures/downloads.json`` registers
with the same tar (a note says the compressed bytes were not rebuilt).
"""

from __future__ import annotations

from generator.bank_downloads import registered_archives
from generator.errors import ProbepressError
from generator.hashing import sha256_bytes
from generator.models.figures import FiguresRegistry
from generator.models.registries import RegisteredArchive
from generator.models.volume import Volume
from generator.site import archive, tidy
from generator.store.jsonl import Problems, load_document
from generator.store.paths import BUNDLES, DOWNLOAD_REGISTRY, DOWNLOADS, FIGURES_REGISTRY, SUMS
from generator.verify_checks import View

MAX_VOLUME_BYTES = 1 << 20


def _volume(view: View, volume: str) -> Volume | None:
    rel = view.layout.rel(view.layout.volume_file(volume))
    shown = view.shown(rel)
    if not view.readable(rel):
        return None  # missing or odd: already named by the release and manifest checks
    problems = Problems()
    found = load_document(view.path(rel), Volume, shown, problems, MAX_VOLUME_BYTES)
    if found is None:
        view.add(shown, f"cannot rebuild {volume}'s leaderboard downloads: {problems.items[0]}")
    return found


def _compare(view: View, name: str, expected: bytes, why: str) -> None:
    rel = f"{DOWNLOADS}/{name}"
    if view.unreadable(rel):
        return  # already a finding
    if not view.readable(rel):
        view.add(view.shown(rel), f"is missing (every published volume's downloads hold {why})")
    elif view.path(rel).read_bytes() != expected:
        view.add(view.shown(rel), f"differs from {why}")


def _members(view: View, volume: str) -> list[tuple[str, bytes]] | None:
    """The volume's public bundle files as the downloads name them, or None when one of
    them cannot be read (already a finding)."""
    prefix = view.shown(f"{BUNDLES}/{volume}/")
    if any(o.path.startswith(prefix) for o in view.inventory.odd):
        return None
    out = []
    for place in sorted(view.inventory.under(prefix)):
        rest = place.removeprefix(prefix)
        if not rest.rsplit("/", 1)[-1].startswith("."):
            out.append((f"{BUNDLES}/{volume}/{rest}", (view.base / place).read_bytes()))
    return out


def _check_archive(view: View, volume: str) -> None:
    members = _members(view, volume)
    if members is None:
        return
    expected = archive.tar_bytes(members)
    name = archive.archive_name(volume)
    rel = f"{DOWNLOADS}/{name}"
    if view.unreadable(rel):
        return
    if not view.site and view.missing(rel):
        _check_unbuilt(view, volume, expected)
        return
    if not view.readable(rel):
        view.add(view.shown(rel), "is missing: every published volume's downloads include it")
        return
    try:
        found = archive.read_tar(view.path(rel).read_bytes(), view.shown(rel), len(expected))
    except ProbepressError as exc:
        view.add(view.shown(rel), exc.render(3))
        return
    if found != expected:
        view.add(
            view.shown(rel),
            f"does not hold exactly the public bundles of {volume} (names, bytes and fixed "
            "metadata)",
        )


def _listed(view: View, name: str) -> str | None:
    """The SHA-256 that ``SHA256SUMS`` lists for download ``name`` (None: not listed, or
    no readable ``SHA256SUMS``, which the integrity checks name)."""
    if not view.readable(SUMS):
        return None
    for line in view.path(SUMS).read_bytes().decode("utf-8", "replace").splitlines():
        digest, _, listed = line.partition("  ")
        if listed.lstrip("*") == name:
            return digest
    return None


def _registered(view: View, name: str) -> RegisteredArchive | None:
    """The download registry's record of archive ``name`` (None: none, or the registry is
    not a readable regular file, which the holdout gate names)."""
    if not view.readable(DOWNLOAD_REGISTRY):
        return None
    try:
        return registered_archives(view.layout).get(f"{DOWNLOADS}/{name}")
    except ProbepressError:
        return None


def _check_unbuilt(view: View, volume: str, tar: bytes) -> None:
    """A root whose ``volume`` archive is not built: the ``SHA256SUMS`` line against the
    archive compressed here, or, under another zlib, against the registered one."""
    name = archive.archive_name(volume)
    listed = _listed(view, name)
    if listed is None:
        if view.readable(SUMS):
            view.add(view.shown(SUMS), f"lists no {name}: every published volume has one")
        return
    made = sha256_bytes(archive.compress(tar))
    if made == listed:
        return
    known = _registered(view, name)
    here = archive.zlib_version()
    if known is not None and known.sha256 == listed and known.tar_sha256 == sha256_bytes(tar):
        view.notes.append(
            f"{view.shown(f'{DOWNLOADS}/{name}')} is not built here and zlib {here} compresses "
            f"differently from the publisher's {known.zlib}: its SHA256SUMS line was checked "
            "through the tar the download registry records"
        )
        return
    view.add(
        view.shown(f"{DOWNLOADS}/{name}"),
        f"is not built here, and the public bundles of {volume} compressed with zlib {here} "
        "do not give the archive SHA256SUMS lists, nor does the download registry record "
        "that archive with the bundles' tar",
    )


def _named(view: View, places: tuple[str, ...]) -> bool:
    """Whether an earlier finding already names one of ``places`` (a file or a folder)."""
    return any(p.path == w or p.path.startswith(w) for p in view.findings for w in places)


def check_derived(view: View, published: list[str], registry: FiguresRegistry | None) -> None:
    """Rebuild every published volume's leaderboards and archive and compare them.

    ``registry`` is the view's figures registry as read (None: not a readable file, which
    is already a finding, or it does not read, which the recomputation names).

    Runs after the integrity checks: when one of them already named an input of a
    download (a changed bundle file, volume file or registry), that is the root cause, and
    the download built from it is not reported again as a second finding.
    """
    if registry is None:
        return
    registry_at = view.shown(FIGURES_REGISTRY)
    for volume in published:
        volume_at = view.shown(view.layout.rel(view.layout.volume_file(volume)))
        found = _volume(view, volume)
        if found is not None and not _named(view, (registry_at, volume_at)):
            own = {k: f for k, f in registry.figures.items() if k.startswith(f"{volume}/")}
            why = f"the leaderboard that {volume}'s volume file and figures give"
            for name, data in tidy.downloads_of(found, own).items():
                _compare(view, name, data, why)
        if not _named(view, (view.shown(f"{BUNDLES}/{volume}/"),)):
            _check_archive(view, volume)
    view.checked["derived_downloads"] = 3 * len(published)
