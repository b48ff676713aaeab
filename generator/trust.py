"""Who may believe a signature: the reader's trusted keys and trust policy (DESIGN §10).

Integrity comes from hashes; authenticity only from a signature by a key the *reader*
trusts, given from outside the thing it signs. A key shipped inside a site is never
trusted here: it can only be reported. This module checks signatures with public keys
only; private keys and signing live in ``generator.signing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel

from generator.canonical import dumps
from generator.errors import InputError, Problem
from generator.hashing import sha256_bytes
from generator.models.release import Signature, TrustPolicy
from generator.store.jsonl import Problems, load_document

MAX_KEY_BYTES = 16 << 10
"""A PEM public key is a few hundred bytes; anything far larger is not one."""


def signed_bytes(record: BaseModel) -> bytes:
    """What a signature covers: the record's canonical JSON without its signature."""
    return dumps(record.model_dump(mode="json", exclude={"signature"})).encode("utf-8")


def fingerprint(public_key_hex: str) -> str:
    """``sha256:<hex>`` of a raw Ed25519 public key given as hex."""
    return "sha256:" + sha256_bytes(bytes.fromhex(public_key_hex))


def signature_problem(record: BaseModel, signature: Signature) -> str | None:
    """Why ``signature`` does not sign ``record`` (None when it does)."""
    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(signature.public_key))
    try:
        key.verify(bytes.fromhex(signature.value), signed_bytes(record))
    except InvalidSignature:
        return "the signature does not match the manifest"
    return None


def pem_fingerprint(data: bytes, shown: str) -> str:
    """Fingerprint of a PEM Ed25519 public key.

    Raises:
        InputError: ``data`` is not an Ed25519 public key.
    """
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{shown}: not a PEM public key ({exc})") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise InputError(f"{shown}: not an Ed25519 public key")
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return fingerprint(raw.hex())


@dataclass(frozen=True)
class Trust:
    """The keys a reader trusts (fingerprint -> identity) and the keys they revoked."""

    keys: dict[str, str]
    revoked: dict[str, str]

    def judge(self, signature: Signature | None) -> str | None:
        """Why ``signature`` does not authenticate (None when a trusted key made it).

        The signature's validity against its record is checked separately
        (:func:`signature_problem`); this only decides whether its key may be believed.
        """
        if signature is None:
            return "is not signed (a trusted signature is required)"
        found = fingerprint(signature.public_key)
        if found in self.revoked:
            why = self.revoked[found]
            return f"is signed by the revoked key {found}" + (f" ({why})" if why else "")
        if found not in self.keys:
            return f"is signed by {found}, which is not a trusted key"
        return None

    def who(self, signature: Signature) -> str:
        """The identity a trusted signature speaks for."""
        return self.keys.get(fingerprint(signature.public_key), "unknown")


def load_trust(keys: tuple[Path, ...], policy: Path | None) -> Trust | None:
    """The reader's trust from ``--trusted-key`` files and a ``--trust-policy`` file.

    Returns None when neither was given: authenticity is then not checked.

    Raises:
        InputError: A key or the policy cannot be read.
    """
    if not keys and policy is None:
        return None
    trusted: dict[str, str] = {}
    revoked: dict[str, str] = {}
    for path in keys:
        trusted[pem_fingerprint(_small(path), str(path))] = f"trusted key {path.name}"
    if policy is not None:
        problems = Problems()
        loaded = load_document(policy, TrustPolicy, str(policy), problems, MAX_KEY_BYTES * 64)
        if loaded is None:
            raise InputError("cannot read the trust policy:", problems.items)
        for signer in loaded.signers:
            trusted.update(dict.fromkeys(signer.keys, signer.identity))
        revoked = {r.fingerprint: r.reason for r in loaded.revoked}
    return Trust(trusted, revoked)


def _small(path: Path) -> bytes:
    """A key file's bytes, refusing anything that is not a small regular file."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_KEY_BYTES:
            raise InputError(
                "cannot read the trusted key:",
                [Problem(str(path), None, "trusted-key", "not a small regular file")],
            )
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the trusted key ({exc})") from exc
