"""Normalisation and tokenisation, shared by secrets and scanned documents.

Secrets and documents go through the same steps, so a leak is found whenever a public
file re-renders a secret in one of the ways the steps cancel out: HTML escaping, PDF
line breaking and hyphenation, JSON escaping, ligatures, full-width forms, case, and
whitespace or punctuation differences. The steps, in order:

1. Unicode NFKC, casefold, NFKC again (``ﬁ`` → ``fi``, ``Ａ`` → ``a``, NBSP → space,
   ``ß`` → ``ss``).
2. Invisible format characters (soft hyphen, zero-width space and joiners, word
   joiner, BOM) are deleted: renderers insert them inside words.
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

LINE = "\n"
"""Marker token for a line break (``tokenize(..., markers=True)``)."""
PAGE = "\f"
"""Marker token for a page break (the PDF reader separates pages with form feeds)."""
SOFT_BREAK = "\x1e"
"""A line break inside a string (a decoded ``\\n`` escape): not a line of the file."""

_NO_SPACE = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003ffff"  # CJK extensions B and later
)
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200d\u2060\ufeff]+")
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
_ASCII_HYPHENS = _HyphenRules.of("[A-Za-z0-9]", "-")


# Planes and blocks that can hold combining marks: the BMP below the surrogates, the BMP
# above private use, the supplementary multilingual plane, and variation selectors
# supplement (plane 14). The rest is surrogates, private use or unassigned.
_MARK_SPANS = ((0x0300, 0xD7FF), (0xF900, 0x1FFFF), (0xE0100, 0xE01EF))


@cache
def _marks() -> frozenset[str]:
    """Every combining mark (built on first use)."""
    return frozenset(
        chr(cp)
        for lo, hi in _MARK_SPANS
        for cp in range(lo, hi + 1)
        if unicodedata.category(chr(cp)).startswith("M")
    )


def _drop_marks(text: str) -> str:
    """Delete combining marks. Most chunks have none after NFKC, and the set of a chunk's
    characters is cheap, so the deletion table is built only from the marks present."""
    present = _marks().intersection(text)
    return text.translate(dict.fromkeys(map(ord, present))) if present else text


def normalise(text: str) -> str:
    """Apply steps 1-4 of the module docstring; line breaks are kept, one for one.

    Args:
        text: Plain text (HTML and JSON escapes already decoded).

    Returns:
        The normalised text, with exactly as many ``\\n`` as ``text``.
    """
    if text.isascii():
        text = text.lower()
        return _ASCII_HYPHENS.apply(text) if "-" in text else text
    text = unicodedata.normalize("NFKC", text).casefold()
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    text = _drop_marks(text)
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
