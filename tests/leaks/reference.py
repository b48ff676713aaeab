"""Straightforward reference definitions of normalisation, tokenisation and token ids.

Written from the module docstring of ``generator.leaks.normalise`` with nothing shared
with the production code but the list of scripts written without spaces and the data
source (ICU): every step is applied to the whole text at once, with plain
``unicodedata`` calls, ICU's property and skeleton queries one character at a time, and
look-behind-first regular expressions. Slow, and meant to be obviously right; the fast
paths are compared with it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import icu

from generator.leaks.normalise import NO_SPACE_RANGES

_SPOOF = icu.SpoofChecker()
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_BIDI = icu.UProperty.BIDI_CONTROL
HYPHENS = "-\u2010\u2011"
_WORD = r"[^\W_]"
_HY = f"[{HYPHENS}]"
_INSIDE = re.compile(rf"(?<={_WORD}){_HY}(?={_WORD})")
_SOFT = re.compile(rf"(?<={_WORD}){_HY}[ \t\r]*\x1e[ \t\r]*(?={_WORD})")
_HARD = re.compile(
    rf"(?<={_WORD}){_HY}[ \t\r]*\n[ \t\r]*{_WORD}+(?:{_HY}[ \t\r]*\n[ \t\r]*{_WORD}+)*"
)
_NO_SPACE = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in NO_SPACE_RANGES)
_TOKEN = re.compile(rf"[\n\f]|[{_NO_SPACE}]|[^\W_{_NO_SPACE}]+")


def _joined(match: re.Match[str]) -> str:
    """A word broken across lines, joined, with its line breaks moved after it."""
    broken = match.group(0)
    kept = "".join(c for c in broken if c not in HYPHENS + " \t\r\n")
    return kept + "\n" * broken.count("\n")


def invisible(char: str) -> bool:
    """Default_Ignorable_Code_Point or Bidi_Control, asked of ICU."""
    if 0xD800 <= ord(char) <= 0xDFFF:
        return False  # a lone surrogate has neither property
    return bool(icu.Char.hasBinaryProperty(char, _IGNORABLE)) or bool(
        icu.Char.hasBinaryProperty(char, _BIDI)
    )


def _icu_skeleton(char: str) -> str:
    """ICU's skeleton of a non-ASCII letter or digit but Hangul (composed); else the
    character."""
    if char.isascii() or not char.isalnum() or unicodedata.name(char, "").startswith("HANGUL"):
        return char
    found = _SPOOF.getSkeleton(0, char)
    if found == unicodedata.normalize("NFD", char):
        return char
    return unicodedata.normalize("NFC", found)


def _casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


_LATIN = {_SPOOF.getSkeleton(0, c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def _first(char: str) -> str:
    """The Latin small letter whose capital has the skeleton of this letter's capital;
    else the letter's own case-folded skeleton (the character itself when unmapped)."""
    if char.isascii() or not char.isalnum():
        return char
    capital = char.upper()
    if len(capital) == 1 and capital != char and _icu_skeleton(capital) in _LATIN:
        return _LATIN[_icu_skeleton(capital)]
    return _casefold(_icu_skeleton(char))


@cache
def skeleton(char: str) -> str:
    """A character's skeleton (see ``_first``), mapped again until nothing changes."""
    mapped = _first(char)
    while mapped != char and (again := _casefold("".join(map(_first, mapped)))) != mapped:
        mapped = again
    return mapped


def normalise(text: str) -> str:
    """Steps 1-4: NFKC, casefold, NFKC, skeletons; invisible characters and marks
    deleted; hyphens."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    text = "".join(map(skeleton, text))
    text = "".join(
        c for c in text if not invisible(c) and not unicodedata.category(c).startswith("M")
    )
    text = _INSIDE.sub("", text)
    text = _SOFT.sub("", text)
    return _HARD.sub(_joined, text)


def tokenize(normalised: str) -> list[str]:
    """Steps 5 and 6, with the line and page markers."""
    return _TOKEN.findall(normalised)


def token_ids(text: str, vocab: dict[str, int], unknown: int) -> list[int]:
    """The id of every token of ``text`` (markers included), ``unknown`` when absent."""
    return [vocab.get(token, unknown) for token in tokenize(normalise(text))]
