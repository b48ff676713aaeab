"""Messages escape what a terminal would act on; JSON output stays the same value."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from generator.console import print_json
from generator.errors import InputError, Problem, escape, os_error_message
from generator.store.strict import StrictError, parse_json, parse_yaml


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text: ok", "plain text: ok"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("csi \x9b2J", "csi \\x9b2J"),
        ("bidi \u202eevil\u2066", "bidi \\u202eevil\\u2066"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("line\nbreak\ttab\r", "line\\x0abreak\\x09tab\\x0d"),
        ("sep\u2028", "sep\\u2028"),
        ("tag \U000e0041", "tag \\U000e0041"),
        ("accents é ü 漢字", "accents é ü 漢字"),
    ],
)
def test_escape(raw: str, shown: str) -> None:
    assert escape(raw) == shown


def test_a_problem_escapes_every_part_with_or_without_a_gate() -> None:
    problem = Problem("a\x1b.jsonl", 3, "r\x07", "bad \u202e", "fix \x9b")
    assert str(problem) == "a\\x1b.jsonl:3: bad \\u202e [r\\x07]; fix: fix \\x9b"
    finding = Problem("p\x1b", None, "rule", "m\u200b", "f\x1b", gate="naming")
    assert str(finding) == "p\\x1b: m\\u200b [naming/rule]; fix: f\\x1b"
    error = InputError("cannot read \x1b]0;title\x07:", [problem])
    assert error.render().splitlines()[0] == "cannot read \\x1b]0;title\\x07:"


def test_a_problem_as_json_keeps_the_raw_values_and_a_missing_fix_is_null() -> None:
    finding = Problem("p\x1b", 2, "rule", "m", gate="naming", severity="warning")
    assert finding.as_json() == {
        "gate": "naming",
        "rule": "rule",
        "path": "p\x1b",
        "line": 2,
        "message": "m",
        "fix": None,
        "severity": "warning",
        "cause": None,
        "affected": [],
    }
    assert Problem("p", None, "r", "m", "").as_json()["fix"] is None
    assert Problem("p", None, "r", "m", "do this").as_json()["fix"] == "do this"


def test_print_json_escapes_yet_keeps_the_value() -> None:
    data = {"name": "a\x9bb\u202ec\U000e0041", "plain": "é"}
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        print_json(data)
    text = buffer.getvalue()
    assert "\x9b" not in text and "\u202e" not in text and "\U000e0041" not in text
    assert "\\udb40\\udc41" in text  # an astral character as a JSON surrogate pair
    assert json.loads(text) == data


def test_os_error_message_names_both_paths() -> None:
    exc = OSError(18, "Invalid cross-device link", "/a/\x1bb", None, "/c")
    assert os_error_message(exc) == "/a/\\x1bb -> /c: Invalid cross-device link [EXDEV]"


@pytest.mark.parametrize(
    ("text", "rule", "line"),
    [
        ("a: 1\nb: 2\na: 3\n", "duplicate-key", 3),
        ("true: 1\nyes: 2\n", "duplicate-key", 2),  # two spellings of one YAML key
        ("m:\n  x: 1\n  x: 1\n", "duplicate-key", 3),
        ("a: &x [1]\nb: *x\n", "yaml-alias", 2),
        ("n: " + "9" * 51 + "\n", "int-too-long", 1),
        ("\ufeffa: 1\n", "bom", 1),
    ],
)
def test_yaml_refusals(text: str, rule: str, line: int) -> None:
    with pytest.raises(StrictError) as caught:
        parse_yaml(text)
    assert (caught.value.rule, caught.value.line) == (rule, line)


def test_yaml_within_bounds_reads() -> None:
    assert parse_yaml("a: [[1]]\nb: " + "9" * 50 + "\nc: {x: 1}\n") == {
        "a": [[1]],
        "b": int("9" * 50),
        "c": {"x": 1},
    }


@pytest.mark.parametrize(
    ("raw", "rule", "line"),
    [
        (b'{"a": 1,\n "a": 2}', "duplicate-key", 2),
        (b'{"a": {"b": 1, "b": 1}}', "duplicate-key", 1),
        (b"[" * 202 + b"]" * 202, "too-deep", 1),
        (b'{"n": NaN}', "syntax", 1),
        (b'{"n":\n' + b"1" * 51 + b"}", "int-too-long", 2),
        (b'{"n": ' + b"1" * 5000 + b"}", "int-too-long", 1),
        (b"", "syntax", 1),
    ],
)
def test_json_refusals(raw: bytes, rule: str, line: int) -> None:
    with pytest.raises(StrictError) as caught:
        parse_json(raw)
    assert (caught.value.rule, caught.value.line) == (rule, line)


def test_json_within_bounds_reads() -> None:
    raw = b"[" * 201 + b"]" * 201  # the outermost value and 200 levels inside it
    assert parse_json(raw) is not None
    assert parse_json(b'{"a": [{"b": 1}, {"b": 2}], "n": ' + b"9" * 50 + b"}")["n"] == int("9" * 50)


def test_a_figure_computed_twice_is_refused_as_input() -> None:
    from generator.figures.builder import FigureSet

    registry = FigureSet()
    registry.count("vol-001/x/draws", "draws", 3, [])
    with pytest.raises(InputError) as caught:
        registry.count("vol-001/x/draws", "draws", 4, [])
    assert caught.value.render() == (
        "cannot compute the figures: figure 'vol-001/x/draws' would be registered twice\n"
        "figures/figures.json: two sources compute figure 'vol-001/x/draws' "
        "[figure-id-collision]; fix: run `probepress gate naming VOLUME`: two candidates "
        "whose API strings slugify alike share figure ids"
    )
    assert registry.figures["vol-001/x/draws"].value == "3"
