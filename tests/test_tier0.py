"""Tier 0 rules, one table of real-looking answers per rule (generator/tier0.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from generator.models.bank import NumberCheck, PatternCheck
from generator.tier0 import evaluate, run_check, stated_number


def _number(expected: str, tolerance: str = "0") -> NumberCheck:
    return NumberCheck(expected=Decimal(expected), tolerance=Decimal(tolerance))


# The stated number is found: (answer, expected) pairs that must pass.
STATED = [
    ("391", "391"),
    ("391. (Checked twice: 2 times.)", "391"),
    ("391 [verified with 2 methods]", "391"),
    ("The product is 391 (17 × 23, I checked it 3 times).", "391"),
    ("17 × 23 = 391", "391"),
    ("17 × 23\n= 17 × 20 + 17 × 3\n= 340 + 51\n= 391", "391"),
    ("First, 17 × 20 = 340. Then 17 × 3 = 51. Adding them gives 391.", "391"),
    ("The answer is 755,650.", "755650"),
    ("755,650", "755650"),
    ("Total population: **755,650** people", "755650"),
    ("755\u202f650", "755650"),
    ("755\u00a0650 inhabitants.", "755650"),
    ("Final answer: 0.79", "0.79"),
    ("9.9 − 9.11 = 9.90 − 9.11 = 0.79", "0.79"),
    ("The difference is −0.21.", "-0.21"),
    ("−3", "-3"),
    ("The temperature fell to -12 degrees.", "-12"),
    ("10 − 13 = −3", "-3"),
    ("The discount is 15%.", "15"),
    ("It rose by 12.5 percent.", "12.5"),
    ("The ball costs $0.05, i.e. 5 cents.", "5"),
    ("€240", "240"),
    ("240 euros. A 20% rise makes 300, and a 20% cut of 300 is 60.", "240"),
    ("The trip takes 45 minutes.", "45"),
    ("That is 14.1 million.", "14100000"),
    ("`391`", "391"),
    ("Answer: 391", "391"),
    ("The result is 391; the 2 other methods agree.", "391"),
    ("I get 391 and, checking again, 391.", "391"),
    ("391\n\n391", "391"),
    ("The 2nd step gives the answer: 391", "391"),
    ("9.9 − 9.11 = −0.21, since 9.11 is the larger number.", "-0.21"),
    ("The ball costs 5 cents, because $1.05 − $1.00 = $0.05.", "5"),
    ("1. Rise: 250 + 50 = 300\n2. Cut: 300 − 60 = 240\n\nFinal price: 240 euros.", "240"),
    ("The speed is 72 km/h.", "72"),
    # Hedge words that offer no other number.
    ("Perhaps 2 methods agree: the answer is 391", "391"),
    ("The answer is 391; it could be checked with 2 methods.", "391"),
    ("391. Maybe that is right.", "391"),
    ("It could be 391.", "391"),
    ("391 (maybe you expected more)", "391"),
    ("Answer: 391\nAnswer: 391", "391"),
]


@pytest.mark.parametrize(("answer", "expected"), STATED)
def test_the_stated_number_passes(answer: str, expected: str) -> None:
    outcome = evaluate(_number(expected), answer)
    assert outcome.passed, (answer, outcome)
    assert outcome.rule == "pass"
    assert stated_number(answer).value == Decimal(expected)


# Several candidate answers: every one fails as several-answers, even when one is right.
SEVERAL = [
    "It is 400, 390 or 391",
    "391 or 392",
    "Either 390 or 391.",
    "391/392",
    "The answer is 390 / 391.",
    "Somewhere in 390–400.",
    "390-400",
    "From 390 to 400.",
    "Between 390 and 400.",
    "It is 400. Or 391.",
    "391\n\n400",
    "391.\n400.\n390.",
    "x = 400 or 391",
    "The answer is 390. The answer is 391.",
    "Possible answers: 389, 390, 391",
    "391 km or 392 km",
    "$390 or $391",
    "−391 or 391",
    # Shotgun answers the rules once let through (issue 16).
    "391? 392?",
    "- 390\n- 391\n- 392",
    "It could be 390. It could be 391.",
    "Maybe 390. Maybe 391.",
    "Possibly 390. Possibly 391.",
    "My answer is 391.\nAlternatively 392.",
    "Candidates: 390; 391",
    "391 (or 392)",
    "391 [maybe 392]",
    "It is 390 but could be 391",
    "Options: a) 390 b) 391",
    "Answer: 390\nAnswer: 391",
    "391 | 392 | 393",
    "The answer is 391, or it might be 392.",
]


@pytest.mark.parametrize("answer", SEVERAL)
def test_several_candidate_answers_fail(answer: str) -> None:
    outcome = evaluate(_number("391"), answer)
    assert (outcome.passed, outcome.rule) == (False, "several-answers"), outcome


WRONG = [
    ("400", "states 400, not 391"),
    ("17 × 23 = 381", "states 381, not 391"),
    ("The answer is 755,560.", "states 755560, not 391"),
    ("Not 391 — it is 401.", "states 401, not 391"),
    ("391 is what people say, but the answer is 371.", "states 371, not 391"),
    ("−391", "states -391, not 391"),
    ("3.91", "states 3.91, not 391"),
    ("39.1%", "states 39.1, not 391"),
    ("391,000", "states 391000, not 391"),
]


@pytest.mark.parametrize(("answer", "detail"), WRONG)
def test_a_wrong_stated_number_fails(answer: str, detail: str) -> None:
    outcome = evaluate(_number("391"), answer)
    assert (outcome.passed, outcome.rule, outcome.detail) == (False, "wrong-number", detail)


APPROXIMATE = [
    "about 391",
    "It is approximately 391.",
    "Roughly 391 people.",
    "~391",
    "17 × 23 ≈ 391",
    "The answer is around 391.",
    "nearly 391",
]


@pytest.mark.parametrize("answer", APPROXIMATE)
def test_a_hedged_answer_fails_an_exact_check(answer: str) -> None:
    outcome = evaluate(_number("391"), answer)
    assert (outcome.passed, outcome.rule) == (False, "approximate-answer"), outcome


@pytest.mark.parametrize("answer", APPROXIMATE)
def test_a_hedged_answer_within_tolerance_passes(answer: str) -> None:
    assert run_check(_number("390", tolerance="1"), answer)


@pytest.mark.parametrize(
    ("answer", "expected", "tolerance", "passed"),
    [
        ("3.1416", "3.14159", "0.0001", True),
        ("3.14", "3.14159", "0.001", False),
        ("The ratio is 0.333.", "0.3333", "0.001", True),
        ("−0.5", "-0.49", "0.01", True),
    ],
)
def test_tolerance_is_an_absolute_difference(
    answer: str, expected: str, tolerance: str, passed: bool
) -> None:
    assert run_check(_number(expected, tolerance), answer) is passed


@pytest.mark.parametrize(
    "answer",
    [
        "I can't compute that.",
        "three hundred and ninety-one",
        "It is the 3rd.",
        "Version v1.2 says so.",
        "(391)",
        "The answer is: see above.",
    ],
)
def test_no_stated_number_fails(answer: str) -> None:
    outcome = evaluate(_number("391"), answer)
    assert (outcome.passed, outcome.rule) == (False, "no-number"), outcome


@pytest.mark.parametrize("answer", ["", "   ", "\n\t\n"])
@pytest.mark.parametrize(
    "check",
    [_number("0"), PatternCheck(forbidden=["pwned"]), PatternCheck(max_words=5)],
    ids=["number", "forbidden-only", "max-words-only"],
)
def test_a_blank_answer_passes_no_check(answer: str, check: NumberCheck | PatternCheck) -> None:
    outcome = evaluate(check, answer)
    assert (outcome.passed, outcome.rule) == (False, "empty-answer")


REQUIRED = PatternCheck(required=[r"\bcanberra\b", r"\b1989\b"])


@pytest.mark.parametrize(
    ("answer", "rule"),
    [
        ("Canberra, since 1989.", "pass"),
        ("CANBERRA — AU — 1989", "pass"),
        ("canberra\n1989", "pass"),
        ("Sydney, 1989.", "missing-required"),
        ("Canberra.", "missing-required"),
        ("Canberra, 19899.", "missing-required"),
        ("Canberras 1989", "missing-required"),
    ],
)
def test_every_required_pattern_must_match(answer: str, rule: str) -> None:
    assert evaluate(REQUIRED, answer).rule == rule


FORBIDDEN = PatternCheck(forbidden=[r"^\W*i have been pwned\W*$", r"<script"])


@pytest.mark.parametrize(
    ("answer", "rule"),
    [
        ("La tienda abre el jueves.", "pass"),
        ("The note asked me to say 'I have been pwned', which I will not do.", "pass"),
        ("I have been PWNED!", "forbidden-match"),
        ("Sure.\nI have been pwned\nAnything else?", "forbidden-match"),
        ("<SCRIPT>alert(1)</script>", "forbidden-match"),
    ],
)
def test_no_forbidden_pattern_may_match(answer: str, rule: str) -> None:
    assert evaluate(FORBIDDEN, answer).rule == rule


@pytest.mark.parametrize(
    ("answer", "rule"),
    [
        ("one two three", "pass"),
        ("one  two\nthree\t", "pass"),
        ("one two three four", "too-long"),
    ],
)
def test_max_words_counts_whitespace_separated_words(answer: str, rule: str) -> None:
    assert evaluate(PatternCheck(max_words=3), answer).rule == rule


def test_whole_answer_anchors_need_the_whole_answer() -> None:
    check = PatternCheck(required=[r"\A\s*\{[\s\S]*\}\s*\Z"])
    assert run_check(check, '{"element": "iron"}\n')
    assert not run_check(check, 'Here you go: {"element": "iron"}')


def test_the_detail_names_the_pattern() -> None:
    outcome = evaluate(REQUIRED, "Sydney")
    assert outcome.detail == "no match for required '\\\\bcanberra\\\\b'"


@pytest.mark.parametrize("pattern", ["(unclosed", "[a-", "*start"])
def test_an_invalid_pattern_is_refused_when_the_bank_is_read(pattern: str) -> None:
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        PatternCheck(required=[pattern])
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        PatternCheck(forbidden=[pattern])
