"""The append-only registries under ``figures/``: every frozen file ever published
(``fingerprints.json``) and every public bank download ever published
(``downloads.json``). An entry is added once and never changed: published bytes never
change, an erratum is a new file. (A bundle archive's entry records which compressed
bytes its content was published as: it changes only with that content.)"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, StringConstraints
from pydantic.config import JsonDict

from generator.models.base import Name, Part, Record, Sha256

RootPath = Annotated[
    str,
    StringConstraints(
        pattern=r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$",
        max_length=400,
    ),
]
"""A path relative to the publication root, POSIX, with no empty, ``.`` or ``..`` part
(no part starts with a dot) and no character a file name of the tool's never has."""
KEYS_ONLY_AS_PATTERNED: JsonDict = {"additionalProperties": False}
"""A map keyed by :data:`RootPath` gets its key pattern as ``patternProperties``; this
makes the JSON Schema refuse any other key too, as the model does."""


class FrozenEntry(Part):
    """One frozen file (an HTML page or the PDF rendered from it) as registered."""

    kind: Literal["html", "pdf"]
    """``html`` or ``pdf``."""
    sha256: Sha256
    """SHA-256 of the file's bytes when it was published."""
    volume: Annotated[str, Field(pattern=r"^vol-[0-9]{3}$")]
    """Volume the file belongs to."""
    source_sha256: Sha256 | None = None
    """For a PDF: the SHA-256 of the HTML file it was rendered from."""
    renderer: Name | None = None
    """For a PDF: the renderer and version that made it (e.g. ``WeasyPrint 70.0``)."""


class FingerprintRegistry(Record):
    """``figures/fingerprints.json``: every frozen file ever published, with its SHA-256.

    A volume is on the site once its frozen pages are registered here; ``verify`` checks
    every registered file against its bytes.
    """

    files: dict[RootPath, FrozenEntry] = Field(json_schema_extra=KEYS_ONLY_AS_PATTERNED)
    """Root-relative path (``site_src/volumes/<volume>/…``) -> what was registered."""


class RegisteredDownload(Part):
    """One public bank download as registered when it was first published."""

    sha256: Sha256
    """SHA-256 of its bytes; a build that would give it other bytes is refused."""


class RegisteredLedger(Part):
    """An append-only ledger (``bank/status.jsonl`` …) as last published: its lines then
    may never change, later lines may only be appended."""

    size: int = Field(ge=0)
    """Bytes of the ledger when it was published (its published lines)."""
    sha256: Sha256
    """SHA-256 of those first ``size`` bytes."""
    through: dt.date | None = None
    """The latest publication date of a volume published with it: a volume counts the
    ledger lines dated up to its own, so a line appended later must be dated after this."""


class RegisteredArchive(Part):
    """A volume's bundle archive (``downloads/archives/<volume>_bundles.tar.gz``) as last
    published. The archive is built from ``bundles/`` by every site build and never
    committed; deflate output depends on the zlib, so this records which compressed bytes
    the tar was published as, and ``site`` refuses to publish the same tar as other bytes.
    """

    sha256: Sha256
    """SHA-256 of the ``.tar.gz`` as published: what ``SHA256SUMS`` and the site manifest
    list, so it proves the very file a reader downloaded."""
    tar_sha256: Sha256
    """SHA-256 of the uncompressed tar inside: the public bundles with fixed metadata,
    which ``generator.site.archive`` alone fixes, whatever zlib compressed them."""
    zlib: Annotated[str, StringConstraints(pattern=r"^[0-9A-Za-z.+_-]{1,40}$")]
    """The zlib that compressed it (``zlib.ZLIB_RUNTIME_VERSION``, e.g. ``1.2.13`` or
    ``1.3.1.zlib-ng``): the one that rebuilds the same bytes."""


class DownloadRegistry(Record):
    """``figures/downloads.json``: every public bank download the site ever published.

    Kept by the publisher (not shipped in a built site): the holdout gate names a
    registered download whose bytes on disk changed, and ``site`` refuses to change one.
    """

    files: dict[RootPath, RegisteredDownload] = Field(json_schema_extra=KEYS_ONLY_AS_PATTERNED)
    """Root-relative path (``site_src/downloads/bank_<version>_public.jsonl``) -> its
    registered SHA-256."""
    ledgers: dict[RootPath, RegisteredLedger] = Field(
        default={}, json_schema_extra=KEYS_ONLY_AS_PATTERNED
    )
    """Root-relative path of each append-only ledger (``bank/status.jsonl``,
    ``bank/disagreements.jsonl``) -> its published lines (absent before it is published)."""
    archives: dict[RootPath, RegisteredArchive] = Field(
        default={}, json_schema_extra=KEYS_ONLY_AS_PATTERNED
    )
    """Root-relative path of each published volume's bundle archive
    (``site_src/downloads/archives/<volume>_bundles.tar.gz``) -> the bytes it was published
    as (absent before the first)."""
