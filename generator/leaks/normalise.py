"""Normalisation and tokenisation, shared by secrets and scanned documents.

Secrets and documents go through the same steps, so a leak is found whenever a public
file re-renders a secret in one of the ways the steps cancel out: HTML escaping, PDF
line breaking and hyphenation, JSON escaping, ligatures, full-width forms, case, and
whitespace or punctuation differences. The steps, in order:

1. Unicode NFKC, casefold, NFKC again (``ﬁ`` → ``fi``, ``Ａ`` → ``a``, NBSP → space,
   ``ß`` → ``ss``). Then every non-ASCII letter or digit is replaced by its UTS #39
   confusable skeleton, case-folded (``ucd.skeleton``: Cyrillic ``раураl`` →
   ``paypal``, Greek ``ΗΕLLΟ`` → ``hello``), so look-alike letters from other
   scripts do not hide a secret. ASCII is never remapped.
2. Invisible characters are deleted: every Default_Ignorable_Code_Point and every
   Bidi_Control (``ucd.IGNORABLE``, from ICU: soft hyphen, zero-width characters,
   U+2063, LRM/RLM, bidi embeddings and isolates, variation selectors, tags …):
   renderers insert them inside words and draw none of them.
3. Combining marks left after composition are deleted (Arabic harakat, Indic vowel
   signs, stray accents), so optional diacritics do not split or change words.
4. Hyphens. A hyphen between two letters or digits is deleted, joining the parts
   (``well-known`` → ``wellknown``). A hyphen ending a line joins the next line's first
   word to it; the line break moves after that word so line numbers stay right. PDF
   text layers break words as ``exam-⏎ple`` and ``well-⏎known``; both then read as in
   the source. A line break inside a string (an escaped ``\\n`` decoded by
   ``extract``, kept as ``SOFT_BREAK``) joins the same way without counting as a line.
5. Tokens are maximal runs of letters and digits. Everything else (punctuation,
   symbols, underscore, whitespace of any kind, including newlines and NBSP) only
   separates tokens: whitespace runs collapse, and ``don't`` / ``don’t``, ``--`` / ``—``
   or a Markdown ``**`` make no difference.
6. Scripts written without spaces between words (Han, Kana, Thai, Lao, Khmer,
   Myanmar) give one token per character, so shingles work there and the window
   threshold counts characters. Hangul is written with spaces and tokenises as words.

HTML is not handled here: tags and entities are removed before these steps by
``extract.html_to_text`` (see there), because secrets themselves are plain text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from generator.leaks import ucd

LINE = "\n"
"""Marker token for a line break (``tokenize(..., markers=True)``)."""
PAGE = "\f"
"""Marker token for a page break (the PDF reader separates pages with form feeds)."""
SOFT_BREAK = "\x1e"
"""A line break inside a string (a decoded ``\\n`` escape): not a line of the file."""

NO_SPACE_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)
"""Code point ranges of scripts written without spaces: one token per character."""
_NO_SPACE = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in NO_SPACE_RANGES)
INVISIBLE = ucd.IGNORABLE
"""Characters deleted in step 2: Default_Ignorable_Code_Point ∪ Bidi_Control (ICU)."""
_INVISIBLE = re.compile(
    "[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ucd.IGNORABLE_RANGES) + "]+"
)
_TOKEN = re.compile(rf"[\n\f]|[{_NO_SPACE}]|[^\W_{_NO_SPACE}]+")
_TOKEN_ASCII = re.compile(r"[a-z0-9]+|[\n\f]")
_BREAK_JUNK = re.compile("[-\u2010\u2011 \t\r\n]+")


class _HyphenRules(NamedTuple):
    """Step 4 for one alphabet: in-word hyphens, soft breaks, line breaks."""

    inside: re.Pattern[str]
    soft: re.Pattern[str]
    hard: re.Pattern[str]

    @classmethod
    def of(cls, word: str, hyphens: str) -> _HyphenRules:
        """The three patterns for a word-character class and a hyphen class."""
        # Each pattern starts with the hyphen class and looks behind only after it: a
        # leading character class lets the engine skip ahead, a leading look-behind makes
        # it test every position (about ten times slower on large chunks).
        hy = f"[{hyphens}]"
        return cls(
            re.compile(rf"{hy}(?<={word}{hy})(?={word})"),
            re.compile(rf"{hy}(?<={word}{hy})[ \t\r]*\x1e[ \t\r]*(?={word})"),
            re.compile(
                rf"{hy}(?<={word}{hy})[ \t\r]*\n[ \t\r]*{word}+(?:{hy}[ \t\r]*\n[ \t\r]*{word}+)*"
            ),
        )

    def apply(self, text: str) -> str:
        """Join hyphenated words; line breaks move after the joined word."""
        text = self.inside.sub("", text)
        if SOFT_BREAK in text:
            text = self.soft.sub("", text)
        return self.hard.sub(_moved_breaks, text)


def _moved_breaks(match: re.Match[str]) -> str:
    """The continuation of a word broken across lines, then its line breaks."""
    broken = match.group(0)
    return _BREAK_JUNK.sub("", broken) + "\n" * broken.count("\n")


_UNICODE_HYPHENS = _HyphenRules.of(r"[^\W_]", "-\u2010\u2011")
_DASH_HYPHENS = _HyphenRules.of(r"[^\W_]", "-")
"""The Unicode rules for text without U+2010 or U+2011: ``-`` leads every pattern, so the
engine jumps from hyphen to hyphen instead of testing a character class everywhere."""
_ASCII_HYPHENS = _HyphenRules.of("[A-Za-z0-9]", "-")


_JAMO_SPANS = ((0x1100, 0x11FF), (0xA960, 0xA97F), (0xD7B0, 0xD7FF))
"""Conjoining Hangul jamo: NFKC composes them with the jamo before them."""


_MARKS: set[str] = set()
"""The combining marks (general category M) among ``_LOOKED_UP``."""
_LOOKED_UP: set[str] = set()
"""Every character ``_drop_marks`` has seen (each looked up once per process)."""


def _drop_marks(text: str) -> str:
    """Delete combining marks (general category M). Most lines have none after NFKC, and
    set operations on a line's characters are cheap, so each character is looked up the
    first time it is seen (a table of every mark would cost each process about 0.1 s)."""
    present = set(text)
    new = present - _LOOKED_UP
    if new:
        _MARKS.update(c for c in new if unicodedata.category(c)[0] == "M")
        _LOOKED_UP.update(new)
    marks = _MARKS.intersection(present)
    return text.translate(dict.fromkeys(map(ord, marks))) if marks else text


def _fold(text: str) -> str:
    """Steps 1-3: NFKC, casefold, NFKC, skeletons; invisible characters and marks
    deleted."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = ucd.to_skeletons(unicodedata.normalize("NFKC", text))
    return _drop_marks(_INVISIBLE.sub("", text))


_NO, _YES, _ASK = 0, 1, 2
"""States of ``_casefold_states``: not case-folded alone, case-folded alone, and
case-folded alone unless the character or its case fold has a confusable skeleton."""


@cache
def _casefold_states() -> npt.NDArray[np.uint8]:
    """For every UTF-16 code unit, whether steps 1-3 turn the character into
    ``char.casefold()`` in any text of such characters (``_YES``, ``_NO``), or ``_ASK``
    when that depends only on ICU's confusable skeletons, which ``casefolds`` looks up
    the first time the character occurs (built on first use, ~40 ms; the skeletons of
    every BMP letter would take ten times that).

    Such a character and every character of its case fold are *inert*: each is its own
    NFKC form, a starter (combining class 0), not a mark or a conjoining jamo (the only
    characters NFKC composes with what precedes them), not invisible, not mapped to a
    confusable skeleton. NFKC leaves a
    string of inert characters alone and ``casefold`` works character by character, so
    steps 1-3 on such a string are just ``casefold()``. Surrogates are ``_NO``:
    characters above the BMP take the full steps.
    """
    chars = list(map(chr, range(0x10000)))
    count = len(chars)
    inert = np.fromiter((unicodedata.is_normalized("NFKC", c) for c in chars), np.bool_, count)
    inert &= np.array(list(map(unicodedata.combining, chars))) == 0
    special = frozenset({"Mn", "Mc", "Me", "Cs"}).__contains__
    inert &= ~np.fromiter(map(special, map(unicodedata.category, chars)), np.bool_, count)
    for lo, hi in _JAMO_SPANS:
        inert[lo : hi + 1] = False
    inert[[ord(char) for char in INVISIBLE if ord(char) < count]] = False
    folds = list(map(str.casefold, chars))
    points = np.frombuffer("".join(folds).encode("utf-32-le", "surrogatepass"), np.uint32)
    sizes = np.fromiter(map(len, folds), np.int64, count)
    inert_points = np.append(inert, False)[np.minimum(points, count)]
    starts = np.cumsum(sizes) - sizes
    ask = inert & np.logical_and.reduceat(inert_points, starts)
    states = np.where(ask, _ASK, _NO).astype(np.uint8)
    states[:128] = _YES
    return states


def casefolds(units: npt.NDArray[np.uint16]) -> npt.NDArray[np.bool_]:
    """For each UTF-16 code unit, True when steps 1-3 turn its character into
    ``char.casefold()`` (see ``_casefold_states``); a character asked about for the first
    time is settled here, for good: neither it nor any character of its case fold has a
    confusable skeleton (``ucd.skeleton``)."""
    states = _casefold_states()
    found = np.take(states, units)
    asked = found == _ASK
    if asked.any():
        for unit in np.unique(units[asked]).tolist():
            char = chr(unit)
            plain = all(ucd.skeleton(c) is None for c in (char, *char.casefold()))
            states[unit] = _YES if plain else _NO
        found = np.take(states, units)
    answer: npt.NDArray[np.bool_] = found == _YES
    return answer


def _fold_lines(lines: list[str]) -> list[str]:
    """Steps 1-3 on each line: ``lower()`` on ASCII lines, ``casefold()`` on most others
    (see ``casefolds``), the full ``_fold`` on the rest."""
    folded = [line.lower() if line.isascii() else line.casefold() for line in lines]
    others = [n for n, line in enumerate(lines) if not line.isascii()]
    if not others:
        return folded
    # One table look-up over all non-ASCII lines finds the few that need more than
    # casefold(): compatibility forms, marks, invisible characters, astral characters.
    text = "\n".join(lines[n] for n in others)
    units = np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
    odd = np.flatnonzero(~casefolds(units))
    if len(odd):
        breaks = np.flatnonzero(units == ord("\n"))
        for line in np.unique(np.searchsorted(breaks, odd)).tolist():
            folded[others[line]] = _fold(lines[others[line]])
    return folded


def _safe_end(line: str) -> bool:
    """True when no hyphen rule can join ``line`` to the next one (no hyphen at its end)."""
    return not line.rstrip(" \t\r").endswith(("-", "\u2010", "\u2011"))


def normalise(text: str) -> str:
    """Apply steps 1-4 of the module docstring; line breaks are kept, one for one.

    Steps 1-3 never act across a line break, and on most lines they are just
    ``lower()`` (all-ASCII lines) or ``casefold()`` (lines whose characters are in
    normal form and stay so when case-folded): only the other lines pay for Unicode
    normalisation. Step 4 then runs on the whole text.

    Args:
        text: Plain text (HTML and JSON escapes already decoded).

    Returns:
        The normalised text, with exactly as many ``\\n`` as ``text``.
    """
    if text.isascii():
        text = text.lower()
        return _ASCII_HYPHENS.apply(text) if "-" in text else text
    return _join_hyphens(_fold_lines(text.split("\n")))


def _join_hyphens(lines: list[str]) -> str:
    """Step 4 on folded lines, with the fastest patterns that give the same result."""
    text = "\n".join(lines)
    if text.isascii():
        return _ASCII_HYPHENS.apply(text) if "-" in text else text
    if "\u2010" not in text and "\u2011" not in text:
        return _DASH_HYPHENS.apply(text) if "-" in text else text
    # The patterns for all three hyphens have no literal to search for; they run only on
    # blocks of lines holding U+2010 or U+2011. Blocks are cut only after a line that
    # does not end with a hyphen, the one place a rule reaches across a line break.
    flags = ["\u2010" not in line and "\u2011" not in line for line in lines]
    blocks: list[str] = []
    start, plain = 0, flags[0]
    for end in range(1, len(lines)):
        if flags[end] != plain and _safe_end(lines[end - 1]):
            blocks.append(_hyphens(lines[start:end], plain))
            start, plain = end, flags[end]
        else:
            plain = plain and flags[end]
    blocks.append(_hyphens(lines[start:], plain))
    return "\n".join(blocks)


def _hyphens(lines: list[str], plain: bool) -> str:
    """Step 4 on a block of folded lines (``plain``: none holds U+2010 or U+2011)."""
    text = "\n".join(lines)
    if plain:
        return _DASH_HYPHENS.apply(text) if "-" in text else text
    return _UNICODE_HYPHENS.apply(text)


def tokenize(normalised: str, *, markers: bool = False) -> list[str]:
    """Split normalised text into tokens (step 5 and 6 of the module docstring).

    Args:
        normalised: Output of ``normalise``.
        markers: Also return ``LINE`` and ``PAGE`` marker tokens, to locate matches.

    Returns:
        The tokens in order.
    """
    pattern = _TOKEN_ASCII if normalised.isascii() else _TOKEN
    found = pattern.findall(normalised)
    if markers:
        return found
    return [token for token in found if token not in (LINE, PAGE)]


def tokens(text: str) -> list[str]:
    """The token sequence of a plain text: ``tokenize(normalise(text))``."""
    return tokenize(normalise(text))


def canonical(text: str) -> str:
    """The normalised form a match is measured in: tokens joined by single spaces."""
    return " ".join(tokens(text))
