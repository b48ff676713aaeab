"""Where a frozen page's PDF breaks: WeasyPrint's page boxes.

The session's render records them in its own PDF workers: :func:`recorded_render` stands
in for ``generator.render.pdf.render_pdf`` and runs the same layout and PDF writer
(``pdf.lay_out``, ``pdf.write_pdf``), so the breaks seen are those of the PDFs it wrote,
and no PDF is laid out twice. :func:`in_worker` lays one page out in a worker prepared
exactly as ``render`` prepares its workers (the pinned fonts only).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from generator.render import pdf
from generator.render.pdf import PdfJob, Rendered, _prepare_worker, prepare


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
    overflow: list[int] = field(default_factory=list)
    """Tables (index in document order) whose right edge passes the page's content edge
    here: columns a reader of the PDF cannot see."""


def _walk(box: Any) -> Any:
    yield box
    for child in getattr(box, "children", None) or ():
        yield from _walk(child)


def describe(document: Any) -> list[PageLayout]:
    """What each page of a laid-out WeasyPrint ``document`` holds."""
    root = document.pages[0]._page_box.children[0].element  # the <html> element
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
        right = page._page_box.content_box_x() + page._page_box.width
        for box in _walk(page._page_box):
            element = getattr(box, "element", None)
            if element is None or getattr(box, "element_tag", None) in ("html", "body"):
                continue
            if type(box).__name__ == "TableBox" and box.element_tag == "table":
                table = tables[id(element)]
                past = box.border_box_x() + box.border_width() > right + 0.5  # CSS px
                if past and table not in seen.overflow:
                    seen.overflow.append(table)
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


LAYOUTS_ENV = "PROBEPRESS_TEST_LAYOUTS"
"""Where :func:`recorded_render` writes the layouts (a folder; set for the PDF workers)."""


def recorded_render(job: PdfJob) -> Rendered:
    """``generator.render.pdf.render_pdf`` itself (the same layout and writer), also
    writing what each page holds to a JSON file under ``$PROBEPRESS_TEST_LAYOUTS``."""
    document = pdf.lay_out(job)
    name = hashlib.sha256(job.path.encode("utf-8")).hexdigest()[:16] + ".json"
    pages = [asdict(page) for page in describe(document)]
    text = json.dumps({"path": job.path, "pages": pages})
    (Path(os.environ[LAYOUTS_ENV]) / name).write_text(text, "utf-8")
    return pdf.write_pdf(job, document)


def recorded(folder: Path) -> dict[str, list[PageLayout]]:
    """The layouts :func:`recorded_render` wrote to ``folder``, by PDF path."""
    out = {}
    for file in sorted(folder.glob("*.json")):
        data = json.loads(file.read_text("utf-8"))
        out[data["path"]] = [
            PageLayout(
                rows={int(k): v for k, v in page["rows"].items()},
                table_rows={int(k): v for k, v in page["table_rows"].items()},
                footer=page["footer"],
                main=page["main"],
                overflow=page["overflow"],
            )
            for page in data["pages"]
        ]
    return out


def table_columns(job: PdfJob) -> list[tuple[str, float, list[float], float]]:
    """Lay ``job`` out (in a prepared worker): each table's class, width and column
    widths, and the content width of the page it starts on, in document order (once per
    table)."""
    ready = prepare(job)
    document = ready.document.render(stylesheets=ready.stylesheets, font_config=ready.fonts)
    tables, seen = [], set()
    for laid in document.pages:
        for box in _walk(laid._page_box):
            element = getattr(box, "element", None)
            if type(box).__name__ == "TableBox" and id(element) not in seen:
                seen.add(id(element))
                page = laid._page_box.width
                tables.append(
                    (element.get("class") or "", box.width, list(box.column_widths), page)
                )
    return tables


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
