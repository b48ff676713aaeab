"""A volume's summary (``probepress show``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from generator.store.volume import VolumeData


def summarise(data: VolumeData) -> dict[str, Any]:
    """Bank version, candidates, jury and counts of a loaded volume, JSON-ready."""
    volume = data.volume
    items = data.bank.active_items(volume.bank_version)
    candidates = []
    totals: Counter[str] = Counter()
    for ref in volume.candidates:
        bundle = data.bundles.get(data.slug_of(ref))
        counts = {
            "draws": len(bundle.draws) if bundle else 0,
            "lost_draws": sum(d.lost for d in bundle.draws) if bundle else 0,
            "verdicts": len(bundle.verdicts) if bundle else 0,
            "panel_votes": len(bundle.panel) if bundle else 0,
        }
        totals.update(counts)
        candidates.append(
            {
                "api": ref.api,
                "slug": data.slug_of(ref),
                "display_name": ref.display_name,
                "role": ref.role,
                "run_date": ref.run_date.isoformat() if ref.run_date else None,
                "family": bundle.manifest.candidate.family if bundle else None,
                "recusals": [r.judge for r in bundle.manifest.jury.recusals] if bundle else [],
                **counts,
            }
        )
    return {
        "volume": volume.id,
        "title": volume.title,
        "demonstration": volume.demonstration,
        "publication_date": volume.publication_date.isoformat(),
        "bank_version": volume.bank_version,
        "protocol": volume.protocol.model_dump(mode="json"),
        "items": {
            "total": len(items),
            "core": sum(i.core for i in items),
            "public": sum(not data.bank.is_heldout(i.id) for i in items),
            "held_out": sum(data.bank.is_heldout(i.id) for i in items),
            "tier0": sum(i.tier == 0 for i in items),
            "validated": sum(i.status == "validated" for i in items),
        },
        "jury": volume.jury.model_dump(mode="json"),
        "candidates": candidates,
        "totals": dict(sorted(totals.items())),
    }
