"""A volume's release manifest (``site_src/volumes/<volume>/release.json``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from generator.models.base import Part, Record, Sha256


class GateVerdict(Part):
    """One gate's verdict at publication."""

    passed: bool
    """Whether the gate passed."""
    errors: int = Field(ge=0)
    """Findings that failed it."""
    warnings: int = Field(ge=0)
    """Findings that did not."""


class Signature(Part):
    """Ed25519 signature over the manifest's canonical JSON without this field."""

    algorithm: Literal["ed25519"] = "ed25519"
    """Signature scheme."""
    public_key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    """Raw public key, hex."""
    value: Annotated[str, Field(pattern=r"^[0-9a-f]{128}$")]
    """Signature, hex."""


class Release(Record):
    """What was published for a volume, from which inputs, and whether the gates passed."""

    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume id."""
    generator: str
    """Generator name and version."""
    inputs_commit: str | None
    """Newest commit that touched the volume's inputs (bank, bundles, templates)."""
    draft: bool
    """True for a draft publication (``--allow-dirty``): every page says DRAFT."""
    inputs: dict[str, Sha256]
    """Every input file of the volume, root-relative, with its SHA-256."""
    outputs: dict[str, Sha256]
    """Every frozen output and download of the volume, root-relative, with its SHA-256."""
    figures_sha256: Sha256
    """SHA-256 of ``figures/figures.json`` as published."""
    gates: dict[str, GateVerdict]
    """Verdict of each of the nine gates."""
    signature: Signature | None = None
    """Present when a signing key was configured."""
