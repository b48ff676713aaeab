"""The bank's canary GUID (DESIGN §14, issue 18): one fixed string in every public bank file.

Public items leak into training data; that is assumed, and made detectable. The bank
declares a GUID once (``canary`` in ``bank/bank.yaml``) and every public bank file carries
it, so a model maker can search a training corpus for it and drop what it finds, and
anyone can ask whether a model has seen the bank:

* every line of ``bank/public.jsonl`` and of each ``bank_<version>_public.jsonl`` download
  has a ``canary`` field (a field, not a header record: a reader that parses each line as
  an item keeps working, and a line copied alone still carries it);
* ``bank/bank.yaml`` declares it (and its copy among the downloads carries it);
* the bank changelog page states it, with what to do with it.

The held-out index holds no item text (ids, metadata and keyed commitments only), so it
carries none. :func:`refusals` is the check: the site (and so ``publish``) writes nothing
while a public bank file lacks the bank's canary.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from generator.errors import Problem
from generator.models.bank import CANARY_VERSION, BankItem, BankManifest
from generator.store.paths import BANK_MANIFEST, DOWNLOADS, PUBLIC_ITEMS

MANIFEST = BANK_MANIFEST
PUBLIC = PUBLIC_ITEMS
SEARCH = (
    "If you train models: search your training data for this string and drop every "
    "document that contains it. If you evaluate models: a model that completes or recites "
    "it has probably seen the bank's public items, so its results on them (and its "
    "contamination gap on the jury card) should be read with that in mind."
)
DECLARE_FIX = (
    'add `canary: <uuid>` to bank/bank.yaml once and never change it (python -c "import '
    'uuid; print(uuid.uuid4())"), then add the same `"canary"` and `"schema_version": 3` '
    "to every line of bank/public.jsonl"
)


def demo_canary(seed: int) -> str:
    """The example bank's canary: a version-4 UUID derived from the demo seed."""
    digest = hashlib.sha256(f"probepress-canary:{seed}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def with_canary(item: BankItem, canary: str | None) -> BankItem:
    """``item`` carrying ``canary`` (at schema version 3 or later); itself when None."""
    if canary is None:
        return item
    data = item.model_dump(mode="json", exclude_none=True)
    version = max(item.schema_version, CANARY_VERSION)
    return BankItem.model_validate({**data, "canary": canary, "schema_version": version})


def published_on(manifest: BankManifest, version: str) -> dt.date:
    """An item's publication date: the release date of the version that added it."""
    return next(v.released for v in manifest.versions if v.id == version)


@dataclass(frozen=True)
class PublicFile:
    """A public bank file about to be written: where it will be, and its bytes."""

    path: str
    """Root-relative path (messages name it)."""
    data: bytes
    jsonl: bool
    """Whether every line must carry a ``canary`` field (else the text must contain it)."""


def _lines(shown: str, data: bytes, canary: str) -> list[Problem]:
    """Lines of a JSONL bank file whose ``canary`` is absent or another GUID."""
    out = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        found = json.loads(line).get("canary") if line.strip() else None
        if found == canary:
            continue
        what = "carries no canary" if found is None else f"carries canary {found!r}"
        out.append(
            Problem(
                shown,
                number,
                "canary-missing",
                f"{what}; every public bank line carries the bank's canary {canary!r}",
                f'add "canary": "{canary}" and "schema_version": 3 to the line '
                "(`probepress demo` rewrites the example)",
            )
        )
    return out


def refusals(manifest: BankManifest, source: bytes, files: Sequence[PublicFile]) -> list[Problem]:
    """Why the public bank files cannot be written: no canary declared, a line of
    ``bank/public.jsonl`` (``source``) without it, or a planned file without it.

    The planned files are made from the source lines, so they are checked only once the
    source is clean (the root cause is reported, not its copies).
    """
    canary = manifest.canary
    if canary is None:
        message = "the bank declares no canary GUID, which every public bank file must carry"
        return [Problem(MANIFEST, None, "canary-missing", message, DECLARE_FIX)]
    found = _lines(PUBLIC, source, canary)
    if found:
        return found
    for f in files:
        if f.jsonl:
            found += _lines(f.path, f.data, canary)
        elif canary.encode("utf-8") not in f.data:
            message = f"does not state the bank's canary {canary!r}"
            found.append(Problem(f.path, None, "canary-missing", message, DECLARE_FIX))
    return found


def planned_path(name: str) -> str:
    """Root-relative path of a file planned under the downloads folder."""
    return f"{DOWNLOADS}/{name}"
