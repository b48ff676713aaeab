"""Per-item failure counts of every candidate: the one pass over verdicts behind every rate.

A draw counts toward an item's failure fraction when it has a verdict: the grader's pass
or fail, the mechanical check's for Tier 0, or — when the grader refused — the panel
majority (a tie or an all-refusing panel leaves it undecided). Lost draws never count.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from generator.models.bank import ItemMeta
from generator.store.rowtypes import BundleData, DrawKey
from generator.store.volume import VolumeData

I64 = npt.NDArray[np.int64]


@dataclass
class Tally:
    """Failure counts of one candidate, aligned with ``Volume.items``."""

    slug: str
    k: I64
    """Failed draws per item."""
    n: I64
    """Decided draws per item."""
    k_half: dict[str, I64]
    """Failed draws per item, per half."""
    n_half: dict[str, I64]
    """Decided draws per item, per half."""
    lost: int = 0
    refused: int = 0
    refused_undecided: int = 0
    draws: int = 0


@dataclass
class VolumeTally:
    """Every candidate's tally plus the item order they share."""

    items: list[ItemMeta]
    index: dict[str, int]
    tallies: dict[str, Tally] = field(default_factory=dict)
    _masks: dict[tuple[tuple[str, object], ...], npt.NDArray[np.bool_]] = field(
        default_factory=dict, init=False, repr=False
    )

    def select(self, **criteria: object) -> npt.NDArray[np.bool_]:
        """Boolean mask of items whose attributes equal every criterion (read-only; the
        same criteria are asked for once per candidate, so masks are kept)."""
        key = tuple(sorted(criteria.items()))
        mask = self._masks.get(key)
        if mask is None:
            mask = np.array(
                [all(getattr(m, k) == value for k, value in key) for m in self.items],
                dtype=bool,
            )
            mask.flags.writeable = False
            self._masks[key] = mask
        return mask


def panel_majority(bundle: BundleData) -> dict[DrawKey, str | None]:
    """Majority vote of the panel per draw (None: tie or nobody voted)."""
    votes: dict[DrawKey, Counter[str]] = defaultdict(Counter)
    for vote in bundle.panel:
        counts = votes[vote.key]  # a draw every judge refused still gets an (empty) entry
        if vote.vote in ("pass", "fail"):
            counts[vote.vote] += 1
    out: dict[DrawKey, str | None] = {}
    for key, counts in votes.items():
        if counts["fail"] > counts["pass"]:
            out[key] = "fail"
        elif counts["pass"] > counts["fail"]:
            out[key] = "pass"
        else:
            out[key] = None
    return out


def decided(verdict: str, key: DrawKey, majority: dict[DrawKey, str | None]) -> str | None:
    """What a draw counts as: ``pass`` or ``fail``, or None when it does not count (lost,
    or refused by the grader and undecided by the panel)."""
    if verdict == "lost":
        return None
    if verdict == "grader_refused":
        return majority.get(key)
    return verdict


def needs_panel(bundle: BundleData) -> dict[DrawKey, str | None]:
    """The panel majorities a bundle's verdicts need (only when the grader refused)."""
    if any(v.verdict == "grader_refused" for v in bundle.verdicts):
        return panel_majority(bundle)
    return {}


def tally_bundle(bundle: BundleData, index: dict[str, int], halves: list[str]) -> Tally:
    """Count failures per item (and per half) of one bundle."""
    size = len(index)
    tally = Tally(
        bundle.slug,
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        {h: np.zeros(size, np.int64) for h in halves},
        {h: np.zeros(size, np.int64) for h in halves},
    )
    majority = needs_panel(bundle)
    for v in bundle.verdicts:
        pos = index.get(v.key.item)
        if pos is None:
            continue
        tally.draws += 1
        tally.lost += v.verdict == "lost"
        tally.refused += v.verdict == "grader_refused"
        verdict = decided(v.verdict, v.key, majority)
        if verdict is None:
            tally.refused_undecided += v.verdict == "grader_refused"
            continue
        failed = int(verdict == "fail")
        tally.n[pos] += 1
        tally.k[pos] += failed
        if v.key.half in tally.n_half:
            tally.n_half[v.key.half][pos] += 1
            tally.k_half[v.key.half][pos] += failed
    return tally


def tally_volume(data: VolumeData) -> VolumeTally:
    """Tallies of every bundle of a loaded volume."""
    items = data.bank.active_items(data.volume.bank_version)
    out = VolumeTally(items=items, index={m.id: n for n, m in enumerate(items)})
    for ref in data.volume.candidates:
        bundle = data.bundles[data.slug_of(ref)]
        out.tallies[bundle.slug] = tally_bundle(
            bundle, out.index, list(data.volume.protocol.halves)
        )
    return out
