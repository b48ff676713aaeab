"""Getting scannable text out of files: markup, escapes, PDF text layers, safe cuts.

Decisions (each keeps a leak detectable in the form public files actually take):

- **Markup** (``.html``, ``.htm``, ``.xhtml``, ``.svg``, ``.xml``): tags are removed and
  entities unescaped (``&lt;``, ``&#39;``, ``&amp;`` …), since frozen HTML escapes all
  text. Inline formatting tags (``span``, ``em``, ``mark``, ``wbr`` …) are deleted, so a
  word highlighted in two pieces stays one word; every other tag (``br``, ``p``, ``td``
  …) separates words. Text-bearing attribute values (``title``, ``alt``, ``aria-label``,
  ``value``, ``content``, ``data-*`` …) are kept as text, as are comments, CDATA and
  ``script``/``style`` bodies: a secret hidden there is still published.
- **Escapes** in other text files: JSON/Python/YAML-style backslash escapes are
  decoded (``\\n``, ``\\"``, ``\\u4e2d``, surrogate pairs), so a response stored in a
  JSONL line with ``ensure_ascii`` still matches; then HTML character references
  (``&#104;``, ``&#x68;``, ``&eacute;``), since a Markdown page, a bundle or a JSONL
  download may hold them and a browser shows what they stand for. Named references
  are decoded only with their ``;`` there, so plain text such as ``R&D &notes`` reads
  as written.
- **Markdown** (``.md``): read as text, and read a second time with emphasis and code
  markers inside words deleted and inline HTML tags removed (``he**ll**o``,
  ``w_or_d``, ``he`ll`o``, ``he<b>ll</b>o`` all render as one word); the findings of
  both readings are reported, so neither reading can hide what the other finds.
- **PDF**: any file with ``%PDF-`` in its first KiB, whatever its name; the text
  layer is extracted page by page with pypdf (or poppler's ``pdftotext`` when pypdf
  is missing); compressed content streams are never grepped.
- **Media**: images and fonts recognised by their magic bytes (PNG, JPEG, GIF, WebP,
  TIFF, ICO, WOFF, WOFF2, TrueType, OpenType) are not scanned. Names never decide:
  a text file called ``.png`` is text. Everything else is scanned as text (see
  ``scan`` for how bytes become text, NUL bytes included).

Every transformation keeps the number of line breaks, so reported line numbers are
those of the file.
"""

from __future__ import annotations

import html
import io
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from generator.errors import InputError
from generator.leaks.normalise import SOFT_BREAK

Format = Literal["text", "markup", "markdown", "pdf", "media", "gzip"]

MARKUP_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".svg", ".xml"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
MEDIA_MAGIC = (
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF87a",
    b"GIF89a",
    b"II*\x00",
    b"MM\x00*",
    b"\x00\x00\x01\x00",
    b"wOFF",
    b"wOF2",
    b"\x00\x01\x00\x00",
    b"OTTO",
)
"""Leading bytes of the image and font formats a site ships (never text)."""
PDF_MAGIC_WITHIN = 1024
"""PDF readers accept the ``%PDF-`` header anywhere in the first KiB."""
SNIFF_BYTES = 8192
_MARKUP_HEADS = (b"<!doctype html", b"<html", b"<svg", b"<?xml")

_INLINE = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font"}
    | {"i", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong"}
    | {"sub", "sup", "time", "tspan", "tt", "u", "var", "wbr"}
)
"""Inline formatting tags: deleted without a separator, so they never split a word."""
_TEXT_ATTRS = frozenset(
    {"alt", "title", "aria-label", "aria-description", "aria-roledescription"}
    | {"aria-valuetext", "aria-placeholder", "placeholder", "value", "content", "label"}
    | {"summary", "abbr"}
)
"""Attributes whose values readers see (tooltips, alt text, form values, meta content)."""
_TAG = re.compile(
    r"<!--|-->|<!\[CDATA\[|\]\]>|<[!?][^>]*>"
    r"|<(/?)([A-Za-z][A-Za-z0-9:_.-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"
)
_ATTR = re.compile(r"([^\s=/>\"']+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>\"']+)")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?|(.))", re.S)
_SIMPLE_ESCAPES = {"n": SOFT_BREAK, "r": " ", "t": " ", "f": " ", "b": " ", "v": " ", "0": " "}
_HYPHENS = "-\u2010\u2011"


def format_of(path: Path, head: bytes = b"") -> Format:
    """How to read a file: PDF and media by their first bytes (``head``), whatever the
    name; then markup and Markdown by suffix (markup also by a leading tag)."""
    if b"%PDF-" in head[:PDF_MAGIC_WITHIN]:
        return "pdf"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"  # read decompressed (``generator.leaks.archives``)
    if head.startswith(MEDIA_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
        return "media"
    suffix = path.suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in MARKUP_SUFFIXES or head.lstrip()[:16].lower().startswith(_MARKUP_HEADS):
        return "markup"
    return "text"


def _tag_text(match: re.Match[str]) -> str:
    """The text a tag stands for: nothing, a separator, or its text-bearing attributes."""
    breaks = "\n" * match.group(0).count("\n")
    name = match.group(2)
    if name is None:
        return " " + breaks
    values = [
        value.strip("\"'")
        for attr, value in _ATTR.findall(match.group(3) or "")
        if attr.lower() in _TEXT_ATTRS or attr.lower().startswith("data-")
    ]
    if not values:
        return breaks if name.lower() in _INLINE else " " + breaks
    return " " + " ".join(v.replace("\n", " ") for v in values) + " " + breaks


def html_to_text(markup: str) -> str:
    """Remove tags and unescape entities; keeps the number of line breaks.

    Args:
        markup: A piece of HTML/SVG/XML that does not end inside a tag.

    Returns:
        The text a reader sees (plus text-bearing attributes and comments).
    """
    text = _TAG.sub(_tag_text, markup)
    if "&" not in text:
        return text
    # Unescape line by line: an entity such as &#10; must not add a line break.
    return "\n".join(
        html.unescape(line).replace("\n", " ").replace("\r", " ") if "&" in line else line
        for line in text.split("\n")
    )


_REFERENCE = re.compile(
    r"&(?:#[xX]([0-9a-fA-F]{1,8});?|#([0-9]{1,10});?|([A-Za-z][A-Za-z0-9]{1,31});)"
)
_EMPHASIS = re.compile(r"(?<=[^\W_])(?:[*_`~]+|</?[A-Za-z][A-Za-z0-9]*\s*/?>)+(?=[^\W_])")
"""Emphasis, code and inline tags inside a word, as Markdown renders them away."""


def _reference(match: re.Match[str]) -> str:
    """One character reference → what a browser shows (control characters → a space)."""
    hexa, decimal, _ = match.groups()
    if hexa is None and decimal is None:
        # &NewLine; and &Tab; stand for controls: a space, so line numbers stay right.
        return html.unescape(match.group(0)).replace("\n", " ").replace("\r", " ")
    code = int(hexa, 16) if hexa is not None else int(decimal)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code < 0x20 or 0x7F <= code < 0xA0:
        return " "
    return chr(code)


def decode_references(text: str) -> str:
    """Decode HTML character references in plain text (numeric ones with or without
    their ``;``, named ones with it); keeps the number of line breaks."""
    return _REFERENCE.sub(_reference, text) if "&" in text else text


def markdown_rendered(text: str) -> str:
    """Markdown text with emphasis, code markers and inline tags inside words deleted
    (the second reading of a Markdown page; see the module docstring)."""
    return _EMPHASIS.sub("", text)


def _decode_escape(match: re.Match[str]) -> str:
    """One backslash escape → its character (control characters → a space)."""
    high, low, char = match.groups()
    if high is not None:
        code = int(high, 16)
        if low is not None and 0xD800 <= code <= 0xDBFF:
            return chr(0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00))
        if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF:
            return " "  # controls (line and page breaks too) and lone surrogates
        return chr(code)
    return _SIMPLE_ESCAPES.get(char, char)


def decode_escapes(text: str) -> str:
    """Decode backslash escapes (JSON, Python, YAML double-quoted strings).

    An escaped line break becomes ``SOFT_BREAK``: a separator that joins a hyphenated
    word like a real line break but does not count as a line of the file.
    """
    return _ESCAPE.sub(_decode_escape, text) if "\\" in text else text


def safe_cut(buffer: str, *, markup: bool) -> int:
    """Where ``buffer`` can be split so that no match is lost across the split.

    The cut falls on whitespace (never inside a token, an entity or an escape), not
    after a hyphen that may join the next word, and, for markup, not inside a tag.

    Returns:
        The cut index, or 0 when the buffer has no safe cut yet.
    """
    limit = len(buffer)
    for _ in range(64):
        cut = max(buffer.rfind(" ", 0, limit), buffer.rfind("\n", 0, limit))
        cut = max(cut, buffer.rfind("\t", 0, limit))
        if cut <= 0:
            return 0
        if markup:
            opened = buffer.rfind("<", 0, cut)
            if opened > buffer.rfind(">", 0, cut):
                limit = opened  # the whitespace is inside a tag
                continue
        end = cut
        while end > 0 and buffer[end - 1] in " \t\n":
            end -= 1
        if end > 0 and buffer[end - 1] not in _HYPHENS:
            return cut
        limit = end
    return 0


def pdf_pages(path: Path, data: bytes | None = None) -> Iterator[str]:
    """The text layer of a PDF, one string per page.

    Args:
        path: The PDF (named in errors).
        data: Its bytes when already read (they are then what is parsed).

    Raises:
        InputError: The PDF cannot be read, or no PDF text extractor is installed.
    """
    try:
        from pypdf import PdfReader
    except ImportError:
        yield from _pdftotext_pages(path)
        return
    try:
        reader = PdfReader(path if data is None else io.BytesIO(data))
        pages = list(reader.pages)
    except Exception as exc:  # pypdf raises many types on damaged files
        raise InputError(f"{path}: cannot read the PDF: {exc}") from exc
    for number, page in enumerate(pages, start=1):
        try:
            yield page.extract_text() or ""
        except Exception as exc:
            raise InputError(f"{path}: page {number}: cannot extract text: {exc}") from exc


def _pdftotext_pages(path: Path) -> Iterator[str]:
    """Fallback: poppler's ``pdftotext``, which separates pages with form feeds."""
    tool = shutil.which("pdftotext")
    if tool is None:
        raise InputError(
            f"{path}: cannot read PDF text: neither pypdf nor pdftotext is installed",
            (),
        )
    done = subprocess.run([tool, "-enc", "UTF-8", str(path), "-"], capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise InputError(f"{path}: pdftotext failed: {message}")
    yield from done.stdout.decode("utf-8", "replace").split("\f")
