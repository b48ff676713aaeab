"""Text extraction: markup, escapes, safe chunk cuts, file formats."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.leaks import tokens
from generator.leaks.extract import decode_escapes, format_of, html_to_text, safe_cut


def test_inline_tags_join_and_block_tags_separate() -> None:
    assert tokens(html_to_text("exam<span class='x'>ple</span> one<br>two<td>three")) == [
        "example",
        "one",
        "two",
        "three",
    ]


def test_text_attributes_comments_and_cdata_are_kept() -> None:
    markup = '<img src="a.png" alt="alt words"><a href="/x" title="tip">link</a>'
    markup += "<!-- hidden note --><![CDATA[raw data]]><div data-q='quoted'></div>"
    assert tokens(html_to_text(markup)) == [
        "alt",
        "words",
        "tip",
        "link",
        "hidden",
        "note",
        "raw",
        "data",
        "quoted",
    ]


def test_entities_are_unescaped_once_and_keep_line_count() -> None:
    text = html_to_text("a&#10;b &amp;lt; &lt;tag&gt;\n<p\nclass=x>c</p>")
    assert text.count("\n") == 2
    assert tokens(text) == ["a", "b", "lt", "tag", "c"]


@given(st.text())
def test_escaped_html_reads_like_the_text(text: str) -> None:
    rendered = html_to_text("<p>" + html.escape(text) + "</p>")
    assert tokens(rendered) == tokens(text)
    assert rendered.count("\n") == text.count("\n")


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"])))
def test_json_escaped_text_reads_like_the_text(text: str) -> None:
    for ascii_only in (True, False):
        encoded = json.dumps(text, ensure_ascii=ascii_only)[1:-1]
        assert tokens(decode_escapes(encoded)) == tokens(text)


def test_surrogate_pairs_and_stray_escapes() -> None:
    assert decode_escapes("\\ud83d\\ude00 \\u4e2d\\u6587 \\ud800 \\x") == "\U0001f600 中文   x"


@pytest.mark.parametrize(
    ("buffer", "markup", "expected"),
    [
        ("alpha beta gamma", False, 10),
        ("alpha beta-\ngamma", False, 5),
        ("alphabeta", False, 0),
        ('alpha <span class="x">beta', True, 5),
        ('alpha <span class="x', True, 5),
        ("alpha &amp; beta", True, 11),
    ],
)
def test_safe_cut(buffer: str, markup: bool, expected: int) -> None:
    assert safe_cut(buffer, markup=markup) == expected


@pytest.mark.parametrize(
    ("name", "head", "expected"),
    [
        # Content decides PDF and media, whatever the name.
        ("a.pdf", b"", "text"),
        ("a.pdf", b"plain text", "text"),
        ("a.dat", b"%PDF-1.7\n", "pdf"),
        ("a.dat", b"\n" * 100 + b"%PDF-1.7\n", "pdf"),
        ("a.HTML", b"<html>", "markup"),
        ("a.txt", b"  <!DOCTYPE html><html>", "markup"),
        ("a.svg", b"<svg>", "markup"),
        ("a.png", b"\x89PNG\r\n\x1a\n\x00\x00", "media"),
        ("a.bin", b"\xff\xd8\xff\xe0", "media"),
        ("a.webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ", "media"),
        ("a.woff2", b"wOF2\x00\x01", "media"),
        ("a.png", b"just text named like an image", "text"),
        ("a.txt", b"ab\x00cd", "text"),
        ("page.md", b"# Title", "markdown"),
        ("figures.json", b"{}", "text"),
    ],
)
def test_format_of(name: str, head: bytes, expected: str) -> None:
    assert format_of(Path(name), head) == expected
