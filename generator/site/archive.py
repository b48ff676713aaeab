"""A reproducible archive of each volume's public bundles (``archives/<volume>_bundles.tar.gz``).

The archive holds exactly the files the downloads list under ``bundles/<volume>/`` (the
volume file and each candidate's public records, which the holdout gate scans), with the
same bytes and names. Its metadata is fixed so the same bundles always give the same
archive: members sorted by name, regular files only, mode 0644, mtime 0, uid and gid 0, no
user or group name, POSIX ustar headers; the gzip header carries mtime 0 and no file name.

Compressed bytes are reproducible with one zlib; another zlib may compress the same tar
differently, so ``verify`` compares the decompressed tar (:func:`read_tar`), which is
fixed by this module alone.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zlib
from collections.abc import Iterable

from generator.errors import InputError, Problem

FOLDER = "archives"
"""Sub-folder of the downloads holding every volume's archive."""
FILE_MODE = 0o644
GZIP_LEVEL = 9


def archive_name(volume: str) -> str:
    """``archives/vol-001_bundles.tar.gz``."""
    return f"{FOLDER}/{volume}_bundles.tar.gz"


def tar_bytes(files: Iterable[tuple[str, bytes]]) -> bytes:
    """The uncompressed tar of ``files`` (name inside the archive, bytes), sorted by name.

    Raises:
        ValueError: Two files share a name, or a name does not fit a ustar header.
    """
    ordered = sorted(files)
    names = [name for name, _ in ordered]
    if len(set(names)) != len(names):
        raise ValueError("two archive members share a name")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in ordered:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = FILE_MODE
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def compress(tar: bytes) -> bytes:
    """``tar`` gzipped with a fixed header (mtime 0, no file name)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=GZIP_LEVEL
    ) as gz:
        gz.write(tar)
    return buffer.getvalue()


def archive(files: Iterable[tuple[str, bytes]]) -> bytes:
    """The ``.tar.gz`` of ``files``."""
    return compress(tar_bytes(files))


def read_tar(data: bytes, shown: str, limit: int) -> bytes:
    """The tar inside the gzip ``data``, refusing more than ``limit`` bytes of it.

    Raises:
        InputError: ``data`` is not gzip, or it holds more than ``limit`` bytes.
    """
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflate.decompress(data, limit + 1)
    except zlib.error as exc:
        raise InputError(
            f"cannot read {shown}:", [Problem(shown, None, "not-gzip", f"not gzip data ({exc})")]
        ) from None
    if len(out) > limit:
        raise InputError(
            f"cannot read {shown}:",
            [Problem(shown, None, "too-large", f"holds more than {limit:,} bytes of tar")],
        )
    return out
