"""An independent re-implementation of the documented commitment scheme, for tests.

Written from ``generator.commitments``' docstring, not from its code, so a test that
compares the two catches a change in either.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any


def secret_of(private: Path) -> bytes:
    """The bank secret stored in a private store."""
    return bytes.fromhex((private / "bank-secret.key").read_text("ascii").strip())


def item_key(secret: bytes, item: str) -> bytes:
    """K_item = HMAC-SHA256(secret, "probepress/item/v1\\0" + item)."""
    return hmac.new(secret, b"probepress/item/v1\0" + item.encode(), hashlib.sha256).digest()


def commit(key: bytes, label: str, payload: Any) -> str:
    """HMAC-SHA256(K_item, label + NUL + canonical JSON), as ``hmac-sha256:<hex>``."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    message = label.encode() + b"\0" + (text + "\n").encode()
    return "hmac-sha256:" + hmac.new(key, message, hashlib.sha256).hexdigest()


def response(
    key: bytes, volume: str, candidate: str, item: str, half: str, draw: int, text: str
) -> str:
    """The commitment of one held-out response, bound to its draw."""
    payload = {
        "candidate": candidate,
        "draw": draw,
        "half": half,
        "item": item,
        "text": text,
        "volume": volume,
    }
    return commit(key, "probepress/response/v1", payload)
