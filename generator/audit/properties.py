"""Scorer properties on the real volume: determinism, order invariance, monotonicity.

- **Determinism**: computing the volume's figures twice gives identical bytes.
- **Order invariance**: shuffling every bundle's lines (draws, verdicts, votes) changes
  no figure.
- **Unknown items never help**: adding draws of an item the bank does not schedule,
  every one passing, lowers no candidate's failure count on the scheduled items.
- **Removing a draw never improves coverage**: coverage is the share of *scheduled*
  draws that produced an answer (``generator.figures.coverage``, the published figure),
  so a lost draw dropped from the records must not raise it.
"""

from __future__ import annotations

import random
from dataclasses import replace

from generator import figures
from generator.audit.base import AuditContext, Case, Section
from generator.figures.coverage import answered_share, coverage_of
from generator.figures.tally import Tally, tally_bundle
from generator.models.figures import FiguresRegistry
from generator.store.rowtypes import BundleData, DrawKey, VerdictRow
from generator.store.volume import VolumeData

NAME = "properties"
SEED = 20_261_201


def _figures_bytes(data: VolumeData) -> str:
    computed = figures.compute(data.layout, data.volume.id, data=data)
    return figures.render(FiguresRegistry(generator=figures.GENERATOR, figures=computed))


def _shuffled(data: VolumeData) -> VolumeData:
    rng = random.Random(SEED)
    bundles = {}
    for slug, b in data.bundles.items():
        draws, verdicts, panel = list(b.draws), list(b.verdicts), list(b.panel)
        rng.shuffle(draws)
        rng.shuffle(verdicts)
        rng.shuffle(panel)
        bundles[slug] = replace(b, draws=draws, verdicts=verdicts, panel=panel)
    return replace(data, bundles=bundles)


def _tally(ctx: AuditContext, bundle: BundleData) -> Tally:
    index = {m.id: n for n, m in enumerate(ctx.items)}
    volume = ctx.data.volume
    return tally_bundle(bundle, index, list(volume.protocol.halves), volume)


def _unknown_item(ctx: AuditContext, bundle: BundleData) -> str | None:
    """A problem when passing draws of an unscheduled item lower the failure counts."""
    unknown = "zz-audit-unknown-item"
    line = max((v.line for v in bundle.verdicts), default=0)
    extra = [
        VerdictRow(line + n + 1, DrawKey(unknown, h, n), 0, None, "pass", False, False, None, None)
        for n, h in enumerate(ctx.data.volume.protocol.halves)
    ]
    before, after = (
        _tally(ctx, bundle),
        _tally(ctx, replace(bundle, verdicts=[*bundle.verdicts, *extra])),
    )
    if (
        after.k < before.k
    ).any() or after.k.sum() * before.n.sum() < before.k.sum() * after.n.sum():
        return f"{bundle.slug}: passing draws of an unknown item lowered its failure rate"
    return None


def _removed_draw(ctx: AuditContext, bundle: BundleData) -> str | None:
    """A problem when dropping a draw's records raises coverage."""
    if not bundle.verdicts:
        return None
    lost = [v for v in bundle.verdicts if v.verdict == "lost"] or bundle.verdicts
    gone = lost[0].key
    trimmed = replace(
        bundle,
        draws=[d for d in bundle.draws if d.key != gone],
        verdicts=[v for v in bundle.verdicts if v.key != gone],
    )
    items = {m.id for m in ctx.items}
    protocol = ctx.data.volume.protocol
    before = answered_share(coverage_of(bundle, items, protocol))
    after = answered_share(coverage_of(trimmed, items, protocol))
    if after > before:
        return f"{bundle.slug}: removing draw {gone.item}/{gone.half}/{gone.draw} raised coverage"
    return None


def properties(ctx: AuditContext) -> Section:
    """The four properties, each one case."""
    data = ctx.data
    where = data.layout.rel(data.layout.volume_dir(data.volume.id))
    first = _figures_bytes(data)
    cases = [
        _case(
            "determinism",
            first == _figures_bytes(data),
            "scoring twice gives identical bytes",
            "scoring the volume twice gave different bytes",
            where,
        ),
        _case(
            "order-invariance",
            first == _figures_bytes(_shuffled(data)),
            "shuffling every bundle's lines changes no figure",
            "shuffling the bundles' lines changed a figure",
            where,
        ),
    ]
    bundles = list(data.bundles.values())
    for name, probe, ok in (
        ("unknown-item", _unknown_item, "adding an unknown item never improves a score"),
        ("removed-draw", _removed_draw, "removing a draw never improves coverage"),
    ):
        found = [p for b in bundles if (p := probe(ctx, b)) is not None]
        cases.append(_case(name, not found, ok, "; ".join(found[:3]), where))
    return Section(NAME, "Scorer properties", tuple(cases))


def _case(name: str, held: bool, ok: str, bad: str, where: str) -> Case:
    if held:
        return Case(name, "pass", ok)
    return Case(name, "fail", bad, where, f"property-{name}")
