"""A PDF worker's caches (issue 19): the fallback face by exact set of characters, and one
``FontConfiguration`` with the parsed faces per fallback face. Neither may change a byte:
the same PDFs come out whatever order a worker renders them in, and with every cache
emptied before each document."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from generator.render import fonts, pdf
from generator.render.fonts import fallback_font
from generator.render.pdf import PdfJob

PAGE = (
    "<!doctype html><html><body><h1>{title}</h1><p>{text}</p>"
    "<table><tr><td>{text}</td></tr></table></body></html>"
)
TEXTS = {
    "latin": "Plain covered text,\n\twith line ends and an ideographic\u3000space.",
    "japanese": "大阪の今の天気を教えてください。",
    "korean": "서울 날씨 알려 주세요",
    "japanese-again": "天気は 大阪 の? 教えて",  # a subset of the first set: its own face
    "japanese-same": "くだ大阪さい今天気のを教えて。",  # exactly the first set: the same face
}
JOBS = [
    PdfJob(
        f"volumes/vol-009/{name}.pdf",
        PAGE.format(title=name, text=text).encode("utf-8"),
        f"{n:064x}",
        1_700_000_000,
        True,
    )
    for n, (name, text) in enumerate(TEXTS.items())
]


def _render_all(jobs: list[PdfJob], fresh: bool) -> dict[str, bytes]:
    """In one worker: render ``jobs`` in this order (``fresh``: empty every cache first)."""
    out = {}
    for job in jobs:
        if fresh:
            fonts._fallback_face.cache_clear()
            pdf._faces.cache_clear()
        out[job.path] = pdf.render_pdf(job).pdf
    return out


def _in_a_worker(jobs: list[PdfJob], fresh: bool) -> dict[str, bytes]:
    with (
        tempfile.TemporaryDirectory(prefix="pp-cache-") as scratch,
        ProcessPoolExecutor(
            max_workers=1,
            mp_context=get_context("spawn"),
            initializer=pdf._prepare_worker,
            initargs=(scratch, os.getpid()),
        ) as pool,
    ):
        return pool.submit(_render_all, jobs, fresh).result()


def test_pdfs_are_the_same_bytes_in_any_order_and_without_the_caches() -> None:
    forward = _in_a_worker(JOBS, fresh=False)
    backward = _in_a_worker(JOBS[::-1], fresh=False)
    uncached = _in_a_worker(JOBS[1:] + JOBS[:1], fresh=True)
    assert forward == backward == uncached
    assert len(set(forward.values())) == len(JOBS)  # five documents, five PDFs
    for job in JOBS:
        assert forward[job.path].startswith(b"%PDF-")


def test_the_fallback_face_is_keyed_by_the_exact_set_of_characters() -> None:
    japanese, again, same, korean = (
        fallback_font(TEXTS[name])
        for name in ("japanese", "japanese-again", "japanese-same", "korean")
    )
    assert japanese is not None and again is not None and korean is not None
    assert same is japanese  # the same set: built once
    assert again != japanese  # a smaller set is a different face, never a cached larger one
    assert korean != japanese


def test_white_space_and_line_ends_need_no_fallback_face() -> None:
    # U+3000 is the one space no pinned font has; Pango sets it (and every space) itself.
    assert fallback_font(TEXTS["latin"]) is None
    assert fallback_font("\u3000\u2028\u2029\x85\x0b\x0c") is None
    assert fallback_font("大\u3000阪\n") == fallback_font("阪大")
