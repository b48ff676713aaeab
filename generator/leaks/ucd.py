"""Unicode data the normaliser needs beyond ``unicodedata``, taken from ICU.

Python's ``unicodedata`` has neither the Default_Ignorable_Code_Point nor the
Bidi_Control property, nor the confusable mappings of UTS #39. Both come from ICU
(through the ``pyicu-wheels`` package, which bundles a pinned ICU and its data), so
no list of characters is kept by hand here:

- ``IGNORABLE``: every Default_Ignorable_Code_Point (zero-width characters, soft
  hyphen, variation selectors, tag characters, Hangul fillers, U+2063 …) and every
  Bidi_Control (U+200E, U+202A-U+202E, U+2066-U+2069 …). Renderers draw none of
  them, so a secret stays readable with any of them inserted.
- ``skeleton(char)``: the UTS #39 skeleton of one case-folded letter or digit
  (Cyrillic ``а`` → ``a``, Greek ``ο`` → ``o``), from ICU's ``SpoofChecker``, or None
  when the character is its own skeleton (up to canonical decomposition, so ``é``
  keeps its accent). Hangul is never mapped (``HANGUL``).

``VERSIONS`` names the ICU, Unicode and PyICU versions: a result cached under one
version of this data is not reused under another.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import icu

VERSIONS = f"icu={icu.ICU_VERSION} unicode={icu.UNICODE_VERSION} pyicu={icu.VERSION}"
"""The versions of the Unicode data used here (part of every leak-cache key)."""

_IGNORABLE_SET = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Bidi_Control:]]")
IGNORABLE_RANGES: tuple[tuple[int, int], ...] = tuple(
    (ord(lo), ord(hi)) for lo, hi in _IGNORABLE_SET.ranges()
)
"""Inclusive code point ranges of the characters deleted by normalisation."""
IGNORABLE = frozenset(chr(cp) for lo, hi in IGNORABLE_RANGES for cp in range(lo, hi + 1))
"""Default_Ignorable_Code_Point ∪ Bidi_Control (ICU's data)."""

_SPOOF = icu.SpoofChecker()


HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7FF))
"""Hangul jamo and syllables: never mapped. Their skeletons split each syllable into
jamo and map some of those to ideographs, which would cut Korean words apart."""


def _raw(char: str) -> str:
    """ICU's skeleton of one character, composed; the character itself when unmapped."""
    if char.isascii() or not char.isalnum() or any(lo <= ord(char) <= hi for lo, hi in HANGUL):
        return char
    found: str = _SPOOF.getSkeleton(0, char)
    # ICU returns the skeleton decomposed (NFD); a character whose skeleton is just its
    # own decomposition (é → e + U+0301) is not a confusable of anything else.
    if found == unicodedata.normalize("NFD", char):
        return char
    return unicodedata.normalize("NFC", found)


def _case_fold(text: str) -> str:
    """NFKC, casefold, NFKC: the case folding of normalisation step 1."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@cache
def _latin_capitals() -> dict[str, str]:
    """ICU's skeleton of each Latin capital -> the small letter (``l`` -> ``i`` for I)."""
    return {_SPOOF.getSkeleton(0, c): c.lower() for c in map(chr, range(65, 91))}


def _base(char: str) -> str | None:
    """The case-folded skeleton of a case-folded character, before closure.

    Normalisation case-folds first (so ``λ`` and ``Λ`` stay one letter), which loses
    the capital's look: Greek ``Β`` looks like ``B`` but folds to ``β``, whose own
    skeleton is ``ß``; Cyrillic ``Н`` looks like ``H`` but folds to ``н`` (``ʜ``). So
    when the character's capital has the skeleton of a Latin capital, that Latin
    letter (small) is used: capitals are where Greek and Cyrillic letters are exact
    look-alikes of Latin ones. Otherwise the character's own skeleton is used (Cyrillic
    ``а`` → ``a``). A small letter that looks like one Latin letter while its capital
    looks like another (Greek ``ν``: ``v``, ``Ν``: ``N``) matches the capital's.
    """
    if char.isascii() or not char.isalnum():
        return None
    upper = char.upper()
    if len(upper) == 1 and upper != char:
        latin = _latin_capitals().get(_raw(upper))
        if latin is not None:
            return latin
    own = _case_fold(_raw(char))
    return None if own == char else own


@cache
def skeleton(char: str) -> str | None:
    """The UTS #39 skeleton of a case-folded non-ASCII letter or digit, case-folded
    (see ``_base``), or None when it is not mapped.

    The result is a fixed point: case folding it or mapping its characters again
    changes nothing, so normalising twice gives what normalising once gave.
    """
    mapped = _base(char)
    if mapped is None:
        return None
    for _ in range(8):
        again = _case_fold("".join(_base(c) or c for c in mapped))
        if again == mapped:
            break
        mapped = again
    return None if mapped == char else mapped


class _Skeletons(dict[int, "int | str"]):
    """A ``str.translate`` table: each character below U+10000 to its ``skeleton`` (or to
    itself when unmapped), every other character to itself. Filled on first use of each
    character: asking ICU for the skeleton of every BMP character up front costs about
    0.3 s of every process that normalises a non-ASCII line, and a volume's texts hold a
    few hundred distinct characters."""

    def __missing__(self, cp: int) -> int | str:
        mapped = skeleton(chr(cp)) if cp <= 0xFFFF else None
        value = cp if mapped is None else mapped
        self[cp] = value
        return value


_SKELETONS = _Skeletons()


def to_skeletons(text: str) -> str:
    """Replace every mapped character of a case-folded text by its ``skeleton``."""
    # A plain dict subclass keeps str.translate in C once a character has been seen;
    # astral characters (rare) are done one by one.
    text = text.translate(_SKELETONS)
    if not text or max(text) <= "\uffff":
        return text
    return "".join(c if c <= "\uffff" else skeleton(c) or c for c in text)
