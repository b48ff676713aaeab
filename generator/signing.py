"""Ed25519 signatures of release manifests (the ``cryptography`` package)."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from generator.canonical import dumps
from generator.errors import InputError
from generator.models.release import Release, Signature

KEY_ENV = "PROBEPRESS_SIGNING_KEY"
PUBLIC_KEY_FILE = "release-signing-key.pub"


def signed_bytes(release: Release) -> bytes:
    """What a signature covers: the manifest's canonical JSON without its signature."""
    return dumps(release.model_dump(mode="json", exclude={"signature"})).encode("utf-8")


def load_private_key(path: Path | None) -> Ed25519PrivateKey | None:
    """The signing key from ``path`` or ``$PROBEPRESS_SIGNING_KEY`` (PEM, PKCS#8), if any."""
    chosen = path or (Path(os.environ[KEY_ENV]) if os.environ.get(KEY_ENV) else None)
    if chosen is None:
        return None
    try:
        key = serialization.load_pem_private_key(chosen.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise InputError(f"{chosen}: cannot read the signing key ({exc})") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError(f"{chosen}: the signing key is not an Ed25519 key")
    return key


def public_hex(key: Ed25519PublicKey) -> str:
    """Raw public key as hex."""
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def public_pem(key: Ed25519PrivateKey) -> bytes:
    """The public half as PEM (published on the site)."""
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def sign(release: Release, key: Ed25519PrivateKey) -> Release:
    """``release`` with its signature (Ed25519 signatures are deterministic)."""
    value = key.sign(signed_bytes(release)).hex()
    signature = Signature(public_key=public_hex(key.public_key()), value=value)
    return release.model_copy(update={"signature": signature})


def check(release: Release, trusted_public_key: str | None = None) -> str | None:
    """Problem with the signature, or None when it verifies.

    Args:
        release: A signed manifest.
        trusted_public_key: Hex public key the signature must come from (the one
            published on the site); without it, only self-consistency is checked.
    """
    if release.signature is None:
        return "the release is not signed"
    if trusted_public_key is not None and release.signature.public_key != trusted_public_key:
        return "signed by a key other than the published one"
    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(release.signature.public_key))
    try:
        key.verify(bytes.fromhex(release.signature.value), signed_bytes(release))
    except InvalidSignature:
        return "the signature does not match the manifest"
    return None
