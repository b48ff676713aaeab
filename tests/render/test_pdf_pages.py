"""PDFs a reader can use: the page's links are live, and no row sits alone on a page.

Issue 17, defect 5: the PDFs looked link-less (print CSS drew links as plain text), a lone
last table row landed on a page of its own and footers split over two pages.
"""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from tests.render.conftest import layouts_of
from tests.render.inert import inspect
from tests.render.pdf_layout import PageLayout, recorded


def _frozen(root: Path) -> list[Path]:
    return sorted((root / "site_src" / "volumes").rglob("*.html"))


def _uris(pdf: Path) -> set[str]:
    out = set()
    for page in PdfReader(pdf).pages:
        for annotation in page.get("/Annots") or []:
            action = annotation.get_object().get("/A")
            if action is not None and action.get("/S") == "/URI":
                out.add(str(action["/URI"]))
    return out


def test_every_link_of_a_page_is_a_link_in_its_pdf(rendered: Path) -> None:
    pages = _frozen(rendered)
    # Per volume its leaderboard and a jury card per candidate, baselines included:
    # vol-001 1 + 6 models + 2 baselines, vol-002 1 + 8 models + 2 baselines.
    assert len(pages) == 20
    assert sum(p.name.startswith("baseline-") for p in pages) == 4
    for page in pages:
        links = {url for tag, _, url in inspect(page.read_bytes()).urls if tag == "a"}
        links = {url for url in links if not url.startswith("#")}
        assert any(url.endswith("/methodology.html") for url in links), page
        assert links <= _uris(page.with_suffix(".pdf")), page


def _lone(layout: list[PageLayout]) -> list[str]:
    """Every page holding a single row of a longer table, holding only the footer, or
    a second piece of the footer."""
    found = []
    for number, page in enumerate(layout, 1):
        for table, rows in page.rows.items():
            if page.table_rows[table] >= 2 and len(rows) < 2:
                found.append(f"page {number}: row {rows} of table {table} alone")
        if page.footer and not page.main:
            found.append(f"page {number}: the footer alone")
    footer = [n for n, page in enumerate(layout, 1) if page.footer]
    if len(footer) > 1:
        found.append(f"the footer split over pages {footer}")
    return found


def test_no_row_or_footer_alone_on_a_pdf_page(rendered: Path) -> None:
    """The pages as the session's render laid out the PDFs it wrote."""
    layouts = recorded(layouts_of(rendered))
    pdfs = {page.relative_to(rendered).with_suffix(".pdf").as_posix() for page in _frozen(rendered)}
    assert set(layouts) == pdfs
    for path, layout in layouts.items():
        assert len(layout) == len(PdfReader(rendered / path).pages), path
    assert {path: _lone(layout) for path, layout in layouts.items() if _lone(layout)} == {}


def test_no_table_is_wider_than_its_pdf_page(rendered: Path) -> None:
    """A column past the page's edge is cut off in print (the calibration table of a
    jury card lost its last two columns in portrait)."""
    layouts = recorded(layouts_of(rendered))
    wide = {
        path: sorted({t for page in layout for t in page.overflow})
        for path, layout in layouts.items()
    }
    assert {path: tables for path, tables in wide.items() if tables} == {}


def test_the_lone_row_check_finds_what_it_must() -> None:
    layout = [
        PageLayout(rows={0: [0, 1, 2]}, table_rows={0: 4, 1: 1}, main=True),
        PageLayout(rows={0: [3], 1: [0]}, table_rows={0: 4, 1: 1}, main=True, footer=True),
        PageLayout(table_rows={0: 4, 1: 1}, footer=True),
    ]
    assert _lone(layout) == [
        "page 2: row [3] of table 0 alone",
        "page 3: the footer alone",
        "the footer split over pages [2, 3]",
    ]
