"""Keyed commitments to held-out text: publishable, untestable without the bank's secret.

A plain SHA-256 of a short text is no secret: a held-out item's passing answer
("755,650") was recovered from its published ``response_sha256`` by brute force in 16 s.
So nothing public ever carries a plain digest of held-out text. Instead:

- **The bank secret**: 32 random bytes, kept only in the private store
  (``<private>/bank-secret.key``, hex, mode 0600), never in the repository. It is created
  on first need (``ensure_secret``); the example publication derives its secret from the
  demo seed (``demo_secret``) because every byte of the example, its held-out texts
  included, is already reproducible from that seed and committed bytes must be too.
- **The item key**: ``K_item = HMAC-SHA256(secret, "probepress/item/v1\\0" + item_id)``.
  One item's key opens that item and nothing else: HMAC is a pseudo-random function, so
  neither the secret nor another item's key can be computed from it.
- **A commitment**: ``HMAC-SHA256(K_item, label + "\\0" + canonical JSON)``, written
  ``hmac-sha256:<hex>``. Labels separate the domains (``probepress/prompt/v1``,
  ``probepress/criterion/v1``, ``probepress/response/v1``) so one text can never stand in
  for another kind. The payload is canonical JSON (sorted keys, compact, a final newline;
  fields that are null are left out, as in the files), so its encoding is unambiguous:
  the prompt (a string or a list of messages); ``{"check", "pass_criterion"}`` (check
  null for Tier 1); ``{"candidate", "draw", "half", "item", "text", "volume"}`` for a
  response, which binds its draw, so two identical answers get unrelated commitments and
  nobody learns that two candidates said the same thing.

Without ``K_item`` a commitment is indistinguishable from random (hiding); with it, no
other text gives the same value (binding: HMAC-SHA256 collisions are infeasible), so the
maintainer can later prove what was run by disclosing ``K_item`` and the texts of one item
(``generator.disclosure``), and anyone can check them offline against the published index
and draws.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from typing import TYPE_CHECKING, Any

from generator.canonical import dumps_line
from generator.errors import InputError, Problem
from generator.models.bank import BankItem, HeldOutEntry, ItemMeta

if TYPE_CHECKING:
    from generator.store.paths import Layout

SECRET_FILE = "bank-secret.key"
SECRET_BYTES = 32
PREFIX = "hmac-sha256:"
ITEM_LABEL = b"probepress/item/v1\0"
PROMPT_LABEL = "probepress/prompt/v1"
CRITERION_LABEL = "probepress/criterion/v1"
RESPONSE_LABEL = "probepress/response/v1"
DEMO_LABEL = b"probepress/demo-secret/v1"
TEXT_FIELDS = {"prompt", "pass_criterion", "check", "rubric"}
"""An item's text, committed to as JSON the way files hold it (no null fields)."""
COMMITTED = ("prompt_commitment", "criterion_commitment")
"""The fields of a held-out index entry that are commitments."""


def secret_path(layout: Layout) -> str:
    """Where the bank secret lives, as messages print it."""
    return str(layout.private / SECRET_FILE)


def load_secret(layout: Layout) -> bytes:
    """The bank secret from the private store.

    Raises:
        InputError: It is missing or not 64 hex digits (exit 2).
    """
    path = layout.private / SECRET_FILE
    fix = (
        "pass --private DIR (or set PROBEPRESS_PRIVATE) to the private store that holds "
        f"{SECRET_FILE}; run `probepress demo` for the example"
    )
    if path.is_symlink() or not path.is_file():
        problem = Problem(
            str(path), None, "bank-secret", "the private store holds no bank secret", fix
        )
        raise InputError("cannot open the held-out commitments:", [problem])
    text = path.read_bytes()[: 4 * SECRET_BYTES]
    try:
        secret = bytes.fromhex(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        secret = b""
    if len(secret) != SECRET_BYTES:
        message = f"the bank secret is not {2 * SECRET_BYTES} hex digits"
        problem = Problem(str(path), 1, "bank-secret", message, fix)
        raise InputError("cannot open the held-out commitments:", [problem])
    return secret


def write_secret(layout: Layout, secret: bytes) -> bool:
    """Store ``secret`` in the private store (0600); False when it is already there.

    Raises:
        InputError: The store already holds a different secret; replacing it would make
            every published commitment unopenable, so it is never overwritten.
    """
    path = layout.private / SECRET_FILE
    if path.exists() or path.is_symlink():
        if load_secret(layout) == secret:
            return False
        problem = Problem(
            str(path),
            None,
            "bank-secret",
            "the private store already holds another bank secret; it is never replaced",
            "use another --private directory",
        )
        raise InputError("cannot write the bank secret:", [problem])
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created 0600 from the start (O_EXCL: never through a symlink, never over a file).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(secret.hex() + "\n")
    return True


def ensure_secret(layout: Layout) -> bytes:
    """The bank secret, created from the OS's random source on first need."""
    if not (layout.private / SECRET_FILE).exists():
        write_secret(layout, secrets.token_bytes(SECRET_BYTES))
    return load_secret(layout)


def demo_secret(seed: int) -> bytes:
    """The example's secret, from its seed (its held-out texts come from the seed too)."""
    return hmac.new(DEMO_LABEL, str(seed).encode("ascii"), hashlib.sha256).digest()


def item_key(secret: bytes, item_id: str) -> bytes:
    """``K_item``: the key of one item's commitments."""
    return hmac.new(secret, ITEM_LABEL + item_id.encode("utf-8"), hashlib.sha256).digest()


def commit(key: bytes, label: str, payload: Any) -> str:
    """``hmac-sha256:<hex>`` of ``label``, a NUL and the canonical JSON of ``payload``."""
    message = label.encode("ascii") + b"\0" + dumps_line(payload).encode("utf-8")
    return PREFIX + hmac.new(key, message, hashlib.sha256).hexdigest()


def prompt_commitment(key: bytes, prompt: Any) -> str:
    """Commitment to a prompt as JSON (a string, or a list of message objects)."""
    return commit(key, PROMPT_LABEL, prompt)


def criterion_commitment(key: bytes, pass_criterion: str, check: Any, rubric: Any = None) -> str:
    """Commitment to the pass criterion and the check (JSON, or None for Tier 1), and the
    rubric (JSON) when the item has one (an item without keeps its old commitment)."""
    payload: dict[str, Any] = {"check": check, "pass_criterion": pass_criterion}
    if rubric is not None:
        payload["rubric"] = rubric
    return commit(key, CRITERION_LABEL, payload)


def response_commitment(
    key: bytes, volume: str, candidate: str, item: str, half: str, draw: int, text: str
) -> str:
    """Commitment to one held-out response, bound to its draw."""
    payload = {
        "candidate": candidate,
        "draw": draw,
        "half": half,
        "item": item,
        "text": text,
        "volume": volume,
    }
    return commit(key, RESPONSE_LABEL, payload)


def item_commitments(key: bytes, item: BankItem) -> dict[str, str]:
    """The index entry's commitments of a full item, by field name."""
    data = item.model_dump(mode="json", include=TEXT_FIELDS, exclude_none=True)
    return {
        "prompt_commitment": prompt_commitment(key, data["prompt"]),
        "criterion_commitment": criterion_commitment(
            key, data["pass_criterion"], data.get("check"), data.get("rubric")
        ),
    }


META_FIELDS = tuple(name for name in ItemMeta.model_fields if name != "schema_version")
"""What a held-out index entry shares with its private item (not the format version)."""


def heldout_entry(item: BankItem, secret: bytes) -> HeldOutEntry:
    """The held-out index entry of ``item``: its metadata and commitments, no text."""
    meta = item.model_dump(mode="json", include=set(META_FIELDS))
    return HeldOutEntry.model_validate(
        {**meta, **item_commitments(item_key(secret, item.id), item)}
    )


def same_meta(entry: HeldOutEntry, item: BankItem) -> bool:
    """True when the index entry and the private item agree on every metadata field."""
    return all(getattr(entry, name) == getattr(item, name) for name in META_FIELDS)
