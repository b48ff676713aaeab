"""Per-item failure counts of every candidate: the one pass over verdicts behind every rate.

A draw counts toward an item's failure fraction when the volume's reference rater set
decided it. With the grader as the reference (the default): the grader's pass or fail,
or — when the grader refused — the panel majority (a tie or an all-refusing panel leaves
it undecided). With ``panel-majority`` or ``adjudication`` every judged (Tier 1) draw is
decided by that set alone. Tier 0 draws are always the mechanical check's; lost draws
never count. Rubric items (``scoring.rubric_groups``) count toward no failure rate: they
are scored, not passed or failed (``generator.figures.rubric``). The grader's pass or
fail is what the pre-registered rule derives from its label (the preflight gate
re-derives every one), so the rates follow from the labels.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from generator import scoring
from generator.models.bank import ItemMeta
from generator.models.volume import Volume
from generator.rubric import rubric_items
from generator.store.rowtypes import BundleData, DrawKey, VerdictRow
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
    """Grader refusals the panel majority left undecided (grader reference)."""
    undecided: int = 0
    """Judged draws the reference rater set did not decide (panel-majority or
    adjudication reference: no vote, a tie, a refusal)."""
    draws: int = 0


@dataclass
class VolumeTally:
    """Every candidate's tally plus the item order they share."""

    items: list[ItemMeta]
    index: dict[str, int]
    tallies: dict[str, Tally] = field(default_factory=dict)
    retired: frozenset[str] = frozenset()
    """Retired core items among ``items``: still run and in the core rate (the core is
    permanent), out of the active full bank."""
    majority: dict[str, dict[DrawKey, str | None]] = field(default_factory=dict)
    """Each bundle's independent panel majority (``panel_majority``), by slug: counted
    once, for the rates, the wrong-answer shares and the leniency."""
    deciders: dict[str, Decider] = field(default_factory=dict)
    """What each bundle's draws count as (``decider``), by slug: the rates' and the
    wrong-answer shares' one rule."""
    _masks: dict[tuple[tuple[str, object], ...], npt.NDArray[np.bool_]] = field(
        default_factory=dict, init=False, repr=False
    )

    def in_full_bank(self) -> npt.NDArray[np.bool_]:
        """Boolean mask of the items of the active full bank (every item but a retired
        core one, which only the core rate keeps)."""
        return np.array([m.id not in self.retired for m in self.items], dtype=bool)

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


def panel_majority(bundle: BundleData, exclude: Iterable[str] = ()) -> dict[DrawKey, str | None]:
    """Majority vote of the independent panel per draw (None: tie or nobody voted);
    ``exclude``: seats that are not independent raters (an adjudication seat)."""
    return scoring.panel_majority(bundle.panel, exclude)


@dataclass(frozen=True)
class Decider:
    """What each draw of one bundle counts as, under the volume's reference rater set:
    the one rule behind the rates and the exported instances."""

    decisions: dict[DrawKey, str | None] | None
    """The reference set's decisions on judged draws (None: the grader is the reference)."""
    majority: dict[DrawKey, str | None]
    """The independent panel's majority, for draws the grader refused (grader reference)."""

    def by_reference(self, v: VerdictRow) -> bool:
        """Whether a reference set other than the grader decides ``v``."""
        return self.decisions is not None and v.tier == 1

    def outcome(self, v: VerdictRow) -> str | None:
        """``pass`` or ``fail``, or None when the draw counts toward no rate (lost, or
        left undecided by whoever decides it)."""
        if v.verdict == "lost":
            return None
        if self.decisions is not None and v.tier == 1:
            return self.decisions.get(v.key)
        if v.verdict == "grader_refused":
            return self.majority.get(v.key)
        return v.verdict


def decider(
    bundle: BundleData,
    volume: Volume | None = None,
    majority: dict[DrawKey, str | None] | None = None,
) -> Decider:
    """The :class:`Decider` of ``bundle`` (the grader reference when ``volume`` is None or
    declares no scoring); ``majority`` passes the bundle's panel majority already counted
    without ``volume``'s adjudication seat (None: counted here when it is needed)."""
    reference = "grader" if volume is None else volume.scoring_or_default().reference
    if volume is not None and reference != "grader":
        return Decider(scoring.reference_decisions(volume, bundle, majority), {})
    if not any(v.verdict == "grader_refused" for v in bundle.verdicts):
        return Decider(None, {})
    if majority is None:
        majority = panel_majority(
            bundle, () if volume is None else scoring.adjudication_seat(volume)
        )
    return Decider(None, majority)


def _new_tally(slug: str, size: int, halves: list[str]) -> Tally:
    return Tally(
        slug,
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        {h: np.zeros(size, np.int64) for h in halves},
        {h: np.zeros(size, np.int64) for h in halves},
    )


def tally_bundle(
    bundle: BundleData,
    index: dict[str, int],
    halves: list[str],
    volume: Volume | None = None,
    skip: frozenset[str] = frozenset(),
    decide: Decider | None = None,
) -> Tally:
    """Count failures per item (and per half) of one bundle, as decided by ``volume``'s
    reference rater set (the grader when ``volume`` is None or declares no scoring);
    items in ``skip`` (rubric items) keep no counts. ``decide``: the bundle's
    :func:`decider`, already made (None: made here)."""
    tally = _new_tally(bundle.slug, len(index), halves)
    if decide is None:
        decide = decider(bundle, volume)
    # Counted in Python lists, then written into the tally's arrays once: an element
    # update of a NumPy array costs several times a list's, four per verdict here.
    k, n = [0] * len(index), [0] * len(index)
    k_half = {h: [0] * len(index) for h in tally.n_half}
    n_half = {h: [0] * len(index) for h in tally.n_half}
    for v in bundle.verdicts:
        pos = index.get(v.key.item)
        if pos is None or v.key.item in skip:
            continue
        tally.draws += 1
        if v.verdict == "lost":
            tally.lost += 1
            continue
        tally.refused += v.verdict == "grader_refused"
        verdict = decide.outcome(v)
        if verdict is None:
            if decide.by_reference(v):
                tally.undecided += 1
            else:
                tally.refused_undecided += 1
            continue
        failed = int(verdict == "fail")
        n[pos] += 1
        k[pos] += failed
        if v.key.half in n_half:
            n_half[v.key.half][pos] += 1
            k_half[v.key.half][pos] += failed
    tally.k[:], tally.n[:] = k, n
    for h in tally.n_half:
        tally.k_half[h][:], tally.n_half[h][:] = k_half[h], n_half[h]
    return tally


def tally_volume(data: VolumeData) -> VolumeTally:
    """Tallies of every bundle of a loaded volume."""
    items = data.bank.active_items(data.volume.bank_version)
    retired = frozenset(data.bank.retired_by(data.volume.bank_version))
    out = VolumeTally(
        items=items,
        index={m.id: n for n, m in enumerate(items)},
        retired=retired & {m.id for m in items},
    )
    scored = rubric_items(data.volume, items)
    seats = scoring.adjudication_seat(data.volume)  # not an independent rating
    for ref in data.volume.candidates:
        bundle = data.bundles[data.slug_of(ref)]
        majority = out.majority[bundle.slug] = panel_majority(bundle, seats)
        decide = out.deciders[bundle.slug] = decider(bundle, data.volume, majority)
        out.tallies[bundle.slug] = tally_bundle(
            bundle, out.index, list(data.volume.protocol.halves), data.volume, scored, decide
        )
    return out
