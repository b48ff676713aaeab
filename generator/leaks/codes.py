"""Token ids of normalised text, found with numpy instead of one Python string per token.

``TokenCodes.ids(text)`` returns exactly ``[vocab.get(t, UNKNOWN) for t in
tokenize(text, markers=True)]`` (``normalise``'s steps 5 and 6). ``re.findall`` and a
dict lookup cost a Python string and a hash per token; here the text is classified
character by character in arrays:

- every character gets a class from a table: a letter or digit (``str.isalnum``, what
  ``[^\\W_]`` matches; in all-ASCII text only ``[a-z0-9]``, as ``tokenize`` does), a
  character of a script written without spaces (one token each), a line or page
  marker, or a separator;
- tokens are the maximal runs of letters and digits plus every single-character token;
- every character also gets a byte (itself in ASCII, ``0x80`` plus its low 7 bits
  otherwise), and a token's *head* is the little-endian integer of the bytes of its
  first 8 characters, read in one 8-byte load;
- a token of at most 8 ASCII characters has an exact code, its head (no token holds a
  NUL, so no two such tokens share a head); a token of one character outside ASCII has
  its code point with bit 63 set (an ASCII head has bit 63 clear). Codes are looked up
  in the sorted codes of the vocabulary;
- every other token (longer words, words with non-ASCII letters) is looked up as a
  string, but only after a screen: its head plus its length times an odd constant
  (``screen_of``) must be the screen of some such word of the vocabulary. A token in
  the vocabulary always passes, so the screen only saves look-ups.

Ids are exact: two different tokens never share an id.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from generator.leaks.normalise import LINE, NO_SPACE_RANGES, PAGE

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

_SEPARATOR, _WORD, _SINGLE, _LINE, _PAGE = 0, 1, 2, 3, 4
_HEAD = 8
"""Characters in a token's head (one byte each, one 64-bit load)."""
_HEAD_MASKS = np.array([(1 << 8 * n) - 1 for n in range(_HEAD + 1)], dtype=np.uint64)
"""The bits of a head that hold its first ``n`` characters."""
_NON_ASCII = np.uint64(0x8080808080808080)
"""The high bit of every byte of a head: set for a character outside ASCII."""
_SINGLE_FLAG = np.uint64(1 << 63)
"""Flag of the code of a one-character token outside ASCII (ASCII heads leave it clear)."""
_LENGTH_MIX = 0x9E3779B97F4A7C15
"""Odd multiplier that mixes a token's length into its screen."""
_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)
"""2**64 over the golden ratio: its products' top bits make well-spread hash slots."""


@cache
def _bmp_classes() -> npt.NDArray[np.uint8]:
    """Class of every code point below 0x10000 (built on first use, about 20 ms)."""
    table = np.fromiter(
        (_WORD if chr(cp).isalnum() else _SEPARATOR for cp in range(0x10000)),
        dtype=np.uint8,
        count=0x10000,
    )
    for lo, hi in NO_SPACE_RANGES:
        if lo < 0x10000:
            table[lo : min(hi, 0xFFFF) + 1] = _SINGLE
    table[ord(LINE)] = _LINE
    table[ord(PAGE)] = _PAGE
    return table


@cache
def _ascii_classes() -> npt.NDArray[np.uint8]:
    """Classes for all-ASCII text, which ``tokenize`` splits with ``[a-z0-9]+`` only
    (normalised ASCII text is lower-case; an upper-case letter there is a separator)."""
    table = _bmp_classes()[:128].copy()
    table[ord("A") : ord("Z") + 1] = _SEPARATOR
    return table


def _class_of(cp: int) -> int:
    """Class of one code point above the BMP."""
    if any(lo <= cp <= hi for lo, hi in NO_SPACE_RANGES):
        return _SINGLE
    return _WORD if chr(cp).isalnum() else _SEPARATOR


def _byte(char: str) -> int:
    """The byte of a character in a head."""
    point = ord(char)
    return point if point < 128 else 0x80 | (point & 0x7F)


def code_of(token: str) -> int | None:
    """The exact integer code of a token, or None when it has none (see module docs)."""
    if len(token) == 1 and not token.isascii():
        return ord(token) | (1 << 63)
    if len(token) > _HEAD or not token.isascii():
        return None
    return int.from_bytes(token.encode("ascii"), "little")


def screen_of(token: str) -> int:
    """The screen of a token without a code: head plus length times ``_LENGTH_MIX``,
    modulo 2**64, with the lowest bit set (a code table holds no zero)."""
    head = int.from_bytes(bytes(map(_byte, token[:_HEAD])), "little")
    return (head + len(token) * _LENGTH_MIX) % (1 << 64) | 1


class TokenCodes:
    """A vocabulary (token -> id) ready to map whole texts to token ids at once."""

    def __init__(self, vocab: dict[str, int], unknown: int) -> None:
        self._vocab = vocab
        self._unknown = unknown
        coded: list[tuple[int, int]] = []
        screens: set[int] = set()
        for word, word_id in vocab.items():
            if "\x00" in word:
                continue  # reserved (``\x00unknown``): no token holds a NUL
            code = code_of(word)
            if code is None:
                screens.add(screen_of(word))
            else:
                coded.append((code, word_id))
        self._codes = CodeTable(
            np.array([c for c, _ in coded], dtype=np.uint64),
            np.array([i for _, i in coded], dtype=np.int64),
        )
        self._screens = CodeTable(
            np.array(sorted(screens), dtype=np.uint64), np.zeros(len(screens), dtype=np.int64)
        )
        self._line = vocab[LINE]
        self._page = vocab[PAGE]

    def ids(self, text: str) -> I64:
        """Token ids of normalised ``text``, markers included (``LINE``, ``PAGE``)."""
        if not text:
            return np.zeros(0, dtype=np.int64)
        size = len(text)
        if text.isascii():
            raw = text.encode("ascii")
            heads = np.frombuffer(raw + bytes(_HEAD), dtype=np.uint8)
            points = heads[:size]
            classes = np.take(_ascii_classes(), points)
        else:
            raw = text.encode("utf-32-le", "surrogatepass")
            points = np.frombuffer(raw, dtype=np.uint32)
            classes = np.take(_bmp_classes(), points, mode="clip")  # astral: fixed below
            astral = np.flatnonzero(points > 0xFFFF)
            if len(astral):
                classes[astral] = [_class_of(int(cp)) for cp in points[astral]]
            heads = np.zeros(size + _HEAD, dtype=np.uint8)
            low = heads[:size]
            np.copyto(low, points, casting="unsafe")  # the low 8 bits
            low |= np.left_shift((points > 0x7F).view(np.uint8), 7)
        word = classes == _WORD
        single = classes >= _SINGLE
        begins = word.copy()
        begins[1:] &= ~word[:-1]
        word_ends = word.copy()
        word_ends[:-1] &= ~word[1:]
        starts = np.flatnonzero(begins | single)
        is_word = word[starts]
        ends = starts + 1
        ends[is_word] = np.flatnonzero(word_ends) + 1
        # Byte i of the buffer starts head i: an unaligned 8-byte view, one load a token.
        loads: U64 = np.ndarray((size,), dtype="<u8", buffer=heads, strides=(1,))
        return self._lookup(text, points, classes, loads, starts, ends)

    def _lookup(
        self,
        text: str,
        points: npt.NDArray[np.uint8] | npt.NDArray[np.uint32],
        classes: npt.NDArray[np.uint8],
        loads: U64,
        starts: I64,
        ends: I64,
    ) -> I64:
        """Ids of the tokens ``text[starts[i]:ends[i]]``."""
        lengths = ends - starts
        heads = loads[starts] & _HEAD_MASKS[np.minimum(lengths, _HEAD)]
        ascii_ = (heads & _NON_ASCII) == 0
        coded = ascii_ & (lengths <= _HEAD)
        single = ~ascii_ & (lengths == 1)
        codes = heads
        codes[single] = points[starts[single]].astype(np.uint64) | _SINGLE_FLAG
        coded |= single
        ids = np.full(len(starts), self._unknown, dtype=np.int64)
        where = np.flatnonzero(coded)
        ids[where] = self._codes.get(codes[where], self._unknown)
        kinds = classes[starts]
        ids[kinds == _LINE] = self._line
        ids[kinds == _PAGE] = self._page
        rest = np.flatnonzero(~coded)
        if len(rest):
            screens = heads[rest] + lengths[rest].astype(np.uint64) * np.uint64(_LENGTH_MIX)
            screens |= np.uint64(1)
            rest = rest[self._screens.get(screens, -1) >= 0]
            get, unknown = self._vocab.get, self._unknown
            spans = zip(starts[rest].tolist(), ends[rest].tolist(), strict=True)
            ids[rest] = [get(text[begin:end], unknown) for begin, end in spans]
        return ids


class CodeTable:
    """Distinct nonzero 64-bit codes -> ids, looked up for whole arrays of codes at once.

    Open addressing with linear probing in a table at most a quarter full, so almost
    every look-up ends at its first slot; Fibonacci hashing picks the slot.
    """

    def __init__(self, codes: U64, ids: I64) -> None:
        bits = max(4, (4 * len(codes)).bit_length())
        self._shift = np.uint64(64 - bits)
        self._last = (1 << bits) - 1
        self._keys = np.zeros(1 << bits, dtype=np.uint64)
        self._ids = np.zeros(1 << bits, dtype=np.int64)
        slots = self._home(codes)
        pending = np.arange(len(codes), dtype=np.int64)
        while len(pending):
            # Each free slot takes the first code that wants it; the rest move on.
            want = slots[pending]
            free = self._keys[want] == 0
            _, first = np.unique(want[free], return_index=True)
            placed = pending[free][first]
            self._keys[slots[placed]] = codes[placed]
            self._ids[slots[placed]] = ids[placed]
            pending = np.setdiff1d(pending, placed, assume_unique=True)
            slots[pending] = (slots[pending] + 1) & self._last

    def _home(self, codes: U64) -> I64:
        """The first slot each code is looked for in."""
        return ((codes * _FIBONACCI) >> self._shift).astype(np.int64)

    def get(self, codes: U64, default: int) -> I64:
        """The id of every code, ``default`` for a code not in the table."""
        slots = self._home(codes)
        keys = np.take(self._keys, slots)
        found = np.take(self._ids, slots)
        other, empty = keys != codes, keys == 0
        np.copyto(found, default, where=other | empty)
        # Codes that met another code go on probing; there are few, so index them.
        todo = np.flatnonzero(other & ~empty)
        while len(todo):
            slots[todo] = (slots[todo] + 1) & self._last
            keys = np.take(self._keys, slots[todo])
            hit = (keys == codes[todo]) & (keys != 0)
            found[todo[hit]] = np.take(self._ids, slots[todo[hit]])
            todo = todo[~hit & (keys != 0)]
        return found
