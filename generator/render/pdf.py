"""PDFs of frozen pages: WeasyPrint, from the exact HTML bytes, reproducibly, in parallel.

The fingerprint cannot live inside the file it fingerprints, so each PDF gets an added
print stylesheet that writes ``sha256:<hex of the HTML file>`` into the bottom margin of
every page. Reproducible bytes need four things, all handled here:

* ``SOURCE_DATE_EPOCH`` (the volume's publication date) while rendering — fontTools'
  subsetter otherwise stamps the current time into every embedded font;
* a fixed ``pdf_identifier`` (derived from the HTML fingerprint) and fixed metadata
  (``dcterms.created``/``modified`` and the title, which the page's ``<head>`` carries);
* fonts from a pinned package, not the machine: the DejaVu TTFs matplotlib ships, served
  through ``@font-face`` by a URL fetcher that serves those files and refuses every other
  URL (no network, no file access). Workers also point fontconfig at that one directory,
  so a glyph DejaVu lacks never comes from a font of this machine: it falls back to
  another font of the same package or, for scripts none of them covers (CJK), shows as a
  missing-glyph box while the PDF's text layer keeps the character;
* a fresh worker process per pool (``spawn``), so the environment above is set before
  WeasyPrint and fontconfig are first loaded.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from importlib.metadata import version
from importlib.util import find_spec
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from generator.errors import UsageError

FONT_SCHEME = "probepress-font:"
FACES = (
    ("Probepress Sans", "normal", "normal", "DejaVuSans.ttf"),
    ("Probepress Sans", "bold", "normal", "DejaVuSans-Bold.ttf"),
    ("Probepress Sans", "normal", "italic", "DejaVuSans-Oblique.ttf"),
    ("Probepress Sans", "bold", "italic", "DejaVuSans-BoldOblique.ttf"),
    ("Probepress Mono", "normal", "normal", "DejaVuSansMono.ttf"),
    ("Probepress Mono", "normal", "italic", "DejaVuSansMono-Oblique.ttf"),
    # A face used only in the margins (ASCII), so it never has missing glyphs and its text
    # always extracts cleanly, whatever scripts the page shows.
    ("Probepress Margin", "normal", "normal", "DejaVuSansMono-Bold.ttf"),
)
FONT_FILES = frozenset(face[3] for face in FACES)
RENDERER = f"WeasyPrint {version('weasyprint')}"
Progress = Callable[[str], None]


def font_dir() -> Path:
    """The directory of the pinned fonts (matplotlib's DejaVu TTFs).

    Found without importing matplotlib (which is slow to import and not needed here).
    """
    spec = find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise UsageError("the pinned fonts ship with matplotlib, which is not installed")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


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


def print_css(fingerprint: str, demonstration: bool, draft: bool = False) -> str:
    """The stylesheet added for the PDF: pinned fonts, the fingerprint and page number in
    the bottom margin, and the demonstration and draft labels in the top margin."""
    faces = "".join(
        f'@font-face{{font-family:"{family}";font-weight:{weight};font-style:{style};'
        f"src:url({FONT_SCHEME}{name})}}\n"
        for family, weight, style, name in FACES
    )
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
        faces
        + 'html,body,body *{font-family:"Probepress Sans" !important}\n'
        + "code,pre,kbd,samp,.mono,code *,pre *,.mono *{"
        + 'font-family:"Probepress Mono","Probepress Sans" !important;'
        + "font-weight:normal !important}\n"
        + "@page{"
        + "".join(boxes)
        + "}\n"
    )


def make_fetcher(fonts: Path) -> Any:
    """A WeasyPrint URL fetcher serving only the pinned font files; it refuses any other
    URL (every scheme, every path), so rendering reads no network and no other file."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class FontFetcher(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            name = url.removeprefix(FONT_SCHEME)
            if url.startswith(FONT_SCHEME) and name in FONT_FILES:
                data = (fonts / name).read_bytes()
                return URLFetcherResponse(url, data, {"Content-Type": "font/ttf"})
            raise ValueError(f"probepress refuses to fetch {url[:200]!r}")

    return FontFetcher()


def render_pdf(job: PdfJob) -> bytes:
    """The PDF of ``job`` (runs in a worker prepared by :func:`_prepare_worker`)."""
    os.environ["SOURCE_DATE_EPOCH"] = str(job.epoch)
    from weasyprint import CSS, HTML
    from weasyprint.text.fonts import FontConfiguration

    fetcher = make_fetcher(font_dir())
    fonts = FontConfiguration()
    css = CSS(
        string=print_css(job.fingerprint, job.demonstration, job.draft),
        url_fetcher=fetcher,
        font_config=fonts,
    )
    # No base URL: relative links stay relative, and no path of this machine gets in.
    document = HTML(string=job.html.decode("utf-8"), url_fetcher=fetcher)
    pdf: bytes = document.write_pdf(
        stylesheets=[css],
        font_config=fonts,
        pdf_identifier=job.fingerprint[:32].encode("ascii"),
    )
    return pdf


def _prepare_worker(scratch: str) -> None:
    """Point fontconfig at the pinned fonts only, before WeasyPrint is imported."""
    cache = tempfile.mkdtemp(prefix="fc-", dir=scratch)
    conf = Path(cache) / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
        f"<fontconfig><dir>{font_dir()}</dir><cachedir>{cache}</cachedir></fontconfig>\n",
        "utf-8",
    )
    os.environ["FONTCONFIG_FILE"] = str(conf)
    os.environ.pop("FONTCONFIG_PATH", None)


def render_pdfs(
    jobs: Sequence[PdfJob], workers: int, progress: Progress | None = None
) -> dict[str, bytes]:
    """Render ``jobs`` on up to ``workers`` processes; PDF bytes by path."""
    if not jobs:
        return {}
    out: dict[str, bytes] = {}
    with (
        tempfile.TemporaryDirectory(prefix="probepress-pdf-") as scratch,
        ProcessPoolExecutor(
            max_workers=max(1, min(workers, len(jobs))),
            mp_context=get_context("spawn"),
            initializer=_prepare_worker,
            initargs=(scratch,),
        ) as pool,
    ):
        futures = {pool.submit(render_pdf, job): job.path for job in jobs}
        for future in as_completed(futures):
            out[futures[future]] = future.result()
            if progress is not None:
                progress(futures[future])
    return dict(sorted(out.items()))
