"""The public bank downloads: one JSONL per bank version, holding exactly its public items.

Published downloads never change: ``figures/downloads.json`` registers the SHA-256 of
every bank download the site has published, and a build that would give a registered
file other bytes is refused (:func:`refused_changes`); the holdout gate compares the
registered files on disk with it (``generator.hashing.drift``).
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.canary import published_on
from generator.canonical import dumps, dumps_line, write_text
from generator.errors import InputError, Problem
from generator.fingerprints import read_registry
from generator.hashing import sha256_bytes
from generator.models.base import version_slug
from generator.models.registries import DownloadRegistry, RegisteredDownload
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


def registered(layout: Layout) -> dict[str, str]:
    """Registered bank downloads: root-relative path -> SHA-256 (empty before the first).

    Raises:
        InputError: The registry exists but cannot be read.
    """
    registry = read_registry(
        layout, layout.download_registry, DownloadRegistry, "download registry"
    )
    if registry is None:
        return {}
    return {rel: registry.files[rel].sha256 for rel in sorted(registry.files)}


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


def register(layout: Layout, published: Mapping[str, str]) -> bool:
    """Add ``published`` (root-relative path -> SHA-256) to the registry; never replace.

    Returns:
        Whether the registry file changed.

    Raises:
        InputError: A path is already registered with another SHA-256.
    """
    files = registered(layout)
    clash = [rel for rel, digest in published.items() if files.get(rel, digest) != digest]
    if clash:
        raise InputError(f"refusing to re-register published downloads: {', '.join(clash)}")
    files.update(published)
    registry = DownloadRegistry(
        files={rel: RegisteredDownload(sha256=files[rel]) for rel in sorted(files)}
    )
    return write_text(
        layout.download_registry, dumps(registry.model_dump(mode="json")), layout.root
    )
