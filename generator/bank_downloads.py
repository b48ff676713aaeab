"""The public bank downloads: one JSONL per bank version, holding exactly its public items.

Published downloads never change: ``figures/downloads.json`` registers the SHA-256 of
every bank download the site has published, and a build that would give a registered
file other bytes is refused (:func:`refused_changes`); the holdout gate compares the
registered files on disk with it (``generator.hashing.drift``).

The append-only ledgers (``bank/status.jsonl``, ``bank/disagreements.jsonl``) grow, so
the registry keeps the size and SHA-256 of their published lines instead, and the latest
publication date of a volume published with them: :func:`ledger_problems` refuses a
ledger whose published lines were edited, removed or cut, and a later line dated on or
before that date (it would change that volume's figures).

Each volume's bundle archive is made by every site build and never committed; the
registry records the bytes it was published as (:func:`registered_archives`), so that a
build whose zlib compresses the same content differently is refused
(``generator.site.archive``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping

from generator.canary import published_on
from generator.canonical import dumps, dumps_line, write_text
from generator.errors import InputError, Problem
from generator.fingerprints import read_registry
from generator.hashing import sha256_bytes
from generator.models.base import version_slug
from generator.models.registries import (
    DownloadRegistry,
    RegisteredArchive,
    RegisteredDownload,
    RegisteredLedger,
)
from generator.store.bank import Bank
from generator.store.paths import Layout


def public_jsonl_name(version: str) -> str:
    """``v1.2`` -> ``bank_v1_2_public.jsonl``."""
    return f"bank_{version_slug(version)}_public.jsonl"


def public_jsonl(bank: Bank, version: str) -> bytes:
    """The bytes of ``bank_<version>_public.jsonl``: public items of ``version`` by id, each
    with its publication date (``generator.canary.published_on``) and the bank's canary."""
    items = bank.public_items(version)
    dumped = (item.public_dump(published_on(bank.manifest, item.added_in)) for item in items)
    return "".join(dumps_line(data) for data in dumped).encode("utf-8")


def _registry(layout: Layout) -> DownloadRegistry | None:
    """``figures/downloads.json`` read by its model (None before the first publication).

    Raises:
        InputError: The registry exists but cannot be read.
    """
    return read_registry(layout, layout.download_registry, DownloadRegistry, "download registry")


def _current(layout: Layout) -> DownloadRegistry:
    """The registry as it is now (an empty one before the first publication)."""
    return _registry(layout) or DownloadRegistry(files={})


def registered(layout: Layout) -> dict[str, str]:
    """Registered bank downloads: root-relative path -> SHA-256 (empty before the first).

    Raises:
        InputError: The registry exists but cannot be read.
    """
    files = _current(layout).files
    return {rel: files[rel].sha256 for rel in sorted(files)}


def refused_changes(layout: Layout, planned: Mapping[str, bytes]) -> list[Problem]:
    """Registered downloads that ``planned`` (root-relative path -> bytes) would change."""
    known = registered(layout)
    return [
        Problem(
            rel,
            None,
            "download-changed",
            f"the bank now gives different bytes (sha256 {sha256_bytes(data)[:12]}…) than the "
            f"published download (sha256 {known[rel][:12]}…)",
            "published downloads never change: restore the bank's published items, and record "
            "changes as a new bank version",
        )
        for rel, data in sorted(planned.items())
        if rel in known and sha256_bytes(data) != known[rel]
    ]


LEDGER_FIX = "the ledgers only grow: restore the published lines and append after them"


def ledger_paths(layout: Layout) -> list[str]:
    """Root-relative paths of the bank's append-only ledgers."""
    return [layout.rel(layout.status_ledger), layout.rel(layout.disagreement_ledger)]


def _late_lines(rel: str, data: bytes, known: RegisteredLedger) -> list[Problem]:
    """Lines appended after the published ones that are dated on or before ``through``."""
    if known.through is None:
        return []
    out = []
    start = data.count(b"\n", 0, known.size)
    for n, raw in enumerate(data[known.size :].splitlines(), start=start + 1):
        try:
            day = dt.date.fromisoformat(json.loads(raw)["on"])
        except (ValueError, KeyError, TypeError):
            continue  # the ledger's reader reports a line that is no ledger line
        if day <= known.through:
            message = (
                f"appended after publication but dated {day}, not after {known.through} (the "
                "latest published volume's date): it would change that volume's figures"
            )
            out.append(Problem(rel, n, "ledger-backdated", message, "date it as applied"))
    return out


def ledger_problems(
    layout: Layout,
    files: Mapping[str, bytes] | None = None,
    registry: DownloadRegistry | None = None,
) -> list[Problem]:
    """Registered ledgers whose published lines changed, or with a backdated new line.

    Args:
        layout: The publication root.
        files: The ledgers' bytes by root-relative path (default: read from disk).
        registry: The registry as already read (default: read it).
    """
    out: list[Problem] = []
    current = _current(layout) if registry is None else registry
    for rel, known in sorted(current.ledgers.items()):
        if files is not None and rel in files:
            data = files[rel]
        else:
            path = layout.root / rel
            data = path.read_bytes() if os.path.isfile(path) else b""
        if len(data) < known.size or sha256_bytes(data[: known.size]) != known.sha256:
            message = (
                f"the ledger's published lines ({known.size} bytes, sha256 "
                f"{known.sha256[:12]}…) were edited, removed or cut: it is append-only"
            )
            out.append(Problem(rel, None, "ledger-changed", message, LEDGER_FIX))
            continue
        out += _late_lines(rel, data, known)
    return out


def register_ledgers(layout: Layout, through: dt.date | None) -> bool:
    """Register the ledgers as they are now (published with volumes up to ``through``).

    Raises:
        InputError: A ledger's published lines changed (nothing is registered).
    """
    current = _current(layout)
    problems = ledger_problems(layout, registry=current)
    if problems:
        raise InputError("refusing to register the ledgers:", problems)
    known = dict(current.ledgers)
    for rel in ledger_paths(layout):
        path = layout.root / rel
        if not os.path.isfile(path):
            continue
        data = path.read_bytes()
        before = known.get(rel)
        dates = [d for d in (through, before.through if before else None) if d is not None]
        latest = max(dates) if dates else None
        known[rel] = RegisteredLedger(size=len(data), sha256=sha256_bytes(data), through=latest)
    return _write(layout, current.model_copy(update={"ledgers": known}))


def registered_archives(layout: Layout) -> dict[str, RegisteredArchive]:
    """The bundle archives as last published, by root-relative path (empty before).

    Raises:
        InputError: The registry exists but cannot be read.
    """
    return dict(sorted(_current(layout).archives.items()))


def register_archives(layout: Layout, published: Mapping[str, RegisteredArchive]) -> bool:
    """Record ``published`` (root-relative path -> the archive as published now), each
    replacing the path's earlier record (an archive changes only with its bundles).

    Returns:
        Whether the registry file changed.
    """
    current = _current(layout)
    known = {**current.archives, **published}
    return _write(layout, current.model_copy(update={"archives": known}))


def _write(layout: Layout, registry: DownloadRegistry) -> bool:
    """Write ``registry`` with every table in path order."""
    data = registry.model_dump(mode="json", exclude_none=True)
    for key in ("files", "ledgers", "archives"):
        data[key] = dict(sorted(data[key].items()))
    # A registry from before the ledgers or the archives keeps its bytes.
    for key in ("ledgers", "archives"):
        if not data[key]:
            del data[key]
    return write_text(layout.download_registry, dumps(data), layout.root)


def register(layout: Layout, published: Mapping[str, str]) -> bool:
    """Add ``published`` (root-relative path -> SHA-256) to the registry; never replace.

    Returns:
        Whether the registry file changed.

    Raises:
        InputError: A path is already registered with another SHA-256.
    """
    current = _current(layout)
    files = {rel: entry.sha256 for rel, entry in current.files.items()}
    clash = [rel for rel, digest in published.items() if files.get(rel, digest) != digest]
    if clash:
        raise InputError(f"refusing to re-register published downloads: {', '.join(clash)}")
    added = {rel: RegisteredDownload(sha256=digest) for rel, digest in published.items()}
    return _write(layout, current.model_copy(update={"files": {**current.files, **added}}))
