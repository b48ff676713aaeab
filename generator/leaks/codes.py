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
- a token of at most 9 ASCII characters, or of one character, has an exact integer
  code (its characters as base-128 digits, below 2**63; one character outside ASCII:
  its code point with bit 63 set), looked up in the sorted codes of the vocabulary. No
  token holds a NUL, so no two tokens share a code. The few other tokens (long words,
  words with non-ASCII letters) are looked up as strings.

No hashing is involved, so ids are exact: two different tokens never share an id.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from generator.leaks.normalise import LINE, NO_SPACE_RANGES, PAGE

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

_SEPARATOR, _WORD, _SINGLE, _LINE, _PAGE = 0, 1, 2, 3, 4
_MAX_ASCII = 9
"""Longest ASCII token with an exact 63-bit code (7 bits a character)."""
_NON_ASCII = np.uint64(1 << 63)
"""Flag of the code of a one-character token outside ASCII (ASCII codes stay below)."""


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


def code_of(token: str) -> int | None:
    """The exact integer code of a token, or None when it has none (see module docs)."""
    if len(token) == 1:
        cp = ord(token)
        return cp if cp < 128 else cp | (1 << 63)
    if len(token) > _MAX_ASCII or not token.isascii():
        return None
    code = 0
    for char in token:
        code = code * 128 + ord(char)
    return code


class TokenCodes:
    """A vocabulary (token -> id) ready to map whole texts to token ids at once."""

    def __init__(self, vocab: dict[str, int], unknown: int) -> None:
        self._vocab = vocab
        self._unknown = unknown
        # Leading NULs would not change a code, so entries with NUL (the reserved
        # ``\x00unknown``; never a token) are left to the string lookup.
        coded = sorted(
            (code, word_id)
            for word, word_id in vocab.items()
            if "\x00" not in word and (code := code_of(word)) is not None
        )
        self._codes = np.array([c for c, _ in coded], dtype=np.uint64)
        self._ids = np.array([i for _, i in coded], dtype=np.int64)
        self._line = vocab[LINE]
        self._page = vocab[PAGE]

    def ids(self, text: str) -> I64:
        """Token ids of normalised ``text``, markers included (``LINE``, ``PAGE``)."""
        if not text:
            return np.zeros(0, dtype=np.int64)
        if text.isascii():
            points = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64)
            classes = _ascii_classes()[points]
        else:
            raw = text.encode("utf-32-le", "surrogatepass")
            points = np.frombuffer(raw, dtype=np.uint32).astype(np.int64)
            classes = _bmp_classes()[np.minimum(points, 0xFFFF)]
            astral = np.flatnonzero(points > 0xFFFF)
            if len(astral):
                classes[astral] = [_class_of(int(cp)) for cp in points[astral]]
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
        return self._lookup(text, points, classes, starts, ends)

    def _lookup(
        self,
        text: str,
        points: I64,
        classes: npt.NDArray[np.uint8],
        starts: I64,
        ends: I64,
    ) -> I64:
        """Ids of the tokens ``text[starts[i]:ends[i]]``."""
        lengths = ends - starts
        first = points[starts]
        codes = first.astype(np.uint64)
        coded = lengths <= _MAX_ASCII
        coded[(first >= 128) & (lengths > 1)] = False
        codes[first >= 128] |= _NON_ASCII
        # Horner's rule on ever fewer tokens: most are a few characters long.
        longer = np.flatnonzero(coded & (lengths > 1))
        for offset in range(1, _MAX_ASCII):
            if not len(longer):
                break
            char = points[starts[longer] + offset]
            coded[longer[char >= 128]] = False
            codes[longer] = codes[longer] * np.uint64(128) + char.astype(np.uint64)
            longer = longer[lengths[longer] > offset + 1]
        ids = np.full(len(starts), self._unknown, dtype=np.int64)
        if len(self._codes):
            where = np.flatnonzero(coded)
            found = np.minimum(np.searchsorted(self._codes, codes[where]), len(self._codes) - 1)
            hit = self._codes[found] == codes[where]
            ids[where[hit]] = self._ids[found[hit]]
        kinds = classes[starts]
        ids[kinds == _LINE] = self._line
        ids[kinds == _PAGE] = self._page
        rest = np.flatnonzero(~coded)
        if len(rest):
            get, unknown = self._vocab.get, self._unknown
            spans = zip(starts[rest].tolist(), ends[rest].tolist(), strict=True)
            ids[rest] = [get(text[begin:end], unknown) for begin, end in spans]
        return ids
