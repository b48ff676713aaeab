"""The publisher's signing key (Ed25519, the ``cryptography`` package).

Only ``publish`` loads a private key. Signing itself is ``generator.release.sign``;
checking a signature needs public keys only and lives in ``generator.trust``.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from generator.errors import InputError

KEY_ENV = "PROBEPRESS_SIGNING_KEY"


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
