"""``verify``'s check of the bank's canary (DESIGN §14): every public bank file of the
publication, as downloaded, carries the canary GUID the bank declares.

What this proves, and what it does not. The bank promises that each public bank line
carries its canary, so that whoever searches a training corpus for the GUID finds every
copy of the public items and can drop it (``generator.canary``). This check says whether
the files in hand keep that promise: a line without the canary, or with another GUID,
would slip through such a search. It proves nothing about who wrote the files: someone
who edits a file can edit its canary just as easily, so a passing check is no evidence
that a file is genuine — that is the integrity checks' and the signature's job. A file
that fails both is reported by both: its integrity finding says it changed since it was
published, this one says which lines a canary search would miss.

The bank's canary is the one ``bank/bank.yaml`` of the same view declares. The files
checked are, wherever they lie in the view (the root's ``bank/``, the downloads, a built
site's copies): ``bank/public.jsonl`` and each ``bank_<version>_public.jsonl`` (every
line, as a ``canary`` field) and each copy of ``bank/bank.yaml`` (its ``canary:`` line).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from generator.canary import MANIFEST
from generator.models.bank import BankManifest
from generator.store.jsonl import Problems, load_document
from generator.verify_checks import PUBLISHER_FIX, READER_FIX, View

MAX_MANIFEST_BYTES = 1 << 20
PER_VERSION = re.compile(r"bank_[A-Za-z0-9_]+_public\.jsonl")
CANARY_LINE = re.compile(r"canary:\s*['\"]?([^'\"\s#]+)")


def check_canary(view: View) -> None:
    """Name every public bank line (file and line) that lacks the bank's canary or
    carries another one; nothing when the bank's manifest cannot be read (the records
    and the recomputation already name it)."""
    # Files already found changed since publication (named before this check runs).
    changed = {f.path for f in view.findings if f.rule == "integrity"}
    canary = _declared(view)
    if canary is None:
        return
    for place in _public_files(view):
        data = (view.base / place).read_bytes()
        if place.endswith(".yaml"):
            found = _manifest_copy(data, canary)
        else:
            found = [(line, value) for line, value in _carried(data) if value != canary]
        for line, value in found:
            _report(view, place, line, value, canary, place in changed)


def _declared(view: View) -> str | None:
    """The canary the view's ``bank/bank.yaml`` declares (None: not readable); a manifest
    declaring none is itself a finding (every publication this tool builds has one)."""
    if not view.readable(MANIFEST):
        return None
    problems = Problems()
    shown = view.shown(MANIFEST)
    manifest = load_document(view.path(MANIFEST), BankManifest, shown, problems, MAX_MANIFEST_BYTES)
    if manifest is None:
        return None
    if manifest.canary is None:
        view.add(
            shown,
            "the bank declares no canary GUID, so its public files carry none a training-data "
            "search could find",
            fix=PUBLISHER_FIX,
        )
    return manifest.canary


def _public_files(view: View) -> Iterator[str]:
    """Places of the view's public bank files, sorted (the held-out index carries no
    item text and so no canary)."""
    for place in sorted(view.inventory.files):
        path = PurePosixPath(place)
        in_bank = path.parent.name == "bank"
        copy = in_bank and path.name == "bank.yaml" and place != view.shown(MANIFEST)
        if PER_VERSION.fullmatch(path.name) or (in_bank and path.name == "public.jsonl") or copy:
            yield place


NOT_AN_OBJECT = object()
"""What :func:`_carried` yields for a line that is not a JSON object (it has no fields)."""


def _carried(data: bytes) -> Iterator[tuple[int, object]]:
    """Each non-blank line's number and its ``canary`` value (None: no such field)."""
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        yield number, record.get("canary") if isinstance(record, dict) else NOT_AN_OBJECT


def _manifest_copy(data: bytes, canary: str) -> list[tuple[int | None, object]]:
    """Where a copy of ``bank/bank.yaml`` does not declare ``canary`` on its ``canary:``
    line, and what it declares (None: no such line)."""
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        match = CANARY_LINE.match(line)
        if match is not None:
            return [] if match.group(1) == canary else [(number, match.group(1))]
    return [(None, None)]


def _report(
    view: View, place: str, line: int | None, found: object, canary: str, changed: bool
) -> None:
    if found is None:
        what = "carries no canary"
    elif found is NOT_AN_OBJECT:
        what = "is not a JSON object, so it carries no canary"
    else:
        what = f"carries canary {str(found)[:80]!r}, not the bank's"
    # A file that also fails its integrity check was changed after it was published: the
    # reader's fix. One that is intact was published so: the publisher's.
    view.add(
        place,
        f"{what}; every public bank file carries the bank's canary {canary!r} (declared in "
        f"{view.shown(MANIFEST)}), and a training-data search for it would miss this one",
        fix=READER_FIX if changed else PUBLISHER_FIX,
        line=line,
    )
