"""``probepress sample``: the draws the panel must vote on, for the maintainer's runner.

The panel sample is pre-registered: its seed and fraction are in ``volume.yaml`` and the
agreement gate reproduces it (``generator.sampling``). It depends only on which draws the
grader judged, which it flagged borderline and which it refused, so it can be listed
from the bundles already imported, or from a records file before import (its grader
labels read by the same ``Scorer`` as the import), so the panel can run before the
bundles are sealed.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass

from generator.calibration.sample import calibration_seed, draw_sample, eligible, graded
from generator.canonical import dumps_line
from generator.errors import InputError
from generator.importing.bundles import Located, read_inputs
from generator.importing.labels import LabelError, LabelMap, Scorer
from generator.models.records import LOST_STATUSES, Verdict
from generator.models.volume import Volume
from generator.sampling import Eligible, panel_sample
from generator.store.bank import Bank
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.paths import Layout
from generator.store.volume import candidate_slug

COLUMNS = ("candidate", "item", "half", "draw", "category", "why", "judges")
CALIBRATION_COLUMNS = ("candidate", "item", "half", "draw", "category", "criterion", "line")
"""A calibration unit as the humans see it: never the judge's grade (they grade blind)."""


@dataclass(frozen=True)
class SampledDraw:
    """One draw the panel must vote on."""

    candidate: str
    item: str
    half: str
    draw: int
    category: str
    why: str
    """``stratified``, ``borderline`` or ``grader_refused``."""
    judges: str
    """The volume's panel judges who vote on it, then its adjudication seat when it
    declares one, space-separated."""


def _select(volume: Volume, bank: Bank, eligible: dict[str, list[Eligible]]) -> list[SampledDraw]:
    t = volume.thresholds
    adjudication = volume.jury.adjudication
    voters = [j.key for j in volume.jury.panel]
    judges = " ".join([*voters, *([adjudication.rater.key] if adjudication else [])])
    out = []
    for api in sorted(eligible):
        sample = panel_sample(
            eligible[api],
            seed=t.sample_seed,
            volume=volume.id,
            candidate=candidate_slug(api),
            fraction=t.panel_sample_fraction,
        )
        for (item, half, draw), why in sorted(sample.why.items()):
            category = bank.meta(item).category
            out.append(SampledDraw(api, item, half, draw, category, why, judges))
    return out


def sample_from_bundles(
    layout: Layout, volume: str, bounds: Bounds | None = None
) -> list[SampledDraw]:
    """The panel sample of every imported bundle of ``volume``.

    Raises:
        InputError: The volume, the bank or a bundle's verdicts cannot be read.
    """
    bounds = bounds or Bounds()
    vol, bank = read_inputs(layout, volume, bounds, private=False)
    problems = Problems()
    eligible: dict[str, list[Eligible]] = {}
    for candidate in vol.candidates:
        path = layout.bundle_dir(volume, candidate_slug(candidate.api)) / "verdicts.jsonl"
        if not path.is_file():
            continue
        found = eligible.setdefault(candidate.api, [])
        for _, v in iter_jsonl(path, Verdict, layout.rel(path), problems, bounds):
            if (
                v.tier == 1
                and v.verdict in ("pass", "fail", "grader_refused")
                and v.item in bank.heldout.keys() | bank.public.keys()
            ):
                category = bank.meta(v.item).category
                found.append(
                    Eligible(
                        v.item,
                        v.half,
                        v.draw,
                        category,
                        v.borderline,
                        v.verdict == "grader_refused",
                    )
                )
    if problems:
        raise InputError(f"cannot read the verdicts of {volume}:", problems.items)
    return _select(vol, bank, eligible)


def sample_from_rows(
    layout: Layout,
    volume: str,
    rows: list[Located],
    labels: LabelMap | None,
    bounds: Bounds | None = None,
) -> list[SampledDraw]:
    """The panel sample the rows' grader labels imply, before any bundle is written.

    Raises:
        InputError: The volume or the bank cannot be read, or a row names an unknown
            item or has no usable grader label.
    """
    vol, bank = read_inputs(layout, volume, bounds or Bounds(), private=False)
    grader = vol.jury.grader.key
    scorer = Scorer.of(vol, bank.active_items(vol.bank_version), labels)
    problems = Problems()
    eligible: dict[str, list[Eligible]] = defaultdict(list)
    for path, line, row in rows:
        if row.item not in bank.public and row.item not in bank.heldout:
            problems.add(path, line, "row", f"item {row.item} is not in the bank")
            continue
        meta = bank.meta(row.item)
        if meta.tier != 1 or row.status in LOST_STATUSES:
            continue
        label = row.labels.get(grader)
        if label is None:
            problems.add(path, line, "row", f"no label from the grader {grader}")
            continue
        try:
            refused = scorer.read(row.item, grader, label).outcome == "refused"
        except LabelError as exc:
            problems.add(path, line, "row", str(exc))
            continue
        eligible[row.candidate].append(
            Eligible(row.item, row.half, row.draw, meta.category, row.borderline, refused)
        )
    if problems:
        raise InputError(f"cannot list the panel sample of {volume}:", problems.items)
    return _select(vol, bank, dict(eligible))


def calibration_from_bundles(
    layout: Layout, volume: str, bounds: Bounds | None = None
) -> list[dict[str, object]]:
    """The units of the calibration sample ``volume`` declares, drawn from the first
    calibrated judge's grades in the imported bundles (``generator.calibration.sample``).

    Raises:
        InputError: The volume declares no calibration set, or the volume, the bank or a
            bundle's verdicts cannot be read.
    """
    bounds = bounds or Bounds()
    vol, bank = read_inputs(layout, volume, bounds, private=False)
    if vol.calibration is None:
        raise InputError(
            f"{layout.rel(layout.volume_file(volume))}: calibration: {volume} declares no "
            "calibration set to sample"
        )
    judge = (vol.calibration.judges or [vol.jury.grader.key])[0]
    problems = Problems()
    pool = []
    for candidate in vol.ranked():  # the models compared, never a baseline
        slug = candidate.slug
        path = layout.bundle_dir(volume, slug) / "verdicts.jsonl"
        if path.is_file():
            for _, v in iter_jsonl(path, Verdict, layout.rel(path), problems, bounds):
                if eligible(v, judge) and v.item in bank.public.keys() | bank.heldout.keys():
                    meta = bank.meta(v.item)
                    pool.append(graded(slug, v, meta.category, meta.added_in))
    if problems:
        raise InputError(f"cannot read the verdicts of {volume}:", problems.items)
    return [
        {"candidate": d.candidate, "item": d.item, "half": d.half, "draw": d.draw,
         "category": d.category, "criterion": u.criterion, "line": u.line}
        for d in draw_sample(vol.calibration, pool, calibration_seed(vol))
        for u in d.units
    ]  # fmt: skip


def sample_text(rows: list[dict[str, object]], columns: tuple[str, ...], fmt: str) -> str:
    """Rows as CSV (with a header; an absent value empty) or JSONL."""
    if fmt == "jsonl":
        return "".join(dumps_line({c: row[c] for c in columns}) for row in rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    return buffer.getvalue()
