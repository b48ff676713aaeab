"""The PDF's fonts: pinned files from matplotlib, served by a fetcher that serves nothing else.

Faces are declared with ``@font-face`` under names of our own ("Probepress Sans" …), so
WeasyPrint never picks a same-named font of the machine. For characters no pinned font
covers (CJK, emoji …) a small **fallback face** is built per document from matplotlib's
Last Resort font: one glyph per such character, each showing its Unicode block. Without
it WeasyPrint would draw ``.notdef`` and switch the whole font to a custom encoding that
pypdf cannot decode, which would blind text extraction (and the holdout gate's leak scan)
to every page of that PDF. The fallback depends only on the page's text and the pinned
package, so it is as reproducible as the rest.
"""

from __future__ import annotations

import functools
import io
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from fontTools import subset
from fontTools.ttLib import TTFont
from fontTools.ttLib.tables._c_m_a_p import CmapSubtable
from fontTools.ttLib.tables._g_l_y_f import Glyph, GlyphComponent

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
LAST_RESORT = "LastResortHE-Regular.ttf"
FALLBACK = "fallback.ttf"
FALLBACK_FAMILY = "Probepress Fallback"
SPACE_EM = 0.318
"""Width of a space in the fallback face (DejaVu Sans's: 651/2048 em)."""


def font_dir() -> Path:
    """The directory of the pinned fonts (matplotlib's TTFs).

    Found without importing matplotlib (which is slow to import and not needed here).
    """
    spec = find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise UsageError("the pinned fonts ship with matplotlib, which is not installed")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


@functools.cache
def covered() -> frozenset[int]:
    """Code points some pinned font other than Last Resort has a glyph for."""
    points: set[int] = set()
    for path in sorted(font_dir().glob("*.ttf")):
        if path.name != LAST_RESORT:
            points |= set(TTFont(path, lazy=True).getBestCmap() or {})
    return frozenset(points)


def fallback_font(text: str) -> bytes | None:
    """A face covering every character of ``text`` no pinned font has, or None.

    Control characters (line ends, tabs) are never drawn and Pango sets every space
    character itself (a missing U+3000 IDEOGRAPHIC SPACE gets its width, not a glyph), so
    neither needs a glyph. The face depends only on the exact set of characters it covers,
    and a volume's pages share a handful of such sets: each is built once per process.
    """
    needed = frozenset(point for point in {ord(c) for c in text} - covered() if not _blank(point))
    return _fallback_face(needed) if needed else None


def _blank(point: int) -> bool:
    """C0 and C1 control characters and white space (never drawn with a glyph)."""
    return point < 0x20 or 0x7F <= point < 0xA0 or chr(point).isspace()


@functools.lru_cache(maxsize=64)
def _fallback_face(needed: frozenset[int]) -> bytes:
    """The fallback face for exactly the code points ``needed``."""
    font = TTFont(io.BytesIO((font_dir() / LAST_RESORT).read_bytes()))
    options = subset.Options()
    options.notdef_outline = True
    options.name_IDs = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(needed))
    subsetter.subset(font)
    blocks = dict(font.getBestCmap() or {})
    # Last Resort maps a whole block to one glyph with a format 13 cmap. fontconfig ignores
    # that format, and a glyph shared by several characters cannot tell text extraction
    # which one it was: give every character its own composite copy of its block's glyph
    # and map them one to one in formats 4 and 12.
    glyf, hmtx = font["glyf"], font["hmtx"]
    mapping = _blank_spaces(font)
    for point, base in sorted(blocks.items()):
        name = f"u{point:06X}"
        glyph = Glyph()
        component = GlyphComponent()
        component.glyphName, component.x, component.y, component.flags = base, 0, 0, 0x4
        glyph.numberOfContours, glyph.components = -1, [component]
        glyf[name] = glyph  # also appends the name to the glyph order
        hmtx[name] = hmtx[base]
        mapping[point] = name
    tables = []
    for fmt, encoding, points in (
        (4, 1, {k: v for k, v in mapping.items() if k <= 0xFFFF}),
        (12, 10, mapping),
    ):
        table = CmapSubtable.newSubtable(fmt)
        table.platformID, table.platEncID, table.language, table.cmap = 3, encoding, 0, points
        tables.append(table)
    font["cmap"].tables = tables
    font["name"].setName(FALLBACK_FAMILY, 1, 3, 1, 0x409)
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue()


def _blank_spaces(font: Any) -> dict[int, str]:
    """Blank glyphs for the spaces: Pango sets a space between two fallback characters in
    the fallback face, and Last Resort would draw a box for it."""
    advance = round(font["head"].unitsPerEm * SPACE_EM)
    mapping = {}
    for point, name in ((0x20, "space"), (0xA0, "uni00A0")):
        glyph = Glyph()
        glyph.numberOfContours = 0
        font["glyf"][name] = glyph
        font["hmtx"][name] = (advance, 0)
        mapping[point] = name
    return mapping


def make_fetcher(fonts: Path, fallback: bytes | None = None) -> Any:
    """A WeasyPrint URL fetcher serving only the pinned font files (and this document's
    fallback face); it refuses any other URL, so rendering reads no network and no file
    elsewhere."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class FontFetcher(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            name = url.removeprefix(FONT_SCHEME)
            if url.startswith(FONT_SCHEME) and name in FONT_FILES:
                data = (fonts / name).read_bytes()
            elif url == FONT_SCHEME + FALLBACK and fallback is not None:
                data = fallback
            else:
                raise ValueError(f"probepress refuses to fetch {url[:200]!r}")
            return URLFetcherResponse(url, data, {"Content-Type": "font/ttf"})

    return FontFetcher()
