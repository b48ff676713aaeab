"""Scanning strings, files and trees of files with a ``LeakIndex``.

Every file is read by what it contains, never by its name (``extract.format_of``), and
only if it is a regular file that is not a symbolic link, opened without following
links and without blocking (``generator.store.regular.open_fd``), with reads
bounded by its size as ``fstat`` gave it and by ``LeakConfig.max_file_bytes``. Anything
else (a link, a FIFO, a socket, a device, an oversized file) is an ``Unscannable``, not a
hang and not silence.

Text is decoded as UTF-8 with undecodable bytes replaced, which never hides an ASCII
byte; a byte-order mark selects UTF-16 or UTF-32 instead. A file holding NUL bytes
without a byte-order mark (UTF-16 text without one, or text padded with NULs), or with a
UTF-16 or UTF-32 mark (which may lie), is also read as UTF-8 with every NUL byte
deleted, so ASCII text interleaved with NULs, or behind a false mark, is read as
written.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import itertools
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from generator.errors import InputError
from generator.leaks.archives import Unreadable, scan_gzip
from generator.leaks.extract import SNIFF_BYTES, Format, format_of, pdf_pages
from generator.leaks.index import LeakIndex
from generator.leaks.model import Leak, LeakConfig, Unscannable
from generator.leaks.normalise import PAGE
from generator.leaks.stream import DocumentScan, Readings
from generator.store.regular import kind_of, open_fd, read_chunks

_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
"""Byte-order marks and the codec that reads past them (UTF-32 LE before UTF-16 LE)."""


def scan_text(
    index: LeakIndex, text: str, source: str = "<text>", *, markup: bool | None = None
) -> list[Leak]:
    """Leaks of any secret in an in-memory document.

    Args:
        index: The secrets.
        text: The document.
        source: Its name in findings; its suffix decides markup and Markdown handling.
        markup: Force (or refuse) HTML/XML handling regardless of ``source``.

    Returns:
        The leaks, in report order.
    """
    fmt = format_of(Path(source))
    if markup is not None:
        fmt = "markup" if markup else "text"
    readings = Readings.of(index, source, fmt)
    step = index.config.chunk_chars
    for start in range(0, len(text), step):
        readings.feed(text[start : start + step])
    return readings.finish()


def scan_file(index: LeakIndex, path: Path | str, source: str | None = None) -> list[Leak]:
    """Leaks in one file, read in bounded chunks (see the module docstring).

    Raises:
        InputError: The file cannot be read, is not a regular file or is too large, a
            gzip file cannot be decompressed within the bound, or a PDF has no readable
            text layer.
    """
    path = Path(path)
    label = str(path) if source is None else source
    try:
        return _scan(index, path, label, _identity(path, label, index.config))
    except _Refused as refused:
        raise InputError(str(refused.unscannable)) from None


@dataclass(frozen=True)
class _Seen:
    """What one read of a file found: its SHA-256, format, size and inode, NUL bytes."""

    digest: str
    fmt: Format
    size: int
    inode: tuple[int, int]
    nul: bool


class _Refused(Exception):
    """A file the scan will not read (carries the finding)."""

    def __init__(self, unscannable: Unscannable) -> None:
        super().__init__(str(unscannable))
        self.unscannable = unscannable


def _open(path: Path, label: str, config: LeakConfig) -> tuple[int, int, tuple[int, int]]:
    """Open a regular file for bounded reading: ``(fd, size, (device, inode))``."""
    try:
        before = os.lstat(path)
        if not stat.S_ISREG(before.st_mode):
            raise _Refused(_not_regular(label, before.st_mode))
        fd, info = open_fd(path)
    except OSError as exc:
        raise InputError(f"{label}: cannot read: {exc.strerror or exc}") from exc
    inode = (info.st_dev, info.st_ino)
    if not stat.S_ISREG(info.st_mode) or inode != (before.st_dev, before.st_ino):
        os.close(fd)  # replaced between lstat and open: read nothing from it
        raise _Refused(_not_regular(label, info.st_mode))
    if info.st_size > config.max_file_bytes:
        os.close(fd)
        raise _Refused(
            Unscannable(
                label,
                "too-large",
                f"is {info.st_size} bytes, over the leak scan's bound of "
                f"{config.max_file_bytes}: it cannot be scanned for held-out text",
                "publish it in smaller files, or keep it out of the publication root",
            )
        )
    return fd, info.st_size, inode


def _not_regular(label: str, mode: int) -> Unscannable:
    kind = kind_of(mode, brief=True)
    return Unscannable(
        label,
        "not-regular",
        f"is {kind}, not a regular file: it cannot be scanned for held-out text",
        "replace it with a regular file or remove it; links are never followed",
    )


def _identity(path: Path, label: str, config: LeakConfig) -> _Seen:
    """Read a file once: its digest, format and whether it holds NUL bytes."""
    fd, size, inode = _open(path, label, config)
    digest = hashlib.sha256()
    head = b""
    nul = False
    for piece in read_chunks(fd, size):
        if len(head) < SNIFF_BYTES:
            head += piece[: SNIFF_BYTES - len(head)]
        nul = nul or b"\x00" in piece
        digest.update(piece)
    return _Seen(digest.hexdigest(), format_of(path, head), size, inode, nul)


def _codec(head: bytes) -> str | None:
    """The codec a byte-order mark selects, or None (UTF-8)."""
    return next((codec for bom, codec in _BOMS if head.startswith(bom)), None)


def _scan(index: LeakIndex, path: Path, label: str, seen: _Seen) -> list[Leak]:
    """Leaks in a file already identified by ``_identity`` (media files: none)."""
    if seen.fmt == "media":
        return []
    config = index.config
    fd, size, _ = _open(path, label, config)
    chunks = read_chunks(fd, min(size, seen.size))
    if seen.fmt == "gzip":
        try:
            return scan_gzip(index, label, b"".join(chunks), config.max_file_bytes)
        except Unreadable as refused:
            raise _Refused(replace(refused.unscannable, source=label)) from None
    if seen.fmt == "pdf":
        data = b"".join(chunks)
        readings = Readings([DocumentScan(index, label, "pdf")])
        for page in pdf_pages(path, data):
            readings.feed(page + PAGE)
        return readings.finish()
    readings = Readings.of(index, label, seen.fmt)
    first = next(chunks, b"")
    codec = _codec(first)
    decode = codecs.getincrementaldecoder(codec or "utf-8")("replace").decode
    strip: Callable[[bytes, bool], str] | None = None
    # A UTF-16 or UTF-32 mark may lie: the UTF-8 reading without NULs is kept beside it.
    if (seen.nul and codec is None) or codec in ("utf-16", "utf-32"):
        readings.add_stripped(DocumentScan(index, label, seen.fmt))
        strip = codecs.getincrementaldecoder("utf-8")("replace").decode
    for raw, final in _with_end(itertools.chain([first], chunks)):
        stripped = strip(raw.replace(b"\x00", b""), final) if strip is not None else ""
        readings.feed(decode(raw, final), stripped)
    return readings.finish()


def _with_end(pieces: Iterator[bytes]) -> Iterator[tuple[bytes, bool]]:
    """Each piece, then an empty final one (so decoders flush what they hold)."""
    for piece in pieces:
        yield piece, False
    yield b"", True


def iter_files(paths: Iterable[Path | str]) -> Iterator[Path]:
    """Every entry named in ``paths`` that is not a directory, directories expanded
    recursively in sorted order.

    Nothing is followed: a symbolic link (to a file or a directory), a FIFO or a
    device is yielded as itself, so scanning it reports it (``Unscannable``).
    Version-control folders are skipped (``.git`` holds compressed objects, not text:
    scan the tracked files themselves).
    """
    for item in paths:
        path = Path(item)
        if path.is_symlink() or not path.is_dir():
            if not path.is_symlink() and not path.exists():
                raise InputError(f"{path}: no such file to scan for leaks")
            yield path
            continue
        for folder, dirs, files in os.walk(path):
            here = Path(folder)
            links = [d for d in dirs if (here / d).is_symlink()]
            dirs[:] = sorted(d for d in dirs if d not in _VCS_DIRS and d not in links)
            for name in sorted([*files, *links]):
                yield here / name


class CleanFiles(Protocol):
    """A memory of file contents already scanned clean against the same secrets.

    ``scan_paths`` asks before scanning a file and reports every file it scanned clean;
    the holdout gate reads ``generator.cache`` for it, under a key made of the secrets,
    the scanner's settings and code, and the file's SHA-256 and format, and hands what
    was scanned clean to its caller to store.
    """

    def known(self, digest: str, fmt: Format) -> bool:
        """True when bytes with this SHA-256, read as ``fmt``, were scanned clean."""
        ...

    def remember(self, digest: str, fmt: Format) -> None:
        """Bytes with this SHA-256, read as ``fmt``, were just scanned clean."""
        ...


def scan_paths(
    index: LeakIndex | Callable[[], LeakIndex],
    paths: Iterable[Path | str],
    *,
    root: Path | None = None,
    on_file: Callable[[Path], None] | None = None,
    clean: CleanFiles | None = None,
    config: LeakConfig | None = None,
    unscannable: list[Unscannable] | None = None,
) -> list[Leak]:
    """Leaks in many files (and directory trees), in report order.

    Args:
        index: The secrets, or a function that builds them (called at most once, and
            only if some file has to be scanned).
        paths: Files and directories to scan.
        root: When given, findings name files relative to it (when they are inside).
        on_file: Called with each file before it is scanned (for progress).
        clean: Contents known clean are skipped; contents scanned clean are added.
        config: The read bounds when ``index`` is a function (else the index's).
        unscannable: Files that cannot be scanned (not regular, too large) are
            appended here; without it, the first one raises ``InputError``.

    Returns:
        Every leak, sorted by file, page, line and secret key.

    Raises:
        InputError: A named file does not exist or cannot be read.
    """
    leaks: list[Leak] = []
    done: dict[tuple[str, Format], list[Leak]] = {}
    secrets: Callable[[], LeakIndex] = (
        functools.cache(index) if callable(index) else (lambda: index)
    )
    bounds = config or (index.config if isinstance(index, LeakIndex) else LeakConfig())
    for path in iter_files(paths):
        if on_file is not None:
            on_file(path)
        source = str(path)
        if root is not None and path.is_relative_to(root):
            source = path.relative_to(root).as_posix()
        try:
            seen = _identity(path, source, bounds)
            identity = (seen.digest, seen.fmt)
            if seen.fmt == "media" or (clean is not None and clean.known(*identity)):
                continue
            # A built publication holds several copies of the same bytes (bundles, their
            # copies under the downloads, the built site's copies): each is scanned once.
            copied = done.get(identity)
            if copied is None:
                copied = done[identity] = _scan(secrets(), path, source, seen)
                if clean is not None and not copied:
                    clean.remember(*identity)
        except _Refused as refused:
            if unscannable is None:
                raise InputError(str(refused.unscannable)) from None
            unscannable.append(refused.unscannable)
            continue
        leaks.extend(replace(leak, source=source) for leak in copied)
    return sorted(leaks, key=Leak.sort_key)
