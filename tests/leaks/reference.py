"""Straightforward reference definitions of normalisation, tokenisation and token ids.

Written from the module docstring of ``generator.leaks.normalise`` with nothing shared
with the production code but the list of scripts written without spaces: every step is
applied to the whole text at once, with plain ``unicodedata`` calls and look-behind-first
regular expressions. Slow, and meant to be obviously right; the fast paths are compared
with it.
"""

from __future__ import annotations

import re
import unicodedata

from generator.leaks.normalise import NO_SPACE_RANGES

INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u2060\ufeff"
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


def normalise(text: str) -> str:
    """Steps 1-4: NFKC, casefold, NFKC; invisible characters and marks deleted; hyphens."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = unicodedata.normalize("NFKC", text)
    text = "".join(
        c for c in text if c not in INVISIBLE and not unicodedata.category(c).startswith("M")
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
