"""A bundle's files in memory, its manifest with their hashes, and the sealed write.

``bundle_files`` serialises one candidate's lines canonically (sorted by item, half,
draw) and builds ``bundle.json`` over them. ``seal_all`` writes every bundle of one import
or none: the held-out responses go to the private store first (removed again if anything
later fails), then every bundle's files are staged in the root and moved into place in
one commit of the publish journal (``generator.journal``), so a failure rolls the root
back at once and a kill is rolled back by the next writer (``publish --recover``); no
half bundle, and no bundle of a partly failed import, is ever left.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import journal, lock
from generator.canonical import dumps, dumps_line, write_bytes
from generator.errors import InputError
from generator.hashing import sha256_bytes
from generator.importing import draws as rowlines
from generator.importing.inputs import BundleInputs, CandidateRun
from generator.models import BundleManifest, Draw, PanelVote, Qualification, Verdict, Volume
from generator.models.base import Record
from generator.models.records import PrivateResponse
from generator.staging import Plan
from generator.store.paths import Layout

STAGE_PREFIX = ".probepress-import-"
"""The staged bundles of an import in progress (a killed one's is removed on recovery)."""


@dataclass
class Build:
    """One candidate's bundle being assembled."""

    api: str
    slug: str
    run: CandidateRun
    seats: rowlines.Seats
    lines: rowlines.Lines


def jsonl(model: type[Record], rows: list[dict[str, Any]]) -> bytes:
    keyed = sorted(rows, key=lambda r: (r["item"], r["half"], r["draw"], r.get("judge", "")))
    return "".join(
        dumps_line(model.model_validate(r).model_dump(mode="json", exclude_none=True))
        for r in keyed
    ).encode("utf-8")


def _qualification(build: Build, volume: Volume, inputs: BundleInputs) -> list[dict[str, Any]]:
    declared = volume.jury.required
    expected = {p.id: p.expected for p in declared.probes} if declared else {}
    families = {j.key: j.family for j in volume.jury.members()}
    seated = {build.seats.grader, *build.seats.voters()}
    return [
        {
            "judge": q.judge,
            "family": families.get(q.judge),
            "probe": q.probe,
            "expected": expected.get(q.probe),
            "got": q.got,
        }
        for q in sorted(inputs.qualification, key=lambda q: (q.judge, q.probe))
        if q.judge in seated
    ]


def qualification_problems(volume: Volume, inputs: BundleInputs, shown: str) -> list[str]:
    declared = volume.jury.required
    probes = {p.id for p in declared.probes} if declared else set()
    judges = {j.key for j in volume.jury.members()}
    out = []
    for n, q in enumerate(inputs.qualification):
        if q.probe not in probes:
            out.append(f"qualification[{n}]: probe {q.probe!r} is not declared by the jury")
        if q.judge not in judges:
            out.append(f"qualification[{n}]: {q.judge!r} is not on the volume's jury")
    return out


def bundle_files(build: Build, volume: Volume, inputs: BundleInputs) -> dict[str, bytes]:
    """The bundle's files, its manifest last (it hashes the others)."""
    lines = build.lines
    files = {
        "draws.jsonl": jsonl(Draw, lines.draws),
        "verdicts.jsonl": jsonl(Verdict, lines.verdicts),
        "panel.jsonl": jsonl(PanelVote, lines.panel),
        "qualification.jsonl": "".join(
            dumps_line(Qualification.model_validate(q).model_dump(mode="json"))
            for q in _qualification(build, volume, inputs)
        ).encode("utf-8"),
    }
    ref = next(c for c in volume.candidates if c.api == build.api)
    members = {j.key: j.model_dump(mode="json", exclude_none=True) for j in volume.jury.members()}
    seats = build.seats
    seated = [seats.grader, *seats.voters()]
    humans = {j.key for j in volume.jury.members() if j.family is None}
    adjudication = [
        {"rater": members[key], "adjudicates": list(seats.adjudicates)} for key in seats.adjudicator
    ]
    manifest = BundleManifest.model_validate(
        {
            "volume": volume.id,
            "candidate": {
                "api": build.api,
                "family": build.run.family,
                "display_name": ref.display_name,
                "role": ref.role,
            },
            "endpoint": build.run.endpoint,
            "run": build.run.run,
            "conditions": build.run.conditions or volume.protocol,
            "bank_version": volume.bank_version,
            "runner": inputs.runner,
            "jury": {
                "grader": members[seats.grader],
                "panel": [members[key] for key in seats.panel],
                "adjudication": adjudication[0] if adjudication else None,
                "recusals": build.run.recusals,
                # Humans are reached through no endpoint.
                "endpoints": {k: inputs.jury_endpoints[k] for k in seated if k not in humans},
            },
            "demonstration": volume.demonstration,
            "files": {n: {"sha256": sha256_bytes(b), "size": len(b)} for n, b in files.items()},
        }
    )
    text = dumps(manifest.model_dump(mode="json", exclude_none=True))
    return {"bundle.json": text.encode("utf-8"), **files}


@dataclass(frozen=True)
class Sealed:
    """One candidate's bundle, every file in memory and validated, ready to write."""

    slug: str
    files: dict[str, bytes]
    """The bundle's files by name, ``bundle.json`` included."""
    private: bytes | None
    """Its held-out responses for the private store (None: it has none)."""


def sealed(build: Build, volume: Volume, inputs: BundleInputs) -> Sealed:
    """The bundle of ``build`` in memory (raises pydantic's ``ValidationError``)."""
    private = jsonl(PrivateResponse, build.lines.private) if build.lines.private else None
    return Sealed(build.slug, bundle_files(build, volume, inputs), private)


def seal_all(
    layout: Layout, volume: str, bundles: list[Sealed], ops: journal.FileOps | None = None
) -> None:
    """Write every bundle of ``bundles`` or none of them (see the module docstring).

    Raises:
        InputError: A bundle or private response file appeared meanwhile, or an
            interrupted publish or import awaits recovery; nothing was written.
        CommitError: An OS error stopped the move; the root was restored.
        OSError: Writing the private store failed; what was written there was removed.
    """
    with lock.writing(layout.root):
        _refuse_existing(layout, volume, bundles)
        written: list[Path] = []
        try:
            for bundle in bundles:
                if bundle.private is not None:
                    path = layout.private_responses(volume, bundle.slug)
                    written.append(path)
                    write_bytes(path, bundle.private, layout.private)
            _commit_bundles(layout, volume, bundles, ops)
        except journal.ROLLBACK_ON:
            for path in written:
                with suppress(OSError):
                    path.unlink(missing_ok=True)
            raise


def _refuse_existing(layout: Layout, volume: str, bundles: list[Sealed]) -> None:
    """An import never replaces a bundle or a private response file."""
    taken = [
        path
        for b in bundles
        for path in (layout.bundle_dir(volume, b.slug), layout.private_responses(volume, b.slug))
        if os.path.lexists(path)
    ]
    if taken:
        shown = ", ".join(layout.rel(p) for p in taken)
        raise InputError(f"cannot import into {volume}: {shown} already exist; nothing was written")


def _commit_bundles(
    layout: Layout, volume: str, bundles: list[Sealed], ops: journal.FileOps | None
) -> None:
    """Stage every bundle file inside the root, then move them all in one journal commit."""
    root = layout.root
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=root))
    try:
        moves = []
        for bundle in bundles:
            rel = layout.rel(layout.bundle_dir(volume, bundle.slug))
            for name, data in sorted(bundle.files.items()):
                write_bytes(stage / rel / name, data, stage)
                moves.append(f"{rel}/{name}")
        journal.commit(root, stage, Plan(moves=moves), ops, action="import")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
