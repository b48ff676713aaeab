"""Scanning inside gzip files and ``.tar.gz`` archives (the downloads' bundle archives).

Compressed bytes hide text from a scan of the raw file, so a gzip file (found by its magic
bytes, whatever its name) is decompressed — every gzip member, bounded by
``LeakConfig.max_file_bytes`` of output — and read as what it holds: a tar's regular
members each by their own format (text, markup, Markdown, PDF; media skipped; a nested
gzip again, to a fixed depth), anything else as one text document. A gzip file that
cannot be decompressed within the bound (or is not valid gzip) is an ``Unscannable``,
like an oversized file: never passed as clean.
"""

from __future__ import annotations

import io
import tarfile
import zlib
from pathlib import Path

from generator.errors import InputError
from generator.leaks.extract import SNIFF_BYTES, format_of, pdf_pages
from generator.leaks.index import LeakIndex
from generator.leaks.model import Leak, Unscannable
from generator.leaks.normalise import PAGE
from generator.leaks.stream import Readings

GZIP_MAGIC = b"\x1f\x8b"
FIX = "publish it uncompressed, or as a valid gzip file within the bound"


class Unreadable(InputError):
    """A gzip file the scan cannot read (``scan_paths`` reports it as an Unscannable)."""

    def __init__(self, unscannable: Unscannable) -> None:
        super().__init__(str(unscannable))
        self.unscannable = unscannable


def _refuse(label: str, rule: str, what: str) -> Unreadable:
    return Unreadable(
        Unscannable(label, rule, f"{what}: it cannot be scanned for held-out text", FIX)
    )


MAX_DEPTH = 3
"""Gzip files inside archives inside gzip files … are read this deep, no deeper."""


def inflate(data: bytes, label: str, limit: int) -> bytes:
    """Every gzip member of ``data``, decompressed, refusing more than ``limit`` bytes.

    Raises:
        Unreadable: ``data`` is not valid gzip, or it holds more than ``limit`` bytes.
    """
    out = bytearray()
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            out += inflater.decompress(rest, limit + 1 - len(out))
        except zlib.error as exc:
            raise _refuse(label, "bad-gzip", f"is not valid gzip ({exc})") from None
        if len(out) > limit or inflater.unconsumed_tail:
            raise _refuse(
                label,
                "too-large",
                f"decompresses to more than the leak scan's bound of {limit} bytes",
            )
        if not inflater.eof:
            raise _refuse(label, "bad-gzip", "is a truncated gzip file")
        rest = inflater.unused_data
    return bytes(out)


def _members(data: bytes) -> list[tuple[str, bytes]] | None:
    """A tar's regular members (name, bytes), or None when ``data`` is not a tar."""
    out = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for info in tar:
                handle = tar.extractfile(info) if info.isreg() else None
                if handle is not None:
                    out.append((info.name, handle.read()))
    except tarfile.TarError:
        return None
    return out


def _document(index: LeakIndex, label: str, name: str, data: bytes, depth: int) -> list[Leak]:
    """Leaks in one decompressed document or archive member."""
    if data.startswith(GZIP_MAGIC):
        if depth >= MAX_DEPTH:
            raise _refuse(label, "bad-gzip", f"nests gzip more than {MAX_DEPTH} deep")
        return scan_gzip(index, label, data, index.config.max_file_bytes, depth + 1)
    fmt = format_of(Path(name), data[:SNIFF_BYTES])
    if fmt == "media":
        return []
    readings = Readings.of(index, label, fmt)
    if fmt == "pdf":
        for page in pdf_pages(Path(name), data):
            readings.feed(page + PAGE)
    else:
        readings.feed(data.decode("utf-8", "replace"))
    return readings.finish()


def scan_gzip(index: LeakIndex, label: str, data: bytes, limit: int, depth: int = 0) -> list[Leak]:
    """Leaks in a gzip file's content: each member of the tar it holds, or its text.

    Raises:
        Unreadable: It cannot be decompressed within ``limit`` bytes.
    """
    inner = inflate(data, label, limit)
    members = _members(inner)
    if members is None:
        return _document(index, label, label, inner, depth)
    leaks = []
    for name, body in members:
        leaks += _document(index, label, name, body, depth)
    return sorted(leaks, key=Leak.sort_key)
