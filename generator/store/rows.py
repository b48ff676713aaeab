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
from collections.abc import Callable
from dataclasses import astuple
from functools import partial
from typing import Any, NamedTuple

from generator import cache
from generator.commitments import SECRET_FILE
from generator.hashing import sha256_file
from generator.rubric import marks_from_json
from generator.store.jsonl import Bounds
from generator.store.paths import Layout

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


def dump(draws: list[Any], verdicts: list[Any], panel: list[Any], files: dict[str, str]) -> bytes:
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


Pool = dict[Any, Any]
"""One copy of each value the rows of a volume repeat (draw keys, line numbers, status
tuples, names; never booleans, which equal 0 and 1), and of each row: keyed by itself,
rows refer to the copy and bundles to the row, so repeats cost a pointer, not an object.

Whole rows repeat across candidates: the same line holds the same draw in every bundle
written in schedule order, with one of a few outcomes (at 600 synthetic candidates,
618,000 draws are 5,101 distinct rows, 618,000 verdicts 5,804 and 329,175 panel votes
111,537). Each row is a tuple (about 100 bytes) kept once; a bundle's list holds a
pointer a row. The pool lives while a volume is read (``Memo``), not after."""


def shared(pool: Pool, fields: tuple[Any, ...], make: Callable[[Any], Any]) -> Any:
    """The named tuple ``make(fields)`` (a draw key, a row) from ``pool``, added on first
    sight. A named tuple equals the plain tuple of its fields and hashes like it, so the
    plain one finds it."""
    found = pool.get(fields)
    if found is None:
        found = pool[fields] = make(fields)
    return found


class Restored(NamedTuple):
    """A bundle's rows from the cache, and the SHA-256 of the files they came from."""

    draws: list[Any]
    verdicts: list[Any]
    panel: list[Any]
    files: dict[str, str]


def _shaped(lists: tuple[Any, Any, Any]) -> bool:
    """Whether draws, verdicts and panel votes are lists of rows of their widths, each
    starting with an ``int`` line number (a ``bool`` in a damaged entry would enter the
    pool as 0 or 1 for every row after it)."""
    for found, width in zip(lists, (8, 11, 9), strict=True):
        if not isinstance(found, list) or any(
            not isinstance(r, list) or len(r) != width or type(r[0]) is not int for r in found
        ):
            return False
    return True


def _shared(share: Callable[[Any, Any], Any], statuses: list[Any]) -> Any:
    """The pooled tuple of a draw's statuses (a list in the entry)."""
    found = tuple(statuses)
    return share(found, found)


FILES = ("draws.jsonl", "verdicts.jsonl", "panel.jsonl")
"""The bundle files whose rows an entry holds."""


def restore(
    raw: bytes,
    key_type: type,
    draw_type: type,
    verdict_type: type,
    vote_type: type,
    pool: Pool | None = None,
) -> Restored | None:
    """Rows from ``dump`` as the given named tuples (``generator.store.bundle``'s, passed
    in because that module imports this one); None if the entry is damaged. Repeated
    keys, status tuples, names and whole rows are taken from ``pool`` (``shared``)."""
    make = partial(tuple.__new__, key_type)
    draw, verdict, vote = (partial(tuple.__new__, t) for t in (draw_type, verdict_type, vote_type))
    pool = {} if pool is None else pool
    share = pool.setdefault

    def new_key(fields: list[Any]) -> Any:
        return shared(pool, tuple(fields), make)

    try:
        data = json.loads(raw)
        if not _shaped((data["draws"], data["verdicts"], data["panel"])):
            return None
        draws: list[Any] = [
            shared(pool, (share(r[0], r[0]), new_key(r[1:4]), _shared(share, r[4]), *r[5:]), draw)
            for r in data["draws"]
        ]
        # Rubric grades (the last field) are rare: no call for the rows without them.
        verdicts: list[Any] = [
            shared(
                pool,
                (
                    share(r[0], r[0]),
                    new_key(r[1:4]),
                    r[4],
                    share(r[5], r[5]),
                    share(r[6], r[6]),
                    *r[7:9],
                    share(r[9], r[9]),
                    None if r[10] is None else marks_from_json(r[10]),
                ),
                verdict,
            )
            for r in data["verdicts"]
        ]
        panel: list[Any] = [
            shared(pool, (share(r[0], r[0]), new_key(r[1:4]), *[share(x, x) for x in r[4:]]), vote)
            for r in data["panel"]
        ]
        files = {str(k): str(v) for k, v in data["files"].items()}
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
        return None  # RecursionError: an entry nested past the stack is damaged too
    if not set(FILES) <= set(files):
        return None
    return Restored(draws, verdicts, panel, files)
