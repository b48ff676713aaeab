"""PDFs: the HTML's fingerprint on every page, fixed metadata, pinned fonts, no fetching."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from pypdf import PdfReader

from generator.render.fonts import FONT_FILES, FONT_SCHEME, fallback_font, font_dir, make_fetcher
from generator.render.pdf import print_css


def _families() -> tuple[str, ...]:
    names = {"Probepress-"}
    for path in font_dir().glob("*.ttf"):
        family = TTFont(path, lazy=True)["name"].getDebugName(1)
        names.add(family.replace(" ", "-"))
    return tuple(sorted(names))


PINNED = _families()


def _pdfs(root: Path) -> list[Path]:
    return sorted((root / "site_src" / "volumes").rglob("*.pdf"))


def _page_texts(pdf: Path) -> list[str]:
    """The text layer of each page, as poppler's ``pdftotext`` reads it (pages end with a
    form feed). A twentieth of pypdf's CPU for the 165 pages; pypdf's reading of the text
    layer, which the leak scan uses, is tested by the test below, the Identity-H check
    above and the holdout gate's PDF tests."""
    tool = shutil.which("pdftotext")
    assert tool, "the PDF tests need poppler's pdftotext (make system-deps installs it)"
    done = subprocess.run([tool, str(pdf), "-"], capture_output=True, check=True, timeout=120)
    pages = done.stdout.decode("utf-8").split("\f")
    assert pages[-1].strip() == "", pages[-1]
    return pages[:-1]


def test_every_page_of_every_pdf_carries_its_html_fingerprint(rendered: Path) -> None:
    pdfs = _pdfs(rendered)
    # Two leaderboards; jury cards of 6 + 8 candidates and of 2 baselines per volume.
    assert len(pdfs) == 2 + (6 + 2) + (8 + 2)
    for pdf in pdfs:
        html = pdf.with_suffix(".html").read_bytes()
        stamp = f"sha256:{hashlib.sha256(html).hexdigest()}"
        count = len(PdfReader(pdf).pages)
        texts = _page_texts(pdf)
        assert count >= 1 and len(texts) == count, (pdf.name, count, len(texts))
        for number, text in enumerate(texts, start=1):
            assert stamp in text, f"{pdf.name} page {number} lacks {stamp}"
            assert f"page {number} of {count}" in text


def test_pdf_metadata_is_fixed_and_fonts_are_pinned(rendered: Path) -> None:
    registry = json.loads((rendered / "figures" / "fingerprints.json").read_text("utf-8"))
    for pdf in _pdfs(rendered):
        rel = pdf.relative_to(rendered).as_posix()
        entry = registry["files"][rel]
        html_sha = hashlib.sha256(pdf.with_suffix(".html").read_bytes()).hexdigest()
        assert entry["kind"] == "pdf"
        assert entry["source_sha256"] == html_sha
        assert entry["sha256"] == hashlib.sha256(pdf.read_bytes()).hexdigest()
        reader = PdfReader(pdf)
        meta = reader.metadata
        assert meta is not None
        published = "D:20261001" if "vol-001" in rel else "D:20261125"
        assert meta["/CreationDate"] == published
        assert meta["/ModDate"] == published
        assert meta["/Creator"].startswith("probepress ")
        assert str(reader.trailer["/ID"][0]) == html_sha[:32]
        objects = [f.get_object() for p in reader.pages for f in p["/Resources"]["/Font"].values()]
        fonts = {font["/BaseFont"].split("+", 1)[1] for font in objects}
        # No glyph is missing (a missing glyph switches WeasyPrint to a custom encoding
        # that text extraction cannot read): every font is Identity-H.
        assert {str(font["/Encoding"]) for font in objects} == {"/Identity-H"}, rel
        # Every embedded font is an @font-face face ("Probepress …") or, for a glyph those
        # lack, another font of the same pinned package; never a font of this machine.
        assert fonts and all(f.startswith(PINNED) for f in fonts), (rel, fonts)


def test_text_no_pinned_font_covers_still_extracts(rendered: Path) -> None:
    # The example has a prompt in Japanese, which DejaVu does not cover.
    pdf = rendered / "site_src" / "volumes" / "vol-001" / "jury" / "demo-fjord-fjord-ref-1.pdf"
    assert "大阪" in pdf.with_suffix(".html").read_text("utf-8")
    reader = PdfReader(pdf)
    text = "".join(page.extract_text() for page in reader.pages)
    assert "大阪の今の天気を教えてください。" in "".join(text.split())
    fonts = {
        f.get_object()["/BaseFont"].split("+", 1)[1]
        for page in reader.pages
        for f in page["/Resources"]["/Font"].values()
    }
    assert "Probepress-Fallback" in fonts


def test_the_fetcher_serves_only_the_pinned_fonts() -> None:
    fetcher = make_fetcher(font_dir())
    with pytest.raises(ValueError, match="refuses to fetch"):
        fetcher.fetch(f"{FONT_SCHEME}fallback.ttf")  # no fallback face for this document
    assert make_fetcher(font_dir(), b"face").fetch(f"{FONT_SCHEME}fallback.ttf").read() == b"face"
    for name in sorted(FONT_FILES):
        response = fetcher.fetch(f"{FONT_SCHEME}{name}")
        assert response.read()[:4] in (b"\x00\x01\x00\x00", b"true", b"OTTO")
    for url in (
        "https://example.com/font.ttf",
        "http://127.0.0.1/",
        "file:///etc/passwd",
        f"file://{font_dir()}/DejaVuSans.ttf",
        f"{FONT_SCHEME}../../../../etc/passwd",
        f"{FONT_SCHEME}cmr10.ttf",
        "data:text/css,body{}",
    ):
        with pytest.raises(ValueError, match="refuses to fetch"):
            fetcher.fetch(url)


def test_print_stylesheet_pins_fonts_and_prints_the_fingerprint() -> None:
    css = print_css("ab" * 32, demonstration=True)
    assert f'content:"sha256:{"ab" * 32}"' in css
    assert "demonstration data" in css
    assert "demonstration data" not in print_css("ab" * 32, demonstration=False)
    assert "url(" + FONT_SCHEME in css
    assert "http" not in css
    assert "DRAFT" not in css
    assert 'content:"DRAFT: not a publication"' in print_css("ab" * 32, False, draft=True)


def test_control_characters_need_no_fallback_face() -> None:
    """Line ends and tabs are never drawn: a page of covered text plus them gets no
    fallback face (before, every page did, because a newline had no glyph)."""
    assert fallback_font("Plain text\n\twith line ends\r\n") is None
    assert fallback_font("\u4e2d\n") == fallback_font("\u4e2d")


def test_the_fallback_face_is_built_once_per_set_of_characters() -> None:
    first = fallback_font("<p>\u4e2d\u6587</p>")
    again = fallback_font("\u6587 and \u4e2d, other covered text")
    assert first is not None and first is again
