"""The rows of a bundle read before, from the result cache (``generator.cache``).

Reading a bundle is a pure function of its files' bytes, of the bank (and, for Tier 0
checks on held-out items, of the private store's texts), of the reader bounds and of the
code. A bundle that read without a single problem is remembered as its rows, under the
SHA-256 of all of those; reading the same bytes again with the same code restores the
rows instead of validating every line again. Any changed byte is a different key, so a
bundle that changed is always validated in full, and a bundle with a problem is never
remembered (its problems are reported on every read).

Entries are plain JSON arrays (no pickle): draws, verdicts and panel votes as lists of
their fields, and the files' SHA-256. The manifest and the qualification records (a few
lines) are always read from the files themselves.
"""

from __future__ import annotations

import json
from dataclasses import astuple
from typing import Any, NamedTuple

from generator import cache
from generator.commitments import SECRET_FILE
from generator.hashing import sha256_file
from generator.rubric import marks_from_json
from generator.store.columns import Columns, Values
from generator.store.jsonl import Bounds
from generator.store.paths import Layout
from generator.store.rowtypes import DRAWS, PANEL, VERDICTS, Draws, Panel, Verdicts

NAMESPACE = "bundle-rows"


def bank_key(layout: Layout, private: bool) -> str:
    """Cache key part for the bank as ``load_bank`` reads it (bytes of every bank file,
    and of the private store's held-out items and bank secret when they are read)."""
    files = sorted(p for p in layout.bank_dir.rglob("*") if p.is_file())
    if private and layout.private_items.is_file():
        files.append(layout.private_items)
    secret = layout.private / SECRET_FILE  # held-out commitments are checked under it
    if private and secret.is_file():
        files.append(secret)
    return cache.key("bank", str(private), (f"{layout.rel(p)}={sha256_file(p)}" for p in files))


def bundle_key(
    layout: Layout, volume: str, slug: str, bank: str, private: bool, bounds: Bounds
) -> tuple[str, dict[str, str]] | None:
    """The cache key of a bundle's rows and its files' SHA-256 by name; None when the
    directory holds anything but regular files (such a bundle is always read in full)."""
    directory = layout.bundle_dir(volume, slug)
    hashes: dict[str, str] = {}
    try:
        for entry in sorted(directory.iterdir()):
            if entry.is_symlink() or not entry.is_file():
                return None
            hashes[entry.name] = sha256_file(entry)
        responses = layout.private_responses(volume, slug)
        texts = sha256_file(responses) if private and responses.is_file() else "-"
    except OSError:
        return None
    entry_key = cache.key(
        NAMESPACE,
        volume,
        slug,
        bank,
        f"private={private}:{texts}",
        repr(astuple(bounds)),
        (f"{name}={digest}" for name, digest in hashes.items()),
    )
    return entry_key, hashes


def dump(draws: Draws, verdicts: Verdicts, panel: Panel, files: dict[str, str]) -> bytes:
    """A bundle's rows as one compact JSON document."""
    return json.dumps(
        {
            "draws": [[r[0], *r[1], *r[2:]] for r in draws],
            "verdicts": [[r[0], *r[1], *r[2:]] for r in verdicts],
            "panel": [[r[0], *r[1], *r[2:]] for r in panel],
            "files": files,
        },
        separators=(",", ":"),
    ).encode()


class Restored(NamedTuple):
    """A bundle's rows from the cache, and the SHA-256 of the files they came from."""

    draws: Draws
    verdicts: Verdicts
    panel: Panel
    files: dict[str, str]


def _shaped(lists: tuple[Any, Any, Any]) -> bool:
    """Whether draws, verdicts and panel votes are lists of rows of their widths, each
    starting with an ``int`` line number (not a ``bool``, which JSON also gives)."""
    for found, width in zip(lists, (8, 11, 9), strict=True):
        if not isinstance(found, list) or any(
            not isinstance(r, list) or len(r) != width or type(r[0]) is not int for r in found
        ):
            return False
    return True


def _fields(rows: list[list[Any]], width: int) -> list[Any]:
    """The fields of ``rows`` with the three of the draw key as one (fields 1 to 3)."""
    fields = list(zip(*rows, strict=True)) or [()] * width
    return [fields[0], list(zip(fields[1], fields[2], fields[3], strict=True)), *fields[4:]]


FILES = ("draws.jsonl", "verdicts.jsonl", "panel.jsonl")
"""The bundle files whose rows an entry holds."""


def restore(raw: bytes, values: Values | None = None) -> Restored | None:
    """Rows from ``dump`` as columns whose values are kept in ``values`` (one per
    volume); None if the entry is damaged."""
    values = Values() if values is None else values
    try:
        data = json.loads(raw)
        if not _shaped((data["draws"], data["verdicts"], data["panel"])):
            return None
        draws = _fields(data["draws"], 8)
        draws[2] = [tuple(s) for s in draws[2]]  # status tuples are lists in the entry
        verdicts = _fields(data["verdicts"], 11)
        verdicts[-1] = [None if r is None else marks_from_json(r) for r in verdicts[-1]]
        files = {str(k): str(v) for k, v in data["files"].items()}
        restored = Restored(
            Columns.of_fields(DRAWS, values, draws),
            Columns.of_fields(VERDICTS, values, verdicts),
            Columns.of_fields(PANEL, values, _fields(data["panel"], 9)),
            files,
        )
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError):
        return None
    except RecursionError:  # an entry nested past the stack is damaged too
        return None
    if not set(FILES) <= set(files):
        return None
    return restored
