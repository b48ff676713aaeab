"""Generated listing pages: the results overview, the archive, downloads, the changelog."""

from __future__ import annotations

from collections import Counter

from generator import bank_downloads, canary
from generator.hashing import sha256_bytes
from generator.site.downloads import Download
from generator.site.markup import admonition, code, link, page, size, table, text
from generator.site.published import LEADERBOARD, Publication, PublishedVolume
from generator.site.results import frozen_links
from generator.site.reuse import licences_section
from generator.site.snippets import pandas_section
from generator.site.status import status_section
from generator.store.bank import Bank
from generator.store.paths import FINGERPRINT_REGISTRY, RELEASE_FILE, SUMS_FILE, VOLUMES
from generator.words import counted

DOWNLOAD_DEMO = (
    "The example publication is demonstration data: a synthetic bank and synthetic "
    "models written by `probepress demo`. The files are real in form, not in content."
)


def _newest_first(pub: Publication) -> list[PublishedVolume]:
    return sorted(pub.volumes, key=lambda pv: pv.id, reverse=True)


def volumes_index(pub: Publication) -> str:
    """``volumes/index.md``: every published volume, newest first."""
    blocks = []
    for pv in _newest_first(pub):
        v = pv.volume
        board = frozen_links(pv, LEADERBOARD, "leaderboard", base=f"{pv.id}/")
        blocks.append(
            f"## {link(v.title, f'{pv.id}/index.md')}\n\n"
            f"Published {v.publication_date} · bank {text(v.bank_version)} · "
            f"{len(v.ranked())} models"
            + (" · demonstration data" if v.demonstration else "")
            + f"\n\n- {link('Results', f'{pv.id}/index.md')} · "
            f"{link('Jury', f'{pv.id}/jury.md')}\n- Frozen: {board}"
        )
    if not blocks:
        blocks = ["No volume is published yet."]
    return page(
        "Results",
        "Each volume is one published round: a bank version, a frozen protocol, a jury, "
        "its candidates and anchors. Its leaderboard and jury cards are frozen files, "
        "linked below with their fingerprints; every file ever published is in "
        f"{link('the archive', 'archive.md')}.",
        *blocks,
    )


def archive_page(pub: Publication) -> str:
    """``volumes/archive.md``: every frozen file of every volume with its SHA-256."""
    root = pub.layout.root
    blocks = []
    for pv in _newest_first(pub):
        rows = []
        for rel, entry in sorted(pv.frozen.items()):
            name = rel.removeprefix(f"{VOLUMES}/")
            rows.append(
                [
                    link(name, name),
                    text(entry.kind.upper()),
                    text(size((root / rel).stat().st_size)),
                    code(entry.sha256),
                ]
            )
        release = pub.layout.release_file(pv.id)
        if release.is_file():
            name = f"{pv.id}/{RELEASE_FILE}"
            data = release.read_bytes()
            shown = [link(name, name), "release manifest", text(size(len(data)))]
            rows.append([*shown, code(sha256_bytes(data))])
        blocks.append(
            f"## {text(pv.volume.title)}\n\n"
            + table(["File", "Kind", "Size", "SHA-256"], rows, "llrl")
        )
    return page(
        "Archive",
        "Every frozen file ever published, with the SHA-256 of its bytes as registered "
        f"in `{FINGERPRINT_REGISTRY}`, and each volume's release manifest when it was "
        "published with `probepress publish`. Published files never change: a correction is "
        "a new volume. Each PDF prints its HTML's fingerprint on every page. To check a "
        "file you downloaded, compare `sha256sum FILE` with its row here, or run "
        "`probepress verify` on a checkout.",
        *(blocks or ["Nothing is published yet."]),
    )


def _download_rows(files: list[Download], group: str) -> list[list[str]]:
    return [
        [link(f.name, f.name), text(size(len(f.data))), code(f.sha256)]
        for f in files
        if f.group == group
    ]


_SECTIONS = [
    (
        "Public bank",
        "One file per bank version, each holding exactly the public items of that "
        "version, one JSON object a line, without reference answers (the bank sources "
        "carry public items' references), each line with the bank's canary GUID "
        "(`canary`: search training data for it) and the item's publication date "
        "(`published`: the release date of the version that added it). Held-out items are "
        "never published; a file never changes once published. Licence: see Licences "
        f"below. History and every item's date: {link('bank changelog', 'changelog.md')}.",
        "bank",
    ),
    (
        "Bank sources",
        "The bank folder exactly as the figures cite it (manifest, public items with "
        "their reference and known-wrong answers, held-out index with ids, metadata and "
        "keyed text commitments only: held-out references stay private), so every figure "
        "recomputes from these downloads with `probepress verify`. These grow with "
        "each bank version.",
        "sources",
    ),
    (
        "Registries",
        "`figures.json` holds every published number with the SHA-256 of its sources; "
        "`fingerprints.json` holds every frozen file ever published.",
        "registries",
    ),
    (
        "Judge calibration corpus",
        "Each calibrated volume's calibration set: per graded unit, the public item's "
        "question, the candidate's answer, every human's grade and every calibrated "
        "judge's grade. Held-out items appear by id only.",
        "calibration",
    ),
    (
        "Tidy leaderboards",
        "Each published volume's leaderboard as data, CSV and JSON: one row per model and "
        "metric (every registered figure of every candidate and anchor) with its value, "
        "both intervals, the number of draws and the method, exactly as the figures "
        "registry holds them. Every column: "
        f"{link('data dictionary', 'dictionary.md')}.",
        "leaderboards",
    ),
    (
        "Bundle archives",
        "Each published volume's public bundles (the files under Public bundles below, "
        "with the same names and bytes) in one `.tar.gz` with fixed metadata: members "
        "sorted by name, times and owners zeroed, so the same bundles always give the "
        "same archive.",
        "archives",
    ),
    (
        "JSON Schemas",
        "The schema of every file format; every field explained: "
        f"{link('data dictionary', 'dictionary.md')}.",
        "schemas",
    ),
    (
        "Public bundles",
        "Each published volume's `volume.yaml` and scan bundles: the raw public "
        "records every number is computed from. Held-out prompts and responses are "
        "not in them (held-out responses appear only as SHA-256).",
        "bundles",
    ),
]
"""Sections of the downloads page: title, introduction, download group."""


def downloads_page(pub: Publication, files: list[Download]) -> str:
    """``downloads/index.md``: every download with its size and SHA-256."""
    header = ["File", "Size", "SHA-256"]
    sections = _SECTIONS
    blocks = [
        f"## {title}\n\n{intro}\n\n" + table(header, _download_rows(files, group), "lrl")
        for title, intro, group in sections
        if group != "bundles" and any(f.group == group for f in files)
    ]
    bundles = [f for f in files if f.group == "bundles"]
    if bundles:
        title, intro, _ = sections[-1]
        blocks.append(f"## {title}\n\n{intro}")
        for pv in sorted(pub.volumes, key=lambda pv: pv.id, reverse=True):
            mine = [f for f in bundles if f.name.startswith(f"bundles/{pv.id}/")]
            blocks.append(
                f"### {text(pv.id)}\n\n" + table(header, _download_rows(mine, "bundles"), "lrl")
            )
    others = _download_rows(files, "other")
    if others:
        blocks.append("## Other files\n\n" + table(header, others, "lrl"))
    check = (
        f"## Checking the files\n\n{link(SUMS_FILE, SUMS_FILE)} lists the SHA-256 of every file "
        "above in `sha256sum` format. Download the folder and run `sha256sum -c SHA256SUMS` "
        "inside it."
    )
    demo = [admonition("warning", "Demonstration data", DOWNLOAD_DEMO)] if pub.demonstration else []
    reuse = [licences_section(pub.bank), pandas_section(pub, files)]
    return page("Downloads", *demo, *blocks, check, *reuse)


def changelog_page(pub: Publication, bank: Bank, sums: dict[str, str]) -> str:
    """``downloads/changelog.md``: the bank's versions, newest first."""
    every = [*bank.public.values(), *bank.heldout.values()]
    blocks = []
    for version in reversed(bank.manifest.versions):
        added = [m for m in every if m.added_in == version.id]
        held = sum(bank.is_heldout(m.id) for m in added)
        cats = Counter(m.category for m in added)
        lines = [
            f"## {text(version.id)}",
            "",
            f"Released {version.released}." + (f" {text(version.notes)}" if version.notes else ""),
            "",
            f"- Adds {counted(len(added), 'item')} ({len(added) - held} public, {held} held out)"
            + (
                "; these are the core, never removed or reworded"
                if version.id == bank.manifest.version_ids()[0]
                else ""
            )
            + ".",
        ]
        if cats:
            lines.append(
                "- By category: "
                + ", ".join(f"{text(c)} {n}" for c, n in sorted(cats.items()))
                + "."
            )
        if version.retired:
            lines.append("- Retires: " + ", ".join(code(i) for i in version.retired) + ".")
        name = bank_downloads.public_jsonl_name(version.id)
        lines.append(f"- Download: {link(name, name)} {code('sha256:' + sums[name])}")
        blocks.append("\n".join(lines))
    return page(
        "Bank changelog",
        f"{text(bank.manifest.name)}. Versions only add items; the items of the first "
        "version are the core. Retired items leave the active bank but stay in the "
        "downloads.",
        _canary_section(bank),
        *blocks,
        status_section(bank),
        _dates_section(bank),
    )


def _canary_section(bank: Bank) -> str:
    """The bank's canary GUID and what to do with it (``generator.canary``)."""
    guid = bank.manifest.canary
    if guid is None:  # the site refuses to build then (generator.canary.refusals)
        return "## Canary\n\nThe bank declares no canary GUID."
    return (
        f"## Canary\n\nEvery public bank file carries this GUID: {code(guid)}. It is a "
        "field of every line of the public bank downloads and of `bank/public.jsonl`, "
        "it is declared in `bank.yaml`, and it is on this page. " + text(canary.SEARCH)
    )


def _dates_section(bank: Bank) -> str:
    """Every item's publication date (public and held out, no text), oldest first."""
    every = [*bank.public.values(), *bank.heldout.values()]
    when = {v.id: v.released for v in bank.manifest.versions}
    rows = [
        [
            code(m.id),
            text(m.category),
            "held out" if bank.is_heldout(m.id) else "public",
            text(m.added_in),
            text(when[m.added_in].isoformat()),
        ]
        for m in sorted(every, key=lambda m: (when[m.added_in], m.id))
    ]
    return (
        "## Publication dates\n\nEach item's publication date is the release date of the "
        "bank version that added it: the first day its text could have been public. A "
        "model whose knowledge cut-off is before that date cannot have trained on the "
        "item from this bank; filter by it with the `published` field of the public bank "
        "downloads. Held-out items are listed with their date only: their text is never "
        "published (models reach it only when they are run, through their providers).\n\n"
        + table(["Item", "Category", "Kind", "Added in", "Published"], rows)
    )
