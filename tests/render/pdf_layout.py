"""Where a frozen page's PDF breaks: WeasyPrint's page boxes, read in a PDF worker.

The layout runs in a worker prepared exactly as ``render`` prepares its PDF workers (the
pinned fonts only), from the same ``generator.render.pdf.prepare``, so the breaks seen
here are the breaks of the published PDF.
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from generator.render.pdf import PdfJob, _prepare_worker, prepare


@dataclass
class PageLayout:
    """What one PDF page holds."""

    rows: dict[int, list[int]] = field(default_factory=dict)
    """Body rows on the page, by table (index in document order) -> row indices."""
    table_rows: dict[int, int] = field(default_factory=dict)
    """Every table's number of body rows (the same on every page)."""
    footer: bool = False
    """Some of the page footer is on this page."""
    main: bool = False
    """Some of the page's main content is on this page."""


def _walk(box: Any) -> Any:
    yield box
    for child in getattr(box, "children", None) or ():
        yield from _walk(child)


def lay_out(job: PdfJob) -> list[PageLayout]:
    """Lay ``job`` out (in a prepared worker) and say what each page holds."""
    ready = prepare(job)
    document = ready.document.render(stylesheets=ready.stylesheets, font_config=ready.fonts)
    root = ready.document.etree_element
    parent = {child: node for node in root.iter() for child in node}
    tables = {id(t): n for n, t in enumerate(root.iter("table"))}
    bodies = [b for t in root.iter("table") for b in t if b.tag == "tbody"]
    counts = {tables[id(parent[b])]: len([r for r in b if r.tag == "tr"]) for b in bodies}

    def inside(element: Any, tag: str) -> bool:
        while element is not None:
            if element.tag == tag:
                return True
            element = parent.get(element)
        return False

    out = []
    for page in document.pages:
        seen = PageLayout(table_rows=counts)
        for box in _walk(page._page_box):
            element = getattr(box, "element", None)
            if element is None or getattr(box, "element_tag", None) in ("html", "body"):
                continue
            if box.element_tag == "tr" and parent[element].tag == "tbody":
                table = tables[id(parent[parent[element]])]
                index = list(parent[element]).index(element)
                rows = seen.rows.setdefault(table, [])
                if index not in rows:
                    rows.append(index)
            if type(box).__name__ == "TextBox":
                seen.footer |= inside(element, "footer")
                seen.main |= inside(element, "main")
        out.append(seen)
    return out


def lay_out_all(jobs: list[PdfJob]) -> dict[str, list[PageLayout]]:
    """:func:`lay_out` of every job, in PDF workers; layouts by path."""
    with (
        tempfile.TemporaryDirectory(prefix="pp-layout-") as scratch,
        ProcessPoolExecutor(
            max_workers=min(2, len(jobs)),
            mp_context=get_context("spawn"),
            initializer=_prepare_worker,
            initargs=(scratch, os.getpid()),
        ) as pool,
    ):
        return dict(zip([j.path for j in jobs], pool.map(lay_out, jobs), strict=True))


def table_columns(job: PdfJob) -> tuple[float, list[tuple[str, float, list[float]]]]:
    """Lay ``job`` out (in a prepared worker): the first page's content width, and each
    table's class, width and column widths, in document order (once per table)."""
    ready = prepare(job)
    document = ready.document.render(stylesheets=ready.stylesheets, font_config=ready.fonts)
    page = document.pages[0]._page_box
    tables, seen = [], set()
    for laid in document.pages:
        for box in _walk(laid._page_box):
            element = getattr(box, "element", None)
            if type(box).__name__ == "TableBox" and id(element) not in seen:
                seen.add(id(element))
                tables.append((element.get("class") or "", box.width, list(box.column_widths)))
    return page.width, tables


def in_worker(function: Any, job: PdfJob) -> Any:
    """``function(job)`` in one PDF worker prepared as ``render`` prepares them."""
    with (
        tempfile.TemporaryDirectory(prefix="pp-layout-") as scratch,
        ProcessPoolExecutor(
            max_workers=1,
            mp_context=get_context("spawn"),
            initializer=_prepare_worker,
            initargs=(scratch, os.getpid()),
        ) as pool,
    ):
        return pool.submit(function, job).result()
