"""Normalisation and tokenisation: the rules a public rendering must not defeat."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.leaks import canonical, normalise, tokens
from generator.leaks.normalise import LINE, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello,   WORLD!\n\tAgain", "hello world again"),
        ("ﬁnal ﬂow", "final flow"),
        ("Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ１２３", "fullwidth abc123"),
        ("STRASSE Straße", "strasse strasse"),
        ("non\u00a0breaking\u2009thin\u3000ideographic", "non breaking thin ideographic"),
        ("soft\u00adhyphen zero\u200bwidth", "softhyphen zerowidth"),
        ("don't don’t “quoted” «guillemets»", "don t don t quoted guillemets"),
        ("em—dash en–dash -- double", "em dash en dash double"),
        ("well-known state‑of‑the‑art", "wellknown stateoftheart"),
        ("exam-\nple and exam-  \n  ple", "example and example"),
        ("snake_case **bold** `code`", "snake case bold code"),
        ("café naïve", "café naïve"),
        # Harakat are dropped; alef and yeh are mapped to their UTS #39 skeletons.
        ("العَرَبِيَّة العربية", "lلعربىة lلعربىة"),
        ("раураl ΗΕLLΟ Ѕсrірt", "paypal hello script"),
        ("in\u200evisible\u2063word\u202ebidi\u2066isolate\ufe0f", "invisiblewordbidiisolate"),
        ("tag\U000e0041char hangul\u3164filler", "tagchar hangulfiller"),
    ],
)
def test_canonical_forms(text: str, expected: str) -> None:
    assert canonical(text) == expected


def test_scripts_without_spaces_give_one_token_per_character() -> None:
    assert tokens("中文测试，没有空格。") == ["中", "文", "测", "试", "没", "有", "空", "格"]
    # Katakana カ and タ share their UTS #39 skeletons with the ideographs 力 and 夕.
    assert tokens("ひらがなカタカナ") == list("ひらがな力夕力ナ")
    assert tokens("ภาษาไทย") == [canonical(char) for char in "ภาษาไทย"]
    assert tokens("한국어 문장입니다") == ["한국어", "문장입니다"]
    assert tokens("mixed中文text") == ["mixed", "中", "文", "text"]


def test_a_line_end_hyphen_moves_the_line_break_after_the_joined_word() -> None:
    assert normalise("a exam-\nple rest\nnext") == "a example\n rest\nnext"
    marked = tokenize(normalise("one-\ntwo\nthree"), markers=True)
    assert marked == ["onetwo", LINE, LINE, "three"]


def test_list_dashes_and_minus_signs_are_separators() -> None:
    assert tokens("- item one\n- item two\n5 - 3") == ["item", "one", "item", "two", "5", "3"]


@given(st.text())
def test_normalise_keeps_every_line_break(text: str) -> None:
    assert normalise(text).count("\n") == text.count("\n")


@given(st.text())
def test_normalising_twice_changes_nothing(text: str) -> None:
    once = canonical(text)
    assert canonical(once) == once
