"""What a frozen page says about where it came from (its footer).

A page's bytes must not change unless its inputs do, and must be the same however it is
rendered: by ``render`` in the checkout, by ``publish`` in its staging copy (a directory
inside the work tree that git does not track), before or after the inputs are committed.
So the footer prints nothing git knows. It prints:

* **inputs** — SHA-256 of the canonical JSON ``{path: sha256}`` of the volume's
  ``volume.yaml`` and every file of its bundles: content-addressed, recomputable by
  anyone from the public bundles, and the same in any checkout, copy or staging tree;
* where the **inputs commit** is recorded: the volume's release manifest
  (``release.json``), written by ``publish`` from the real checkout, which also records
  every output's SHA-256 — so the commit and the page are bound to each other there,
  not by a page that could never be re-rendered to the same bytes.

The bank's files are deliberately not in the digest: the bank grows with every version
(an older volume's pages must not change when a newer version is added); the page names
the bank version instead, whose items are frozen by their text hashes.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.canonical import dumps_line
from generator.hashing import sha256_file, sha256_text
from generator.store.volume import VolumeData


@dataclass(frozen=True)
class Provenance:
    """The facts a footer prints."""

    volume: str
    bank_version: str
    inputs_sha256: str
    generator: str


def inputs_sha256(data: VolumeData) -> str:
    """SHA-256 of ``{path: sha256}`` over ``volume.yaml`` and every bundle file."""
    layout = data.layout
    files = {layout.rel(layout.volume_file(data.id)): sha256_file(layout.volume_file(data.id))}
    for bundle in data.bundles.values():
        manifest = bundle.directory / "bundle.json"
        files[layout.rel(manifest)] = sha256_file(manifest)
        for name, digest in bundle.file_sha256.items():
            files[layout.rel(bundle.directory / name)] = digest
    return sha256_text(dumps_line(dict(sorted(files.items()))))


def provenance(data: VolumeData, generator: str) -> Provenance:
    """The footer facts of ``data``'s pages."""
    return Provenance(
        volume=data.id,
        bank_version=data.volume.bank_version,
        inputs_sha256=inputs_sha256(data),
        generator=generator,
    )
