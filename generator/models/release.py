"""A volume's release manifest (``site_src/volumes/<volume>/release.json``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from generator.models.base import Part, Record, Sha256
from generator.models.receipts import Receipt


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
    receipt: Receipt | None = None
    """What scored the volume: probepress version, Tier 0 code hash, grader prompt hash
    and settings (None in releases written before receipts; the audit fails them)."""
    signature: Signature | None = None
    """Present when a signing key was configured."""


KeyFingerprint = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
"""``sha256:`` and the hex SHA-256 of a raw Ed25519 public key (32 bytes)."""


class ManifestFile(Part):
    """One published file as the site manifest records it."""

    size: int = Field(ge=0)
    """Size in bytes."""
    sha256: Sha256
    """SHA-256 of its bytes."""


class SiteManifest(Record):
    """Every published file of a publication root, signed once (``site_src/downloads/
    release-manifest.json``, copied to ``site/downloads/``).

    Covers every file under ``figures/``, ``site_src/`` and the built ``site/`` except
    the manifest's own two copies and the folders of ``site_src/`` every build writes
    from elsewhere and git ignores (the theme, the bundles' copies: ``site/`` holds what
    they became). Written after the site is built.
    """

    generator: str
    """Generator name and version."""
    files: dict[str, ManifestFile]
    """Every covered file, root-relative POSIX path, with size and SHA-256."""
    signature: Signature | None = None
    """Present when a signing key was configured."""


class LedgerEntry(Part):
    """What signed a volume's release when it was published."""

    signed_by: KeyFingerprint
    """Fingerprint of the key that signed the volume's release."""


class ReleaseLedger(Record):
    """``figures/releases.json``: every volume ever published signed, and by which key.

    Append-only: a volume once published signed must stay signed, so an unsigned release
    of it later is a downgrade that ``verify`` names.
    """

    volumes: dict[str, LedgerEntry]
    """Volume id -> what signed it."""


class TrustedSigner(Part):
    """A signer the reader trusts: a named identity and the keys that speak for it."""

    identity: Annotated[str, Field(min_length=1, max_length=200)]
    """Who signs (e.g. ``probe-bank maintainers <security@example.org>``)."""
    keys: list[KeyFingerprint] = Field(min_length=1)
    """Fingerprints of the identity's public keys."""


class RevokedKey(Part):
    """A key that must no longer be believed, whatever else says so."""

    fingerprint: KeyFingerprint
    """Fingerprint of the revoked key."""
    reason: Annotated[str, Field(max_length=500)] = ""
    """Why (shown in the finding)."""


class TrustPolicy(Record):
    """The reader's trust policy for ``probepress verify --trust-policy FILE``.

    Kept outside the site it judges: a key the site ships is never trusted by it.
    """

    signers: list[TrustedSigner] = Field(min_length=1)
    """The allowed signer identities and their keys."""
    revoked: list[RevokedKey] = []
    """Revoked keys: a signature by one of them is a finding even if listed above."""
