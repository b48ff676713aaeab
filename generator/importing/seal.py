"""A bundle's files in memory, its manifest with their hashes, and the sealed write.

``bundle_files`` serialises one candidate's lines canonically (sorted by item, half,
draw) and builds ``bundle.json`` over them; ``seal`` writes the private responses first,
then the bundle's folder whole: built beside its place and renamed into it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import confine
from generator.canonical import dumps, dumps_line, write_bytes
from generator.hashing import sha256_bytes
from generator.importing import draws as rowlines
from generator.importing.inputs import BundleInputs, CandidateRun
from generator.models import BundleManifest, Draw, PanelVote, Qualification, Verdict, Volume
from generator.models.base import Record
from generator.models.records import PrivateResponse
from generator.store.paths import Layout


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


def seal(layout: Layout, volume: str, build: Build, files: dict[str, bytes]) -> None:
    """Write one bundle: its folder appears whole (built beside it, then renamed), and
    its held-out responses go to the private store first."""
    if build.lines.private:
        path = layout.private_responses(volume, build.slug)
        write_bytes(path, jsonl(PrivateResponse, build.lines.private), layout.private)
    target = confine.checked(layout.root, layout.bundle_dir(volume, build.slug), leaf="dir")
    confine.make_dirs(layout.root, target.parent)
    scratch = Path(tempfile.mkdtemp(prefix=f".probepress-import-{build.slug}-", dir=target.parent))
    try:
        for name, data in files.items():
            write_bytes(scratch / name, data, layout.root)
        confine.normalize_modes(scratch)
        os.rename(scratch, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
