"""PDFs of frozen pages: WeasyPrint, from the exact HTML bytes, reproducibly, in parallel.

The fingerprint cannot live inside the file it fingerprints, so each PDF gets an added
print stylesheet that writes ``sha256:<hex of the HTML file>`` into the bottom margin of
every page. Reproducible bytes need four things, all handled here:

* ``SOURCE_DATE_EPOCH`` (the volume's publication date) while rendering — fontTools'
  subsetter otherwise stamps the current time into every embedded font;
* a fixed ``pdf_identifier`` (derived from the HTML fingerprint) and fixed metadata
  (``dcterms.created``/``modified`` and the title, which the page's ``<head>`` carries);
* fonts from a pinned package, not the machine (``generator.render.fonts``): the DejaVu
  TTFs matplotlib ships, served through ``@font-face`` by a URL fetcher that refuses every
  other URL (no network, no file access). Workers also point fontconfig at that one
  directory, so a glyph DejaVu lacks comes from another font of the same package, or from
  the per-document fallback face built from its Last Resort font — never from the machine;
* a fresh worker process per pool (``spawn``), so the environment above is set before
  WeasyPrint and fontconfig are first loaded.

A worker parses the pinned faces' ``@font-face`` sheet and loads them into one
``FontConfiguration`` once per fallback face (most documents have none), not once per
document: the faces do not depend on the document, and the bytes are the same either
way. Each page a worker lays out is reported to the run's progress as it is laid out
(``generator.render.pdf_pages``); each PDF counts as a step when it is done, with its
number of pages.

Workers never outlive the run: on Linux each asks the kernel to kill it when its parent
dies (``PR_SET_PDEATHSIG``), so a SIGKILLed ``render`` leaves no renderer behind; any
other exit (an error, SIGTERM raised as ``SystemExit``) cancels the queue and terminates
them. The scratch folder is named after the parent's pid; one whose owner is gone (a run
that was killed) is removed by the next run.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from importlib.metadata import version
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from generator.progress import Progress, expect
from generator.render import pdf_pages
from generator.render.fonts import (
    FACES,
    FALLBACK,
    FALLBACK_FAMILY,
    FONT_SCHEME,
    fallback_font,
    font_dir,
    make_fetcher,
)
from generator.words import counted

RENDERER = f"WeasyPrint {version('weasyprint')}"
SCRATCH_PREFIX = "probepress-pdf-"
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class PdfJob:
    """One PDF to render (picklable: it crosses into a worker process)."""

    path: str
    """Root-relative path of the PDF."""
    html: bytes
    """The exact bytes of the HTML file."""
    fingerprint: str
    """SHA-256 of ``html``."""
    epoch: int
    """``SOURCE_DATE_EPOCH``: the volume's publication date."""
    demonstration: bool
    """Print "demonstration data" in the top margin of every page."""
    draft: bool = False
    """Print "DRAFT" in the top margin of every page."""


def print_css(
    fingerprint: str, demonstration: bool, draft: bool = False, fallback: bool = False
) -> str:
    """The stylesheet added for the PDF: pinned fonts, the fingerprint and page number in
    the bottom margin, and the demonstration and draft labels in the top margin."""
    return face_css(fallback) + page_css(fingerprint, demonstration, draft, fallback)


def face_css(fallback: bool) -> str:
    """The ``@font-face`` rules of the pinned faces (and of the document's fallback face)."""
    declared = [*FACES, (FALLBACK_FAMILY, "normal", "normal", FALLBACK)] if fallback else FACES
    return "".join(
        f'@font-face{{font-family:"{family}";font-weight:{weight};font-style:{style};'
        f"src:url({FONT_SCHEME}{name})}}\n"
        for family, weight, style, name in declared
    )


def page_css(fingerprint: str, demonstration: bool, draft: bool, fallback: bool) -> str:
    """The rest of the print stylesheet: the faces pinned to every element, the margins."""
    last = f',"{FALLBACK_FAMILY}"' if fallback else ""
    margin = 'font-family:"Probepress Margin";font-size:7pt'
    boxes = [
        f'@bottom-left{{content:"sha256:{fingerprint}";{margin};color:#000}}',
        f'@bottom-right{{content:"page " counter(page) " of " counter(pages);{margin};'
        "color:#57606a}",
    ]
    if demonstration:
        boxes.append(f'@top-right{{content:"demonstration data";{margin};color:#6b4b00}}')
    if draft:
        boxes.append(
            f'@top-left{{content:"DRAFT: not a publication";{margin};font-size:10pt;color:#c4314b}}'
        )
    return (
        f'html,body,body *{{font-family:"Probepress Sans"{last} !important}}\n'
        + "code,pre,kbd,samp,.mono,code *,pre *,.mono *{"
        + f'font-family:"Probepress Mono","Probepress Sans"{last} !important;'
        + "font-weight:normal !important}\n"
        + "@page{"
        + "".join(boxes)
        + "}\n"
    )


@dataclass(frozen=True)
class Prepared:
    """A job's document before layout: what :func:`render_pdf` writes, and what a test
    lays out to see where the pages break."""

    document: Any
    """The ``weasyprint.HTML`` of the page's exact text."""
    stylesheets: list[Any]
    """The added print stylesheets: the pinned faces, then the rest (fingerprint margin)."""
    fonts: Any
    """The ``FontConfiguration`` holding the faces (shared by the worker's documents that
    have the same fallback face)."""


@functools.lru_cache(maxsize=16)
def _faces(fallback: bytes | None) -> tuple[Any, Any]:
    """A ``FontConfiguration`` with the pinned faces (and ``fallback``) loaded, and their
    parsed ``@font-face`` sheet: built once per worker and fallback face."""
    from weasyprint import CSS
    from weasyprint.text.fonts import FontConfiguration

    fonts = FontConfiguration()
    sheet = CSS(
        string=face_css(fallback is not None),
        url_fetcher=make_fetcher(font_dir(), fallback),
        font_config=fonts,
    )
    return fonts, sheet


def prepare(job: PdfJob) -> Prepared:
    """The WeasyPrint inputs of ``job`` (in a worker prepared by :func:`_prepare_worker`)."""
    os.environ["SOURCE_DATE_EPOCH"] = str(job.epoch)
    from weasyprint import CSS, HTML

    text = job.html.decode("utf-8")
    fallback = fallback_font(text)
    fonts, faces = _faces(fallback)
    fetcher = make_fetcher(font_dir(), fallback)
    css = CSS(
        string=page_css(job.fingerprint, job.demonstration, job.draft, fallback is not None),
        url_fetcher=fetcher,
        font_config=fonts,
    )
    # No base URL: relative links stay relative, and no path of this machine gets in.
    return Prepared(HTML(string=text, url_fetcher=fetcher), [faces, css], fonts)


@dataclass(frozen=True)
class Rendered:
    """A rendered PDF and its number of pages."""

    pdf: bytes
    pages: int


def lay_out(job: PdfJob) -> Any:
    """``job``'s WeasyPrint document laid out into pages (in a worker prepared by
    :func:`_prepare_worker`); its pages are reported as they are laid out."""
    ready = prepare(job)
    pdf_pages.rendering(job.path)
    try:
        document = ready.document.render(stylesheets=ready.stylesheets, font_config=ready.fonts)
        pdf_pages.laid_out(len(document.pages))
    finally:
        pdf_pages.rendering(None)
    return document


def write_pdf(job: PdfJob, document: Any) -> Rendered:
    """The PDF bytes of ``job``'s laid-out ``document``."""
    pdf: bytes = document.write_pdf(pdf_identifier=job.fingerprint[:32].encode("ascii"))
    return Rendered(pdf, len(document.pages))


def render_pdf(job: PdfJob) -> Rendered:
    """The PDF of ``job`` (runs in a worker prepared by :func:`_prepare_worker`)."""
    return write_pdf(job, lay_out(job))


def _die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this worker when its parent dies (Linux), and leave at once
    if the parent is already gone (it may have died before the request was made)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _prepare_worker(scratch: str, parent: int, events: Any = None) -> None:
    """Tie the worker's life to its parent's; point fontconfig at the pinned fonts only,
    before WeasyPrint is imported; send the pages it lays out to ``events``."""
    _die_with_parent(parent)
    cache = tempfile.mkdtemp(prefix="fc-", dir=scratch)
    conf = Path(cache) / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
        f"<fontconfig><dir>{font_dir()}</dir><cachedir>{cache}</cachedir></fontconfig>\n",
        "utf-8",
    )
    os.environ["FONTCONFIG_FILE"] = str(conf)
    os.environ.pop("FONTCONFIG_PATH", None)
    # The page CSS is written for browsers too: WeasyPrint warns about what it does not
    # support there (media features, overflow-x). Errors still show.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    pdf_pages.forward(events)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: not ours to judge
    return True


def sweep_scratch(directory: str | None = None) -> int:
    """Remove scratch folders of runs that were killed (their pid no longer exists)."""
    base = directory or tempfile.gettempdir()
    removed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(base):
            pid = entry.name.removeprefix(SCRATCH_PREFIX).split("-", 1)[0]
            if (
                entry.name.startswith(SCRATCH_PREFIX)
                and pid.isdigit()
                and entry.is_dir(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_uid == os.getuid()
                and not _alive(int(pid))
            ):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
    return removed


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and terminate the workers now (not after their page)."""
    processes = list(pool._processes.values())  # no public API reaches the workers
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(5)


def render_pdfs(
    jobs: Sequence[PdfJob], workers: int, progress: Progress | None = None
) -> dict[str, bytes]:
    """Render ``jobs`` on up to ``workers`` processes; PDF bytes by path.

    ``progress`` counts each PDF as it is done ("PDF <path> (9 pages)"; they finish out
    of order) and is told each page as it is laid out, without counting it.
    """
    if not jobs:
        return {}
    sweep_scratch()
    out: dict[str, bytes] = {}
    context = get_context("spawn")
    # Only a display that shows notes gets the pages (a plain callback would drop them).
    events = context.Queue() if callable(getattr(progress, "note", None)) else None
    with (
        tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-") as scratch,
        pdf_pages.Listener(events, progress),
    ):
        pool = ProcessPoolExecutor(
            max_workers=max(1, min(workers, len(jobs))),
            mp_context=context,
            initializer=_prepare_worker,
            initargs=(scratch, os.getpid(), events),
        )
        try:
            # Longest pages first, so no worker is left alone with a big one at the end.
            ordered = sorted(jobs, key=lambda job: (-len(job.html), job.path))
            futures: dict[Future[Rendered], str] = {
                pool.submit(render_pdf, job): job.path for job in ordered
            }
            expect(progress, len(futures))
            for future in as_completed(futures):
                rendered = future.result()
                out[futures[future]] = rendered.pdf
                if progress is not None:
                    progress(f"PDF {futures[future]} ({counted(rendered.pages, 'page')})")
        except BaseException:
            _stop(pool)
            raise
        pool.shutdown(wait=True)
    return dict(sorted(out.items()))
