"""The scanner's normalisation and token ids are exactly the reference definitions.

``normalise`` and ``TokenCodes`` take fast paths (line by line, character tables, numpy);
``tests.leaks.reference`` applies each step to the whole text in the plainest way. They
must agree on every text: samples of each thing normalisation cancels out, then
arbitrary text.
"""

from __future__ import annotations

import html
import json
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaks.codes import TokenCodes
from generator.leaks.extract import decode_escapes, html_to_text
from generator.leaks.index import LINE_ID, PAGE_ID, UNKNOWN
from generator.leaks.normalise import (
    LINE,
    PAGE,
    _fold,
    casefolds,
    normalise,
    tokenize,
)
from tests.leaks import reference

SAMPLES = {
    "ascii": "Plain ASCII, with UPPER case, digits 0123 and snake_case.\nSecond line.",
    "accented": "Café naïve RÉSUMÉ Ærøskøbing Łódź São Paulo",
    "decomposed": "Cafe\u0301 nai\u0308ve RE\u0301SUME\u0301 A\u030a",
    "stacked marks": "a\u0316\u0301 e\u0301\u0316 q\u0307\u0323 \u0301leading mark",
    "cjk": "中文测试，没有空格。ひらがなカタカナ한국어 문장입니다 ภาษาไทย",
    "arabic": "العَرَبِيَّة العربية ﻻ ﷺ",
    "hebrew": "עִבְרִית עברית שָׁלוֹם",
    "devanagari": "हिन्दी भाषा क़ ड़",
    "line-end hyphens": "an exam-\nple of well-\n  known hyper-\r\nlinked\u2010\ntext-\n\nend",
    "chained hyphens": "one-\ntwo-\nthree-\nfour\nfive",
    "soft breaks": "exam-\x1eple and long-  \x1e word and \x1e alone",
    "soft hyphens": "soft\u00adhyphen zero\u200bwidth join\u200dner word\u2060joiner \ufeffbom",
    "ligatures": "ﬁnal ﬂow eﬀort ﬃx ﬆ Ǆ ǅ ǆ Ⅻ ² ½ ㎏ ℃",
    "full width": "Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ１２３ ｶﾀｶﾅ",
    "german": "STRASSE Straße GROẞE grüße MASSE",
    "turkish": "İstanbul ISTANBUL ıi Iı DİYARBAKIR i\u0307",
    "greek": "ΣΟΦΟΣ σοφός ΌΣΟΣ ς Σ ΑΣ. ΐ ΰ",
    "cherokee": "ᏣᎳᎩ ꮳꮃꭹ",
    "kelvin ohm angstrom": "300 K 5 Ω 2 Å",
    "hangul jamo": "\u1100\u1161\u11a8 \u1112\u1161\u11ab\u1100\u1173\u11af 가\u11a8",
    "emoji": "ok 👍🏽 👩\u200d💻 ❤\ufe0f 🇫🇷 😀-😀 😀x-y",
    "astral letters": "𝐀𝐁𝐂 𝔘𝔫𝔦 𠀀𠀁 𐐀𐐨 𞤀",
    "spaces": "non\u00a0breaking\u2009thin\u3000ideographic\u2028line\u2029para\u200acut",
    "unicode hyphens": "state\u2011of\u2011the\u2011art e\u2010mail a\u2010\u2011b -x- x-",
    "json escapes": decode_escapes(
        json.dumps(
            'Line one\nexam-\nple café \u2011 Σ 中文 \U0001f600\ttab "q" \\ \u00ad',
            ensure_ascii=True,
        )
    ),
    "html entities": html_to_text(
        "<p title='Tïtle'>caf&eacute; &amp; na&iuml;ve &#169; &#x1F600; &lt;tag&gt;"
        "<span>exam</span>ple&nbsp;word &shy; &ndash; &mdash;</p>\n<br>next"
    ),
    "markers": "page one\fpage two\n\fpage three\f",
    "lone surrogate": "a\ud800b \udfffc",
}


def _vocab(words: list[str]) -> dict[str, int]:
    vocab = {"\x00unknown": UNKNOWN, LINE: LINE_ID, PAGE: PAGE_ID}
    for word in words:
        vocab.setdefault(word, len(vocab))
    return vocab


def _check(text: str, known: str = "") -> None:
    """Normalisation and token ids of ``text`` agree with the reference."""
    expected = reference.normalise(text)
    assert normalise(text) == expected
    assert tokenize(expected, markers=True) == reference.tokenize(expected)
    words = reference.tokenize(reference.normalise(known)) + reference.tokenize(expected)[::2]
    vocab = _vocab(words)
    got = TokenCodes(vocab, UNKNOWN).ids(normalise(text)).tolist()
    assert got == reference.token_ids(text, vocab, UNKNOWN)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_match_the_reference(name: str) -> None:
    _check(SAMPLES[name])


def test_all_samples_together_match_the_reference() -> None:
    """Joined, so each fast path meets the others in one text."""
    joined = "\n".join(SAMPLES.values())
    _check(joined, known=joined[::3])
    _check(joined.upper(), known=joined)
    _check(unicodedata.normalize("NFD", joined), known=joined)


def test_mostly_ascii_text_with_scattered_unicode_lines_matches_the_reference() -> None:
    lines = [f"Line {n} of ASCII-only text, well-known and PLAIN." for n in range(300)]
    for n, sample in enumerate(SAMPLES.values()):
        lines[n * 7 + 3] = sample.replace("\n", " ")
    lines[100] = "ends with a hyphen-"
    lines[101] = "ated word and a ŝtrange one-"
    lines[102] = "ﬁnish"
    _check("\n".join(lines), known="\n".join(lines[::2]))


# Pieces that meet at their edges: letters of several scripts and cases, marks,
# invisible characters, every kind of hyphen and break, compatibility forms, astral.
PIECES = (
    *"aZ07 -\u2010\u2011\n\f\t\r\x1e_.",
    *"éßẞΣςİıＡ\u00a0\u00ad\u200b\u200d\ufeffﬁ中ひภ한\u1100\u1161\u11a8Ⅻ²ꭰᏣKΩ",
    "e\u0301",
    "\u0301",
    "\u0316",
    "\u064b",
    "\u0915\u093c",
    "\U0001f60a",
    "\U0001f3fd",
    "\U00020001",
    "\U0001d400",
    "\U00010400",
    "\ufe0f",
    "well-known",
    "exam-\nple",
    "exam-\x1eple",
    "ABCDEFGHIJKL",
    "abcdefghi",
)
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(texts, max_size=10), known=texts)
def test_piece_texts_match_the_reference(lines: list[str], known: str) -> None:
    _check("\n".join(lines), known=known)


@settings(max_examples=300, deadline=None)
@given(text=st.text(), known=st.text())
def test_any_text_matches_the_reference(text: str, known: str) -> None:
    _check(text, known=known)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    ascii_lines=st.lists(st.text(alphabet=st.characters(max_codepoint=127)), max_size=5),
)
def test_unicode_lines_among_ascii_lines_match_the_reference(
    text: str, ascii_lines: list[str]
) -> None:
    _check("\n".join([*ascii_lines, text, *ascii_lines]), known=text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_escaped_and_marked_up_text_matches_the_reference(text: str) -> None:
    _check(decode_escapes(json.dumps(text)))
    _check(decode_escapes(json.dumps(text, ensure_ascii=False)))
    _check(html_to_text(html.escape(text)))


def _inert(char: str) -> bool:
    """NFKC leaves it alone next to anything; not deleted by steps 2 and 3."""
    cp = ord(char)
    return (
        unicodedata.normalize("NFKC", char) == char
        and unicodedata.combining(char) == 0
        and not unicodedata.category(char).startswith(("M", "Cs"))
        and not reference.invisible(char)
        and reference.skeleton(char) == char
        and not any(lo <= cp <= hi for lo, hi in ((0x1100, 0x11FF), (0xA960, 0xA97F)))
        and not 0xD7B0 <= cp <= 0xD7FF
    )


def _casefolds(char: str) -> bool:
    """The definition of ``casefolds``, one character at a time."""
    return char.isascii() or (_inert(char) and all(map(_inert, char.casefold())))


def _casefolds_table() -> list[bool]:
    """``casefolds`` of every UTF-16 code unit (each character settled on first use)."""
    return casefolds(np.arange(0x10000, dtype=np.uint16)).tolist()


def test_casefold_table_is_its_definition() -> None:
    table = _casefolds_table()
    assert [cp for cp in range(0x10000) if table[cp] != _casefolds(chr(cp))] == []


def test_casefolding_characters_fold_to_their_case_fold() -> None:
    """Every BMP character the fast path only case-folds folds, alone, to ``casefold()``;
    ASCII ones to ``lower()`` too."""
    table = _casefolds_table()
    for cp in range(0x10000):
        if table[cp]:
            char = chr(cp)
            assert _fold(char) == char.casefold(), f"U+{cp:04X}"
    assert all(chr(cp).lower() == chr(cp).casefold() for cp in range(128))


def test_no_case_folding_character_composes_with_what_precedes_it() -> None:
    """NFKC composes a starter with a following character only if that character is the
    second of a canonical pair (or a conjoining jamo); none of those is case-folded alone,
    so a line of case-folded characters is already in normal form."""
    seconds = set()
    for cp in range(0x110000):
        parts = unicodedata.decomposition(chr(cp)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            seconds.add(int(parts[1], 16))
    seconds.update(range(0x1161, 0x1176), range(0x11A8, 0x11C3))
    table = _casefolds_table()
    folded = {ord(c) for cp in range(0x10000) if table[cp] for c in chr(cp).casefold()}
    assert not [f"U+{cp:04X}" for cp in sorted(seconds) if cp < 0x10000 and table[cp]]
    assert not [f"U+{cp:04X}" for cp in sorted(seconds & folded)]
