"""The example publication's inputs from its seed: built in memory, written or compared."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from generator import commitments, confine, instructions
from generator.canonical import dumps, dumps_line, write_bytes
from generator.demo import read_data
from generator.demo.annexes import anchor_probes, calibration_units
from generator.demo.bank import DemoItem, build_bank, ledgers
from generator.demo.bank import categories as demo_categories
from generator.demo.simulate import RUNNER, Round, chance, simulate_bundle
from generator.demo.spec import EXAMPLE, CandidateSpec, DemoSpec, VolumeSpec
from generator.errors import Problem
from generator.hashing import drift, sha256_bytes, sha256_text
from generator.models import BundleManifest, Draw, PanelVote, Qualification, Verdict, Volume
from generator.models.anchors import ANCHOR_PROBES_FILE, AnchorProbe
from generator.models.bank import BankItem, BankManifest, HeldOutEntry
from generator.models.base import Record, slugify
from generator.models.calibration import CALIBRATION_FILE, CalibrationRecord
from generator.models.records import PrivateResponse
from generator.models.review import Disagreement, StatusChange
from generator.models.scoring import Reference, Scoring
from generator.models.volume import Jury, Preregistration
from generator.prereg import volume_preregistration_sha256
from generator.progress import Progress, silent
from generator.store import paths
from generator.store.bank import Bank
from generator.store.paths import Layout

Files = dict[str, bytes]
_FILES: dict[str, type[Record]] = dict(
    draws=Draw, verdicts=Verdict, panel=PanelVote, qualification=Qualification
)
"""A bundle's line files (``<name>.jsonl``, lines of ``Bundle.<name>``) and their formats."""
HEADER = "# Demonstration data written by `probepress demo` (seed {seed}). Do not edit by hand.\n"


@dataclass(frozen=True)
class DemoOutput:
    """Files of the publication root and of the private store, by relative path."""

    public: Files
    private: Files
    secret: bytes
    """The bank secret the commitments were made under (stored by ``write``)."""


def _json(record: BaseModel) -> Any:
    return record.model_dump(mode="json", exclude_none=True)


def _jsonl(model: type[Record], rows: Iterable[Any]) -> bytes:
    """One line per row (a dict or a model), validated as ``model``."""
    return "".join(dumps_line(_json(model.model_validate(r))) for r in rows).encode("utf-8")


def _yaml(record: BaseModel, seed: int) -> bytes:
    body = yaml.safe_dump(_json(record), sort_keys=False, allow_unicode=True, width=100)
    return (HEADER.format(seed=seed) + body).encode("utf-8")


def _jury(spec: DemoSpec) -> Jury:
    """The volumes' declared jury: grader, panel, reserves, qualification probes, grading."""
    jury, grading = spec.jury, dict(spec.jury.grading or {})
    if grading:  # the prompt is pre-registered by its SHA-256
        grading["prompt_sha256"] = instructions.sha256(grading.pop("instructions"))
    return Jury.model_validate(
        {
            "grader": jury.grader.ref(),
            "panel": [j.ref() for j in jury.panel],
            "reserves": [j.ref() for j in (*jury.reserve_graders, *jury.reserve_judges)],
            "qualification": spec.qualification,
            "grading": grading or None,
        }
    )


def _scoring(categories: list[str], reference: Reference) -> Scoring:
    """An example volume's ``scoring`` (``data/scoring.yaml``) over the ``categories`` used."""
    scoring = read_data("scoring.yaml")
    declared = scoring.pop("rubric_groups")
    rubric = [g for g in declared if set(g["categories"]) & set(categories)]
    named = {c for group in (*scoring["groups"], *declared) for c in group.get("categories", ())}
    for group in scoring["groups"]:
        group.setdefault("categories", [c for c in categories if c not in named])
    return Scoring.model_validate({**scoring, "rubric_groups": rubric, "reference": reference})


def _baseline(cand: CandidateSpec, items: list[DemoItem]) -> dict[str, Any] | None:
    """A baseline's declaration; a random pick is declared to score chance on the core."""
    if cand.baseline is None or cand.baseline["kind"] != "random-choice":
        return cand.baseline
    core = [chance(d) for d in items if d.item.core and d.item.status == "validated"]
    return {**cand.baseline, "core_rate": f"{sum(core) / len(core):.3f}"}


def _volume(
    spec: DemoSpec, vol: VolumeSpec, run_dates: dict[str, dt.date], items: list[DemoItem]
) -> Volume:
    """The volume's declaration (``volume.yaml``), with its pre-registration hash."""
    categories = [c.id for c in demo_categories() if c.id in {d.item.category for d in items}]
    prompt = sha256_text(spec.system_prompt)
    listed = [
        {"api": c.api, "display_name": c.display_name, "role": c.role, "run_date": run_dates[c.api]}
        | ({"baseline": _baseline(c, items)} if c.baseline else {})
        for c in vol.candidates
    ]
    volume = Volume.model_validate(
        {
            **{k: getattr(vol, k) for k in ("id", "title", "publication_date", "bank_version")},
            "demonstration": True,
            "window": {"start": vol.start, "end": vol.end},
            "protocol": {**spec.protocol, **vol.protocol, "system_prompt_sha256": prompt},
            "thresholds": spec.thresholds | vol.thresholds,
            "jury": _jury(spec),
            "scoring": _scoring(categories, vol.reference),
            "calibration": vol.calibration.declared if vol.calibration else None,
            "preregistration": {"sha256": "0" * 64, "registered": vol.preregistered or vol.start},
            "candidates": listed,
        }
    )
    registered = Preregistration(
        sha256=volume_preregistration_sha256(volume), registered=volume.preregistration.registered
    )
    return volume.model_copy(update={"preregistration": registered})


def _add_bank(
    out: DemoOutput, spec: DemoSpec, manifest: BankManifest, items: list[DemoItem]
) -> Bank:
    """The bank's files (held-out items private); the bank as a reader loads it."""
    held = [d.item for d in items if d.heldout]
    public = [d.item for d in items if not d.heldout]
    out.public[paths.BANK_MANIFEST] = _yaml(manifest, spec.seed)
    out.public[paths.PUBLIC_ITEMS] = _jsonl(BankItem, public)
    entries = [commitments.heldout_entry(item, out.secret) for item in held]
    out.public[paths.HELDOUT_INDEX] = _jsonl(HeldOutEntry, entries)
    out.private["heldout_items.jsonl"] = _jsonl(BankItem, held)
    written = ledgers(spec, {d.item.id: d.item for d in items})
    if written.climbs:  # as ``review apply`` writes them: a ledger exists once it has a line
        out.public[paths.STATUS_LEDGER] = _jsonl(StatusChange, written.climbs)
    if written.disagreements:
        out.public[paths.DISAGREEMENT_LEDGER] = _jsonl(Disagreement, written.disagreements)
    return Bank(manifest, {i.id: i for i in public}, {e.id: e for e in entries})


def _run_dates(spec: DemoSpec, vol: VolumeSpec) -> dict[str, dt.date]:
    """The day each candidate of the volume was run, drawn within its window."""
    rng = random.Random(f"{spec.seed}:{vol.id}:dates")
    span = (vol.end - vol.start).days
    return {c.api: vol.start + dt.timedelta(days=rng.randint(0, span - 1)) for c in vol.candidates}


def _add_bundle(out: DemoOutput, run: Round, cand: CandidateSpec) -> list[dict[str, Any]]:
    """One candidate's bundle and manifest (held-out texts private); its verdict lines."""
    bundle, day = simulate_bundle(run, cand), run.run_dates[cand.api]
    files = {f"{n}.jsonl": _jsonl(model, getattr(bundle, n)) for n, model in _FILES.items()}
    seating = bundle.seating
    manifest = BundleManifest.model_validate(
        {
            "volume": run.vol.id,
            "candidate": bundle.candidate,
            "endpoint": cand.endpoint(),
            "run": {"started": day, "finished": min(day + dt.timedelta(days=1), run.vol.end)},
            "conditions": run.volume.protocol,
            "bank_version": run.vol.bank_version,
            "runner": RUNNER,
            "jury": {
                "grader": seating.grader.ref(),
                "panel": [j.ref() for j in seating.panel],
                "recusals": list(seating.recusals),
                "endpoints": {j.api: j.endpoint() for j in (seating.grader, *seating.panel)},
            },
            "demonstration": True,
            "files": {n: {"sha256": sha256_bytes(b), "size": len(b)} for n, b in files.items()},
        }
    )
    base = f"bundles/{run.vol.id}/{bundle.slug}"
    out.public[f"{base}/bundle.json"] = dumps(_json(manifest)).encode()
    out.public.update({f"{base}/{name}": data for name, data in files.items()})
    private = _jsonl(PrivateResponse, bundle.private)
    out.private[f"responses/{run.vol.id}/{bundle.slug}.jsonl"] = private
    return bundle.verdicts


def _add_volume(out: DemoOutput, run: Round, progress: Progress) -> None:
    """A volume's declaration, bundles, anchor probes and calibration set."""
    vol, folder = run.vol, f"bundles/{run.vol.id}"
    out.public[f"{folder}/volume.yaml"] = _yaml(run.volume, run.spec.seed)
    verdicts = {}
    for cand in vol.candidates:
        progress(f"{vol.id}/{slugify(cand.api)}")
        verdicts[slugify(cand.api)] = _add_bundle(out, run, cand)
    probes = anchor_probes(run)
    if probes:
        out.public[f"{folder}/{ANCHOR_PROBES_FILE}"] = _jsonl(AnchorProbe, probes)
    if vol.calibration is not None:
        units = calibration_units(run, vol.calibration, verdicts)
        out.public[f"{folder}/{CALIBRATION_FILE}"] = _jsonl(CalibrationRecord, units)


def build(spec: DemoSpec = EXAMPLE, progress: Progress = silent) -> DemoOutput:
    """Every file of the example, in memory."""
    manifest, items = build_bank(spec)
    out = DemoOutput(public={}, private={}, secret=commitments.demo_secret(spec.seed))
    keys = {d.item.id: commitments.item_key(out.secret, d.item.id) for d in items if d.heldout}
    bank = _add_bank(out, spec, manifest, items)
    for vol in spec.volumes:
        run_dates = _run_dates(spec, vol)
        # What a volume of its version runs: the store's rule (a retired core item stays).
        active = {m.id for m in bank.active_items(vol.bank_version)}
        vol_items = [d for d in items if d.item.id in active]
        volume = _volume(spec, vol, run_dates, vol_items)
        _add_volume(out, Round(spec, vol, volume, vol_items, run_dates, keys), progress)
    return out


def _stale(output: DemoOutput, layout: Layout) -> list[Path]:
    """Files under the folders the demo owns that the seed does not produce."""
    wanted = {layout.root / rel for rel in output.public}
    found = [p for f in (paths.BANK, paths.BUNDLES) for p in (layout.root / f).rglob("*")]
    return sorted(p for p in found if (p.is_file() or p.is_symlink()) and p not in wanted)


def write(output: DemoOutput, layout: Layout) -> list[str]:
    """Write the example into ``layout``; return the paths that changed.

    Raises:
        InputError: The private store holds another bank's secret (nothing is written).
    """
    changed: list[str] = []
    commitments.write_secret(layout, output.secret)
    for stale in _stale(output, layout):
        confine.unlink(layout.root, stale)
        changed.append(layout.rel(stale))
    for rel, data in sorted(output.public.items()):
        if write_bytes(layout.root / rel, data, layout.root):
            changed.append(rel)
    for rel, data in sorted(output.private.items()):
        write_bytes(layout.private / rel, data, layout.private)
    return changed


_DRIFT = {"missing": "missing", "changed": "bytes differ from the seed's output"}


def differences(output: DemoOutput, layout: Layout) -> list[Problem]:
    """Files whose bytes differ from what the seed produces (missing, changed or extra)."""

    def now(rel: str) -> bytes | None:
        path = layout.root / rel
        return path.read_bytes() if path.is_file() and not path.is_symlink() else None

    drifted = [(d.path, _DRIFT[d.change]) for d in drift(sorted(output.public.items()), now)]
    stale = [(layout.rel(p), "not produced by the seed") for p in _stale(output, layout)]
    return [Problem(path, None, "demo-drift", what) for path, what in drifted + stale]
