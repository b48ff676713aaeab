"""The fast paths of the scanner give exactly what the plain definitions give.

``normalise`` works line by line on mostly-ASCII text and ``TokenCodes`` finds token ids
with numpy; both are checked here against the straightforward definitions of the
module docstrings, on arbitrary text.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaks.codes import CodeTable, TokenCodes, code_of, screen_of
from generator.leaks.index import LINE_ID, PAGE_ID, UNKNOWN
from generator.leaks.normalise import LINE, PAGE, normalise, tokenize
from tests.leaks import reference

# Letters of several scripts, digits, marks, invisible characters, hyphens of each kind,
# line breaks and soft breaks, ligatures and full-width forms, astral characters.
PIECES = (
    "a",
    "Z",
    "0",
    "7",
    " ",
    "-",
    "\u2010",
    "\u2011",
    "\n",
    "\f",
    "\t",
    "\r",
    "\x1e",
    "_",
    ".",
    "é",
    "e\u0301",
    "ß",
    "Σ",
    "ς",
    "İ",
    "\u00ad",
    "\u200b",
    "ﬁ",
    "Ａ",
    "\u00a0",
    "中",
    "ひ",
    "ภ",
    "한",
    "\u064b",
    "\U0001f60a",
    "\U00020001",
    "Ⅻ",
    "²",
    "well-known",
    "exam-\nple",
    "abcdefghijkl",
)
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(texts, max_size=8).map("\n".join))
def test_line_by_line_normalisation_is_the_whole_text_normalisation(text: str) -> None:
    assert normalise(text) == reference.normalise(text)


@given(st.text())
def test_normalise_matches_its_definition_on_any_text(text: str) -> None:
    assert normalise(text) == reference.normalise(text)


def _vocab(words: list[str]) -> dict[str, int]:
    vocab = {"\x00unknown": UNKNOWN, LINE: LINE_ID, PAGE: PAGE_ID}
    for word in words:
        vocab.setdefault(word, len(vocab))
    return vocab


@settings(max_examples=300, deadline=None)
@given(text=texts, known=st.lists(texts, max_size=6), normalised=st.booleans())
def test_token_ids_are_the_ids_of_the_tokens(text: str, known: list[str], normalised: bool) -> None:
    if normalised:
        text = normalise(text)
    vocab = _vocab([t for k in known for t in tokenize(normalise(k))] + tokenize(text)[::2])
    expected = [vocab.get(t, UNKNOWN) for t in tokenize(text, markers=True)]
    assert TokenCodes(vocab, UNKNOWN).ids(text).tolist() == expected


@given(st.text(), st.text())
def test_token_ids_on_any_text(text: str, other: str) -> None:
    vocab = _vocab(tokenize(normalise(other)) + tokenize(text)[1::2] + ["unknown"])
    expected = [vocab.get(t, UNKNOWN) for t in tokenize(text, markers=True)]
    assert TokenCodes(vocab, UNKNOWN).ids(text).tolist() == expected


def test_codes_never_collide() -> None:
    """Codes are exact: no two different tokens share one, whatever their length."""
    words = ["a", "z", "0", "aa", "a0", "0a", "abcdefgh", "abcdefg", "é", "中", "\U00020001"]
    codes = [code_of(w) for w in words]
    assert None not in codes and len(set(codes)) == len(words)
    assert code_of("abcdefghi") is None and code_of("né") is None
    assert [c >= 1 << 63 for c in codes if c is not None] == [False] * 8 + [True] * 3


def test_long_and_non_ascii_words_pass_their_screen() -> None:
    """Words without a code are found through the screen, however long."""
    words = ["abcdefghi", "abcdefghij", "abcdefghik", "né", "naïve", "résumé", "x" * 300]
    vocab = _vocab(words)
    text = "abcdefghi abcdefghij abcdefghix abcdefghik né ne naïve résumé " + "x" * 300
    expected = [vocab.get(t, UNKNOWN) for t in text.split()]
    assert TokenCodes(vocab, UNKNOWN).ids(text).tolist() == expected
    assert screen_of("abcdefghij") != screen_of("abcdefghi")


@settings(max_examples=50, deadline=None)
@given(
    codes=st.sets(st.integers(1, 2**64 - 1), max_size=300),
    others=st.lists(st.integers(0, 2**64 - 1), max_size=300),
)
def test_code_table_finds_exactly_its_codes(codes: set[int], others: list[int]) -> None:
    # Codes that differ only in their low bits share a home slot: long probe runs.
    keys = sorted(codes | {(c >> 8 << 8) | 1 for c in codes if c >> 8})
    table = CodeTable(np.array(keys, dtype=np.uint64), np.arange(len(keys), dtype=np.int64))
    queries = keys[::-1] + others
    expected = [keys.index(q) if q in keys else -1 for q in queries]
    assert table.get(np.array(queries, dtype=np.uint64), -1).tolist() == expected


def test_reserved_entries_are_never_matched_by_text() -> None:
    """``\\x00unknown`` shares its letters with the word ``unknown``, not its id."""
    vocab = _vocab(["unknown"])
    ids = TokenCodes(vocab, UNKNOWN).ids("unknown\nnothing\f")
    assert ids.tolist() == [vocab["unknown"], LINE_ID, UNKNOWN, PAGE_ID]
    assert TokenCodes(vocab, UNKNOWN).ids("").dtype == np.int64
