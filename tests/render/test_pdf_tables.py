"""The print layout of a jury card's "what it gets wrong" tables (issue 19, PDFs third
round; on the jury card since the fourth).

Their columns have set widths in print (``table-layout: fixed``), so WeasyPrint never
measures the untrusted texts' narrowest width (with ``overflow-wrap: anywhere`` that is a
layout of the rest of the text after every character) and no unbroken string widens the
table past the page. The section is laid out on a landscape page of the portrait card
(the widths are those the automatic layout gave on the landscape leaderboard).
"""

from __future__ import annotations

import hashlib
import re

from generator.render.environment import PACKAGE_TEMPLATES
from generator.render.pdf import PdfJob
from tests.render.pdf_layout import in_worker, table_columns

ITEMS = ("Item", "Category", "Failed", "Interval", "Draws", "Pass criterion", "Response")
LINES = ("Rubric item", "Line", "Kind", "Failed", "Interval", "Graded draws", "Rubric line")


def _widths(css: str, kind: str) -> list[float]:
    """The percentages the print sheet sets on ``table.<kind>``'s header cells."""
    found = re.findall(rf"table\.{kind} th:nth-child\((\d+)\) {{ width: (\d+)%; }}", css)
    return [float(w) for _, w in sorted(found, key=lambda f: int(f[0]))]


def _table(kind: str, heads: tuple[str, ...], cells: list[str]) -> str:
    head = "".join(f"<th>{h}</th>" for h in heads)
    head += "<th>Response</th>" if kind == "lines" else ""
    body = "".join(f"<td>{c}</td>" for c in cells)
    return (
        f'<table class="wrong {kind}"><thead><tr>{head}</tr></thead>'
        f"<tbody><tr>{body}</tr></tbody></table>"
    )


def test_the_wrong_tables_keep_their_set_columns_and_the_page_width() -> None:
    css = (PACKAGE_TEMPLATES / "page.css").read_text("utf-8")
    template = (PACKAGE_TEMPLATES / "wrong.html").read_text("utf-8")
    assert '<table class="wrong items">' in template and '<table class="wrong lines">' in template
    assert '<section id="wrong" class="wide">' in template
    unbroken = '<div class="text">' + "x" * 2_000 + "</div>"
    first = ['<span class="mono">' + "i" * 40 + "</span>", "cat", "50.0%", "1–2", "5"]
    tables = _table("items", ITEMS, [*first, "y" * 500, unbroken]) + _table(
        "lines", LINES, [*first[:1], "m1", "must", *first[2:], "z" * 500, unbroken]
    )
    # As on a jury card: a portrait page, then the section on a landscape one.
    html = (
        f"<!DOCTYPE html><html><head><style>{css}</style></head><body><main>"
        '<table class="before"><tbody><tr><td>a portrait page</td></tr></tbody></table>'
        f'<section class="wide">{tables}</section></main></body></html>'
    ).encode()
    job = PdfJob("t.pdf", html, hashlib.sha256(html).hexdigest(), 0, False)
    before, *laid = in_worker(table_columns, job)
    assert [kind for kind, *_ in laid] == ["wrong items", "wrong lines"]
    portrait = before[3]
    for (kind, width, columns, page_width), name in zip(laid, ("items", "lines"), strict=True):
        assert page_width > 1.4 * portrait, (kind, page_width, portrait)  # landscape
        set_widths = _widths(css, name)
        assert len(set_widths) == len(columns) - 1 and sum(set_widths) < 100, kind
        # The unbroken strings wrap: the table is as wide as the page's content box.
        assert width <= page_width, (kind, width, page_width)
        shares = [100 * c / sum(columns) for c in columns]
        for share, wanted in zip(shares, set_widths, strict=False):
            assert abs(share - wanted) < 0.5, (kind, shares, set_widths)
