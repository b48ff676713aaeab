"""Tier 0: the mechanical checks that decide pass or fail without a judge.

Every answer gets one outcome with the rule that decided it, so a failure always says why
(the methodology page states the same rules for readers):

- ``empty-answer``: a blank answer passes no check, whatever it forbids.
- A **number check** compares the answer's *stated number* with ``expected``:

  1. The text is normalised (NFKC, markdown emphasis and code marks dropped, thin and
     no-break spaces inside digit groups removed) and every parenthesised or bracketed
     aside is removed: asides are incidental ("391. (Checked twice: 2 times.)").
  2. The *statement* is, first match wins: the sentence after an answer marker
     ("answer is", "answer:", "final answer", "result is" …); else the first sentence
     when it opens with its only number ("240 euros. Here is why: …"); else the last
     sentence holding a number, on the last line holding one.
  3. In the statement, the stated number follows the last ``=`` or ``≈``; without one
     it is the statement's last number. ``1,234`` is one thousand two hundred and
     thirty-four, ``1.5`` a decimal, ``−3`` and ``-3`` negative when the sign touches
     the digits, ``14.1 million`` fourteen million one hundred thousand; a percent
     sign, a currency sign or a unit does not change the number. Digits only: number
     words are not read.
  4. ``several-answers``: two different numbers offered as alternatives — joined by
     "or", ``/`` or ``|``, listed with commas, ``and`` or ``;``, labelled as options
     ("a) 390 b) 391"), or given as a range (``390–400``, ``390-400``, "390 to 400",
     "between 390 and 400") — in the statement, in different answer markers (a
     statement ends where the next marker begins), as two bare-number sentences or
     bullets ("391? 392?", "- 390\n- 391"); or a number besides the stated one offered
     as a possibility anywhere in the answer: introduced by "maybe", "perhaps",
     "possibly", "alternatively", "otherwise", "could be", "might be" at the end of its
     clause ("It could be 390. It could be 391."), or in an aside that opens with "or",
     "maybe" … ("391 (or 392)"). A shotgun answer never passes.
  5. ``approximate-answer``: an exact check (tolerance 0) rejects a hedged statement
     ("about", "approximately", "roughly", "around", "nearly", "almost", ``~``, ``≈``).
  6. ``no-number`` when no statement holds a number; ``wrong-number`` when the stated
     number is further from ``expected`` than the tolerance.

- A **pattern check**: ``too-long`` over ``max_words`` whitespace-separated words;
  ``missing-required`` when a required regular expression finds no match;
  ``forbidden-match`` when a forbidden one does. Patterns are Python regular
  expressions matched case-insensitively against the raw answer, with ``^``/``$`` at
  every line and ``\\A``/``\\Z`` at the whole answer's ends.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from generator.models.bank import NumberCheck, PatternCheck

_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}

# A number as people write it. The sign counts only when it touches the digits and does
# not follow a word or another number ("9.9 − 9.11" subtracts; "= −0.21" is negative);
# an ordinal suffix ("2nd") makes it no number.
_NUMBER = re.compile(
    r"(?<![\w.,])(?P<sign>[-−+](?=\d))?(?<![\w.,])"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?![\d])|\d+)(?P<frac>\.\d+)?(?![\d]|,\d|\.\d)"
    r"(?!st\b|nd\b|rd\b|th\b)"
    r"(?:\s*(?P<scale>thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)
_DIGIT_GROUP_SPACE = re.compile(r"(?<=\d)[\u00a0\u2009\u202f](?=\d{3}\b)")
_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_MARKUP = re.compile(r"\*\*|__|`+")
_LIST_MARKER = re.compile(r"^[ \t]*\d{1,2}[.)][ \t]+(?=\S)", re.MULTILINE)
# A clause that gives a reason is subordinate: "−0.21, since 9.11 is the larger number".
_SUBORDINATE = re.compile(
    r"[,;]?\s+\b(?:because|since|given\s+that|whereas|which)\b", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_MARKER = re.compile(
    r"\b(?:final\s+answer|answer|result)\b\s*(?:is|was|would\s+be|will\s+be|stays|remains|"
    r"equals|comes\s+to|[:=])",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:about|approximately|approx\.?|roughly|around|nearly|almost|circa|ca\.)\s|[~≈]",
    re.IGNORECASE,
)
# Text between two numbers that offers them as alternatives: "or", "/", a range word,
# or nothing but list punctuation (after at most one unit or currency word).
_ALTERNATIVE = re.compile(r"\bor\b|/|\||\beither\b|\bversus\b|\bvs\b", re.IGNORECASE)
# Option labels between numbers ("a) 390 b) 391"), or a hedge right before the second
# ("390 but could be 391").
_OPTION_GAP = re.compile(
    r"\s*[,;]?\s*\(?[a-h]\)\s*|.*\bbut\s+(?:it\s+)?(?:could|might|may)\s+(?:also\s+)?be\s*",
    re.IGNORECASE,
)
# A number offered tentatively, as one possibility among others: "maybe 391", "it could
# be 391", "alternatively 392" (the number ends its clause, so "perhaps 2 methods agree"
# is no offer).
_TENTATIVE = re.compile(
    r"(?:\b(?:maybe|perhaps|possibly|alternatively|otherwise|or\s+else)\b|"
    r"\b(?:could|might|may)\s+(?:also\s+|well\s+)?be\b)"
    r"[\s:,]*(?:it\s+is\s+|it's\s+)?[$€£¥]?\s*$",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"\s*(?:%|¢|[^\W\d_]{1,12})?\s*(?:[.!?;,]|$)", re.IGNORECASE)
# An aside that offers another answer: "391 (or 392)", "391 [maybe 392]".
_ASIDE_OFFER = re.compile(
    r"[(\[]\s*(?:or|maybe|perhaps|possibly|alternatively|otherwise)\b[^()\[\]]*[)\]]",
    re.IGNORECASE,
)
_LIST_GAP = re.compile(
    r"\s*(?:[^\W\d_]{1,12}\.?)?\s*(?:,|;|–|—|-|&|\bto\b|\band\b|,\s*and\b)\s*"
    r"(?:\b(?:also|maybe|perhaps|possibly)\b)?\s*",
    re.IGNORECASE,
)
_BARE = re.compile(
    r"\s*(?:[-*•][ \t]+)?(?:or\s+)?(?:[=≈~]\s*)?(?:(?:about|approximately|roughly|around)\s+)?"
    r"[$€£¥]?\s*(?P<n>[-−+]?\d[\d,]*(?:\.\d+)?)\s*(?:%|¢|[^\W\d_]{1,12})?\s*[.!?]?\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Outcome:
    """What a Tier 0 check decided, and the rule that decided it."""

    passed: bool
    rule: str
    detail: str = ""


@dataclass(frozen=True)
class Stated:
    """The number an answer states (None: it states none), or why it states no one number."""

    value: Decimal | None
    several: tuple[Decimal, ...] = ()
    approximate: bool = False


@dataclass(frozen=True)
class _Token:
    value: Decimal
    start: int
    end: int


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.MULTILINE)


def _normalised(text: str) -> str:
    """NFKC, markup and digit-group spaces dropped, list numbering removed."""
    text = _DIGIT_GROUP_SPACE.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    text = _MARKUP.sub("", text).replace("\r\n", "\n")
    if len(_LIST_MARKER.findall(text)) > 1:  # an ordered list, not numbers stated
        text = _LIST_MARKER.sub("", text)
    return text


def plain(text: str) -> str:
    """The answer as the number rules read it: normalised, asides removed."""
    text = _normalised(text)
    previous = None
    while previous != text:  # nested asides: innermost first
        previous, text = text, _ASIDE.sub(" ", text)
    return text


def _tokens(text: str) -> list[_Token]:
    out = []
    for m in _NUMBER.finditer(text):
        value = Decimal(m.group("int").replace(",", "") + (m.group("frac") or ""))
        if m.group("sign") in ("-", "−"):
            value = -value
        if m.group("scale"):
            value = value.scaleb(_SCALES[m.group("scale").lower()])
        out.append(_Token(value, m.start(), m.end()))
    return out


def _sentences(text: str) -> list[str]:
    """Sentences in order; a line break always ends one (answers are often laid out)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append(text[start : m.end()])
        start = m.end()
    out.append(text[start:])
    return [s for s in out if s.strip()]


def _alternatives(text: str) -> tuple[Decimal, ...]:
    """Distinct numbers of ``text`` offered as alternatives to one another."""
    tokens = _tokens(text)
    offered: list[Decimal] = []
    for left, right in itertools.pairwise(tokens):
        gap = text[left.end : right.start]
        gap = re.sub(r"[$€£¥%¢]", "", gap)
        offered_here = (
            _ALTERNATIVE.search(gap) or _LIST_GAP.fullmatch(gap) or _OPTION_GAP.fullmatch(gap)
        )
        if left.value != right.value and offered_here:
            offered.extend(v for v in (left.value, right.value) if v not in offered)
    return tuple(offered)


def _stated_in(statement: str) -> Stated:
    """The stated number of one statement (rule 3), with rules 4 and 5."""
    reason = _SUBORDINATE.search(statement)
    if reason is not None and _tokens(statement[: reason.start()]):
        statement = statement[: reason.start()]
    cut = max(statement.rfind("="), statement.rfind("≈"))
    part = statement[cut + 1 :] if cut >= 0 else statement
    approximate = bool(_HEDGE.search(statement if cut < 0 else statement[cut:]))
    several = _alternatives(part)
    if several:
        return Stated(None, several, approximate)
    tokens = _tokens(part)
    if not tokens:
        return Stated(None, (), approximate)
    return Stated(tokens[0].value if cut >= 0 else tokens[-1].value, (), approximate)


def _marked(flat: str) -> list[str]:
    """The statement after every answer marker, in order."""
    out = []
    found = list(_MARKER.finditer(flat))
    for m, after in itertools.zip_longest(found, found[1:]):
        # A statement ends at its sentence's end or where the next answer marker begins
        # ("Answer: 390 Answer: 391" states two answers).
        rest = flat[m.end() : after.start() if after is not None else len(flat)]
        end = re.search(r"[.!?;](?=\s|$)", rest)
        out.append(rest[: end.end()] if end else rest)
    return out


def _final_statement(text: str) -> str | None:
    """The last sentence holding a number, joined to the one before when it opens with
    "or" (so "It is 400. Or 391." still offers two answers)."""
    sentences = _sentences(text)
    for n in range(len(sentences) - 1, -1, -1):
        if _tokens(sentences[n]):
            if n and re.match(r"\s*(?:or\b|/)", sentences[n], re.IGNORECASE):
                return sentences[n - 1] + sentences[n]
            if n and sentences[n - 1].rstrip().endswith(";") and _BARE.fullmatch(sentences[n]):
                return sentences[n - 1] + sentences[n]  # "Candidates: 390; 391"
            return sentences[n]
    return None


def _offers(text: str) -> list[Decimal]:
    """Numbers ``text`` offers as possibilities besides its statement: each number a
    tentative phrase introduces at the end of its clause, and each number of an aside
    that opens with "or", "maybe" … (rule 4)."""
    offered = [
        token.value
        for token in _tokens(text)
        if _TENTATIVE.search(text, max(0, token.start - 40), token.start)
        and _CLAUSE_END.match(text, token.end)
    ]
    for aside in _ASIDE_OFFER.finditer(text):
        offered.extend(t.value for t in _tokens(aside.group()))
    return offered


def stated_number(text: str) -> Stated:
    """The number ``text`` states as its answer (module docstring, rules 1–5)."""
    stated = _stated(plain(text))
    if stated.value is None:
        return stated
    others = [v for v in _offers(_normalised(text)) if v != stated.value]
    if others:
        return Stated(None, tuple(dict.fromkeys([stated.value, *others])), stated.approximate)
    return stated


def _stated(body: str) -> Stated:
    """The stated number of ``body`` (already :func:`plain`), rules 2–5 but offers."""
    bare = [
        _tokens(m.group("n"))[0].value
        for s in _sentences(body)
        if (m := _BARE.fullmatch(s)) and _tokens(m.group("n"))
    ]
    if len(set(bare)) > 1:
        return Stated(None, tuple(dict.fromkeys(bare)))
    marked = [_stated_in(s) for s in _marked(body.replace("\n", " "))]
    marked = [s for s in marked if s.value is not None or s.several]
    if marked:
        several = [s for s in marked if s.several]
        values = list(dict.fromkeys(s.value for s in marked if s.value is not None))
        if several:
            return several[0]
        if len(values) > 1:
            return Stated(None, tuple(v for v in values if v is not None))
        return marked[-1]
    first = _sentences(body)[:1]
    if first and re.match(r"\s*[$€£¥]?\s*[-−+]?\d", first[0]) and len(_tokens(first[0])) == 1:
        return _stated_in(first[0])
    statement = _final_statement(body)
    return _stated_in(statement) if statement is not None else Stated(None)


def _show(value: Decimal) -> str:
    return format(value, "f")


def _number(check: NumberCheck, response: str) -> Outcome:
    stated = stated_number(response)
    if stated.several:
        shown = ", ".join(_show(v) for v in stated.several)
        return Outcome(False, "several-answers", f"offers several answers: {shown}")
    if stated.value is None:
        return Outcome(False, "no-number", "states no number")
    if stated.approximate and check.tolerance == 0:
        return Outcome(False, "approximate-answer", f"hedges its answer {_show(stated.value)}")
    if abs(stated.value - check.expected) > check.tolerance:
        wrong = f"states {_show(stated.value)}, not {_show(check.expected)}"
        return Outcome(False, "wrong-number", wrong)
    return Outcome(True, "pass", f"states {_show(stated.value)}")


def _pattern(check: PatternCheck, response: str) -> Outcome:
    words = len(response.split())
    if check.max_words is not None and words > check.max_words:
        return Outcome(False, "too-long", f"{words} words, over {check.max_words}")
    for pattern in check.required:
        if _compiled(pattern).search(response) is None:
            return Outcome(False, "missing-required", f"no match for required {pattern!r}")
    for pattern in check.forbidden:
        if _compiled(pattern).search(response) is not None:
            return Outcome(False, "forbidden-match", f"matches forbidden {pattern!r}")
    return Outcome(True, "pass")


def evaluate(check: NumberCheck | PatternCheck, response: str) -> Outcome:
    """Decide ``response`` under ``check``, with the rule that decided it."""
    if not response.strip():
        return Outcome(False, "empty-answer", "the answer is blank")
    if isinstance(check, NumberCheck):
        return _number(check, response)
    return _pattern(check, response)


def run_check(check: NumberCheck | PatternCheck, response: str) -> bool:
    """True when ``response`` passes ``check``."""
    return evaluate(check, response).passed
