"""Generated Markdown: untrusted text stays inert."""

from __future__ import annotations

import markdown

from generator.site.figrefs import citations
from generator.site.markup import GENERATED_MARKER, code, page, table, text


def _html(md_text: str) -> str:
    return str(markdown.markdown(md_text, extensions=["tables"]))


def test_text_neutralises_html_markdown_and_citations() -> None:
    hostile = '<script>alert(1)</script> *x* [a](javascript:1) {{ fig("x") }} | `c`'
    shown = text(hostile)
    assert citations(shown) == []
    html = _html(shown)
    assert "<script" not in html and "<em>" not in html and "<a " not in html
    assert "<code>" not in html


def test_code_falls_back_to_text_for_unsafe_values() -> None:
    assert code("sha256:abc") == "`sha256:abc`"
    assert "<" not in code("<b>")


def test_table_cells_cannot_break_the_table() -> None:
    html = _html(table(["Name", "Value"], [[text("a|b"), text("1")]]))
    assert html.count("<td>") == 2


def test_page_puts_title_first_then_the_generated_marker() -> None:
    lines = page("Title <x>", "Body.").splitlines()
    assert lines[0] == "# Title &#60;x&#62;"
    assert lines[2] == GENERATED_MARKER
