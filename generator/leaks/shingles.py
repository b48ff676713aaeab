"""Rolling hashes of token windows, and the sorted hash tables that index secrets.

A token is mapped to an integer id by the index's vocabulary (0 for a token no secret
contains), the id to a 64-bit value by the SplitMix64 finaliser (a bijection, so
distinct ids never share a value), and a window of ``w`` values to a polynomial hash
modulo 2**64. Prefix sums make every window of an array cost O(1), all vectorised with
numpy, so hashing a document is linear in its tokens. A hit is always verified token by
token against the stored secret, so a hash collision can cost time but never report a
false leak.

A table holds every window of one length: its hashes sorted (for ``searchsorted``), the
secret and offset of each, and a bitmap of the hashes' top bits so that almost every
window of a clean document is rejected by one memory read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
_Array = TypeVar("_Array", bound=npt.NDArray[Any])

_BASE = 0x9E3779B97F4A7C15
_BASE_INV = pow(_BASE, -1, 1 << 64)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)


def mix(values: npt.NDArray[Any]) -> U64:
    """SplitMix64 finaliser, element-wise (a bijection on 64-bit integers)."""
    x = values.astype(np.uint64, copy=True)
    x ^= x >> np.uint64(30)
    x *= _C1
    x ^= x >> np.uint64(27)
    x *= _C2
    x ^= x >> np.uint64(31)
    return x


class Powers:
    """Cached ``BASE**j`` and ``BASE**-j`` modulo 2**64 for j = 0, 1, 2, …"""

    def __init__(self) -> None:
        self.up: U64 = np.ones(1, dtype=np.uint64)
        self.down: U64 = np.ones(1, dtype=np.uint64)

    def need(self, n: int) -> None:
        """Make sure powers up to ``n - 1`` are cached."""
        have = len(self.up)
        if have >= n:
            return
        size = max(n, 2 * have)
        up = np.full(size, _BASE, dtype=np.uint64)
        up[0] = 1
        down = np.full(size, _BASE_INV, dtype=np.uint64)
        down[0] = 1
        self.up = np.cumprod(up, dtype=np.uint64)
        self.down = np.cumprod(down, dtype=np.uint64)


def prefix_sums(values: U64, powers: Powers) -> U64:
    """``P[i] = sum(values[j] * BASE**j for j < i)`` modulo 2**64, ``len(values) + 1`` long."""
    n = len(values)
    powers.need(n + 1)
    out = np.zeros(n + 1, dtype=np.uint64)
    np.cumsum(values * powers.up[:n], dtype=np.uint64, out=out[1:])
    return out


def window_hashes(prefix: U64, powers: Powers, width: int, starts: I64) -> U64:
    """Hashes of the windows ``[s, s + width)`` for every ``s`` in ``starts``."""
    raw = (prefix[starts + width] - prefix[starts]) * powers.down[starts]
    return mix(raw)


@dataclass
class Columns:
    """Windows collected for one table, piece by piece: hashes, secrets, offsets."""

    hashes: list[U64] = field(default_factory=list)
    secrets: list[I32] = field(default_factory=list)
    offsets: list[I32] = field(default_factory=list)

    def add(self, hashes: U64, secrets: I32, offsets: I32) -> None:
        """Append one piece (three aligned arrays)."""
        self.hashes.append(hashes)
        self.secrets.append(secrets)
        self.offsets.append(offsets)


def _drain(pieces: list[_Array]) -> _Array:
    """Concatenate ``pieces`` and empty the list, releasing the pieces."""
    joined = cast(_Array, np.concatenate(pieces))
    pieces.clear()
    return joined


@dataclass(frozen=True)
class Table:
    """Every indexed window of one width: sorted hashes with their owners.

    Attributes:
        width: Tokens per window.
        hashes: Window hashes, sorted.
        secrets: Index of the distinct secret each window belongs to.
        offsets: Token offset of each window inside its secret.
        bits: Bitmap over the top ``64 - shift`` bits of every hash.
        shift: Right shift that turns a hash into a bitmap index.
    """

    width: int
    hashes: U64
    secrets: I32
    offsets: I32
    bits: npt.NDArray[np.uint8]
    shift: int

    @classmethod
    def build(cls, width: int, columns: Columns) -> Table:
        """Join, sort and index the windows collected in ``columns`` (emptied on the way).

        Pieces are released as soon as they are joined, so the peak stays near twice
        the table's final size.
        """
        hashes = _drain(columns.hashes)
        order = np.argsort(hashes, kind="stable")
        hashes = hashes[order]
        secrets = _drain(columns.secrets)[order]
        offsets = _drain(columns.offsets)[order]
        return cls.from_sorted(width, hashes, secrets, offsets)

    @classmethod
    def from_sorted(cls, width: int, hashes: U64, secrets: I32, offsets: I32) -> Table:
        """A table over windows already sorted by hash; fills the bitmap (16 bits a window)."""
        size_log = min(30, max(16, (16 * len(hashes)).bit_length()))
        shift = 64 - size_log
        index = hashes >> np.uint64(shift)
        bits = np.zeros((1 << size_log) // 8, dtype=np.uint8)
        flags = np.left_shift(np.uint8(1), (index & np.uint64(7)).astype(np.uint8))
        np.bitwise_or.at(bits, index >> np.uint64(3), flags)
        return cls(width, hashes, secrets, offsets, bits, shift)

    def keep(self, mask: npt.NDArray[np.bool_]) -> Table:
        """A table with only the windows where ``mask`` is true."""
        kept = (self.hashes[mask], self.secrets[mask], self.offsets[mask])
        return Table.from_sorted(self.width, *kept)

    def lookup(self, hashes: U64) -> tuple[I64, I64, I64]:
        """Positions in ``hashes`` present in the table, with their posting ranges.

        Returns:
            ``(where, lo, hi)``: ``hashes[where[k]]`` equals the table's hashes
            ``lo[k]:hi[k]``.
        """
        index = hashes >> np.uint64(self.shift)
        maybe = (self.bits[index >> np.uint64(3)] >> (index & np.uint64(7)).astype(np.uint8)) & 1
        where = np.flatnonzero(maybe)
        wanted = hashes[where]
        lo = np.searchsorted(self.hashes, wanted, side="left")
        hi = np.searchsorted(self.hashes, wanted, side="right")
        found = hi > lo
        return where[found], lo[found].astype(np.int64), hi[found].astype(np.int64)
