"""A reproducible archive of each volume's public bundles (``archives/<volume>_bundles.tar.gz``).

The archive holds exactly the files the downloads list under ``bundles/<volume>/`` (the
volume file and each candidate's public records, which the holdout gate scans), with the
same bytes and names. Every site build makes it from ``bundles/``; it is never committed
(git ignores ``site_src/downloads/archives/``), so a root keeps the bundles once.

Its metadata is fixed so the same bundles always give the same tar on any machine: members
sorted by name, regular files only, mode 0644, mtime 0, uid and gid 0, no user or group
name, POSIX ustar headers. The gzip header carries mtime 0 and no file name. The deflate
stream, though, is the zlib's: another zlib (zlib-ng, another version) may compress the
same tar to other bytes. So what each hash proves:

- the ``SHA256SUMS`` line and the site manifest's entry (signed) hold the ``.tar.gz`` as
  published: the very file a reader downloads is the publisher's;
- ``figures/downloads.json`` records, for each published volume, the published archive's
  SHA-256, the SHA-256 of the tar inside and the zlib that compressed it
  (:class:`~generator.models.registries.RegisteredArchive`). A build whose zlib gives the
  unchanged tar other bytes is refused (:func:`refusals`, naming both zlibs) rather than
  publishing other bytes under the same name; a file already in the downloads folder that
  holds the recorded bytes (e.g. copied from the published site) is published again
  (:func:`build`);
- ``verify`` decompresses the archive and compares the tar with the one the public bundles
  give (:func:`read_tar`), which proves its content whatever zlib compressed it; a root
  without built archives has their ``SHA256SUMS`` lines checked by compressing again, or,
  under another zlib, through the registered tar.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError, Problem
from generator.hashing import sha256_bytes
from generator.models.registries import RegisteredArchive
from generator.store.paths import ARCHIVES_FOLDER, DOWNLOADS

FOLDER = ARCHIVES_FOLDER
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


def zlib_version() -> str:
    """The zlib this Python compresses with (``1.2.13``, ``1.3.1.zlib-ng`` …)."""
    return zlib.ZLIB_RUNTIME_VERSION


@dataclass(frozen=True)
class Built:
    """A volume's archive as it is to be published."""

    data: bytes
    """The ``.tar.gz`` bytes."""
    tar_sha256: str
    """SHA-256 of the tar inside."""


def _holds(data: bytes, tar: bytes) -> bool:
    """Whether the gzip ``data`` holds exactly ``tar``."""
    try:
        return read_tar(data, "archive", len(tar)) == tar
    except InputError:
        return False


def _largest_gzip(size: int) -> int:
    """More bytes than any gzip of ``size`` bytes can take (deflate's stored blocks add 5
    bytes per 64 KiB at worst; the gzip header and trailer 18): a larger file is not read."""
    return size + size // 1000 + 1024


def build(
    files: Iterable[tuple[str, bytes]], published: RegisteredArchive | None, kept: Path
) -> Built:
    """The archive of ``files``, compressed here — unless this zlib gives the unchanged
    tar other bytes than ``published`` (the archive as last published) and ``kept`` (the
    file in the downloads folder) holds exactly the published bytes: those are published
    again. Fresh bytes that differ from the published ones are refused by :func:`refusals`.
    """
    tar = tar_bytes(files)
    data = compress(tar)
    digest = sha256_bytes(tar)
    if (
        published is not None
        and published.tar_sha256 == digest
        and sha256_bytes(data) != published.sha256
        and kept.is_file()
        and not kept.is_symlink()
        and kept.stat().st_size <= _largest_gzip(len(tar))
    ):
        old = kept.read_bytes()
        if sha256_bytes(old) == published.sha256 and _holds(old, tar):
            data = old
    return Built(data, digest)


@dataclass(frozen=True)
class Planned:
    """A planned archive download, as :func:`refusals` and :func:`records` read it."""

    name: str
    """Its name inside the downloads (``archives/<volume>_bundles.tar.gz``)."""
    sha256: str
    """SHA-256 of the ``.tar.gz``."""
    tar_sha256: str
    """SHA-256 of the tar inside."""

    @property
    def rel(self) -> str:
        """Its root-relative path (the registry's key)."""
        return f"{DOWNLOADS}/{self.name}"


def refusals(planned: Iterable[Planned], known: Mapping[str, RegisteredArchive]) -> list[Problem]:
    """Planned archives whose tar is the published one but whose bytes are not."""
    out = []
    for p in planned:
        was = known.get(p.rel)
        if was is None or was.tar_sha256 != p.tar_sha256 or was.sha256 == p.sha256:
            continue
        message = (
            f"this Python's zlib {zlib_version()} compresses the unchanged bundles to other "
            f"bytes (sha256 {p.sha256[:12]}…) than the published archive (sha256 "
            f"{was.sha256[:12]}…, compressed with zlib {was.zlib}): publishing them would "
            "break the published SHA256SUMS line and the signatures over it"
        )
        fix = (
            f"build the site with a Python whose zlib is {was.zlib}, or put the published "
            f"archive (the published site's downloads/{p.name}) at {p.rel}: "
            "a file there with the published bytes is published again"
        )
        out.append(Problem(p.rel, None, "archive-recompressed", message, fix))
    return out


def records(
    planned: Iterable[Planned], known: Mapping[str, RegisteredArchive]
) -> dict[str, RegisteredArchive]:
    """The registry entries ``planned`` gives: a new or changed archive is recorded as
    compressed by this zlib; one published again keeps its entry."""
    out = {}
    for p in planned:
        was = known.get(p.rel)
        if was is None or was.sha256 != p.sha256:
            out[p.rel] = RegisteredArchive(
                sha256=p.sha256, tar_sha256=p.tar_sha256, zlib=zlib_version()
            )
    return out
