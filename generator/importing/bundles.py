"""Sealed bundles from record rows: the one writer every importer calls.

``write_bundles`` turns the rows of one volume (from the flat records format, or from an
Inspect AI or lm-evaluation-harness reader) into ``bundles/<volume>/<slug>/``: the draws,
verdicts, panel votes and qualification lines, and ``bundle.json`` with the SHA-256 and
size of each. Held-out responses go to the private store with keyed commitments in the
draws. Every problem of every row is collected first; nothing is written unless all rows
are valid, an existing bundle (or private response file) is refused, never replaced, and
the bundles of one import are written all or none (``generator.importing.seal``).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from pydantic import ValidationError

from generator import commitments, journal
from generator.errors import InputError
from generator.importing import draws as rowlines
from generator.importing.inputs import BundleInputs
from generator.importing.labels import LabelMap, Reading, Scorer
from generator.importing.rows import RecordRow
from generator.importing.seal import Build, Sealed, qualification_problems, seal_all, sealed
from generator.models import Volume
from generator.rubric import rubric_items
from generator.sampling import Eligible, panel_sample
from generator.store.bank import Bank, load_bank, load_private_items, require
from generator.store.jsonl import Bounds, Problems, load_document
from generator.store.paths import Layout
from generator.store.volume import candidate_slug
from generator.words import counted


class Located(NamedTuple):
    """A row with where it was read (for messages)."""

    path: str
    line: int | None
    row: RecordRow


@dataclass(frozen=True)
class BundlesResult:
    """What ``write_bundles`` wrote."""

    volume: str
    bundles: tuple[str, ...]
    """Bundle folders written, relative to the root."""
    draws: int
    panel_votes: int
    heldout_responses: int
    """Held-out responses moved into the private store."""
    unused_tier0_labels: int
    """Grader labels on Tier 0 draws, not used: their check decides."""
    missing: tuple[str, ...]
    """Candidates of the volume that got no bundle (no rows)."""


def _located(rows: Iterable[RecordRow | Located]) -> list[Located]:
    return [
        r if isinstance(r, Located) else Located("rows", n, r) for n, r in enumerate(rows, start=1)
    ]


def read_inputs(
    layout: Layout, volume_id: str, bounds: Bounds, *, private: bool = True
) -> tuple[Volume, Bank]:
    """The volume and its bank; with ``private``, the held-out texts too (when any).

    Raises:
        InputError: Either cannot be read.
    """
    problems = Problems()
    path = layout.volume_file(volume_id)
    volume = load_document(path, Volume, layout.rel(path), problems, bounds.max_yaml_bytes)
    bank = load_bank(layout, bounds, problems, private=False)
    if private and bank is not None and bank.heldout and not problems:
        load_private_items(layout, bank, bounds, problems)
    require(problems, f"{volume_id} and its bank")
    assert volume is not None and bank is not None
    return volume, bank


def _row_lines(
    build: Build, located: Located, volume: Volume, bank: Bank, ctx: _Context
) -> tuple[dict[str, Reading], bool] | None:
    """Add one row's draw and verdict; its panel votes and whether it is eligible."""
    row = located.row
    if row.item not in bank.public and row.item not in bank.heldout:
        raise rowlines.RowError(f"item {row.item} is not in the bank")
    protocol = build.run.conditions or volume.protocol
    if row.half not in protocol.halves or row.draw > protocol.draws_per_half:
        raise rowlines.RowError(
            f"draw {row.half}{row.draw} is outside the protocol "
            f"({counted(len(protocol.halves), 'half', 'halves')} {', '.join(protocol.halves)} "
            f"of {counted(protocol.draws_per_half, 'draw')})"
        )
    heldout = bank.is_heldout(row.item)
    key = commitments.item_key(ctx.secret, row.item) if heldout and ctx.secret else None
    if heldout and key is None:
        raise rowlines.RowError("held-out responses need the bank secret in the private store")
    meta = bank.meta(row.item)
    scored = row.item in ctx.rubric
    full = bank.full_item(row.item)
    verdict = rowlines.verdict_line(row, meta, full, build.seats, ctx.scorer, scored)
    draw, private = rowlines.draw_line(row, rowlines.Bound(volume.id, build.slug, key))
    votes = rowlines.panel_labels(row, build.seats, ctx.scorer, scored) if meta.tier == 1 else {}
    if meta.tier == 0 and build.seats.grader in row.labels:
        build.lines.unused_tier0_labels += 1
    build.lines.draws.append(draw)
    build.lines.verdicts.append(verdict)
    if private is not None:
        build.lines.private.append(private)
    judged = verdict["verdict"] in ("pass", "fail", "grader_refused")
    return votes, judged and meta.tier == 1


@dataclass(frozen=True)
class _Context:
    scorer: Scorer
    secret: bytes | None
    inputs_shown: str
    rubric: frozenset[str] = frozenset()
    """Items the volume scores by their rubric."""


def _panel(
    build: Build,
    volume: Volume,
    bank: Bank,
    pending: list[tuple[Located, dict[str, Reading], dict[str, Any]]],
    problems: Problems,
) -> None:
    """Panel votes on the draws the pre-registered sample selects; labels elsewhere refused."""
    eligible = [
        Eligible(
            v["item"],
            v["half"],
            v["draw"],
            bank.meta(v["item"]).category,
            v["borderline"],
            v["verdict"] == "grader_refused",
        )
        for _, _, v in pending
    ]
    t = volume.thresholds
    sample = panel_sample(
        eligible,
        seed=t.sample_seed,
        volume=volume.id,
        candidate=build.slug,
        fraction=t.panel_sample_fraction,
    )
    for located, votes, v in pending:
        why = sample.why.get((v["item"], v["half"], v["draw"]))
        if votes and why is None:
            problems.add(
                located.path,
                located.line,
                "panel-sample",
                f"panel labels on {v['item']} {v['half']}{v['draw']}, which the volume's panel "
                "sample does not select",
                "drop them, or pre-register a panel_sample_fraction "
                "that covers them (`probepress sample` lists the sample)",
            )
            continue
        families = build.seats.voters()
        for judge, reading in sorted(votes.items()):
            build.lines.panel.append(
                {
                    "item": v["item"],
                    "half": v["half"],
                    "draw": v["draw"],
                    "judge": judge,
                    "family": families[judge],
                    **rowlines.vote_fields(reading),
                    "why": why,
                }
            )


def _collect(
    rows: list[Located],
    volume: Volume,
    bank: Bank,
    inputs: BundleInputs,
    ctx: _Context,
    layout: Layout,
    problems: Problems,
) -> list[Build]:
    """Every candidate's lines from the rows; every problem reported."""
    by_api: dict[str, list[Located]] = defaultdict(list)
    listed = {c.api for c in volume.candidates}
    for located in rows:
        if located.row.candidate not in listed:
            problems.add(
                located.path,
                located.line,
                "unknown-candidate",
                f"candidate {located.row.candidate!r} is not listed in volume.yaml",
            )
            continue
        by_api[located.row.candidate].append(located)
    builds = []
    for api in sorted(by_api):
        build = _start(api, volume, inputs, ctx, layout, problems)
        if build is None:
            continue
        seen: dict[tuple[str, str, int], str] = {}
        pending = []
        for located in by_api[api]:
            row = located.row
            key = (row.item, row.half, row.draw)
            if key in seen:
                problems.add(
                    located.path,
                    located.line,
                    "duplicate-draw",
                    f"{api}: draw {row.item} {row.half}{row.draw} also at {seen[key]}",
                )
                continue
            seen[key] = f"line {located.line}"
            try:
                found = _row_lines(build, located, volume, bank, ctx)
            except rowlines.RowError as exc:
                problems.add(located.path, located.line, exc.rule, str(exc))
                continue
            if found is not None and found[1]:
                pending.append((located, found[0], build.lines.verdicts[-1]))
            elif found is not None and found[0]:
                problems.add(
                    located.path,
                    located.line,
                    "panel-sample",
                    "panel labels on a draw that is not judged (lost or Tier 0)",
                )
        _panel(build, volume, bank, pending, problems)
        builds.append(build)
    return builds


def _start(
    api: str,
    volume: Volume,
    inputs: BundleInputs,
    ctx: _Context,
    layout: Layout,
    problems: Problems,
) -> Build | None:
    """A candidate's empty build, or None (reported) when it cannot have a new bundle."""
    slug = candidate_slug(api)
    folder = layout.bundle_dir(volume.id, slug)
    run = inputs.candidates.get(api)
    ok = True
    if os.path.lexists(folder):
        problems.add(
            layout.rel(folder),
            None,
            "bundle-exists",
            f"the bundle of {api} already exists; a bundle is never overwritten",
            "import into a new volume, or remove the bundle yourself",
        )
        ok = False
    private = layout.private_responses(volume.id, slug)
    if os.path.lexists(private):
        problems.add(
            str(private),
            None,
            "bundle-exists",
            f"held-out responses of {api} are already in the private store",
            "if the bundle does not exist, an import was killed before moving it into "
            "place: remove this file, then import again",
        )
        ok = False
    if run is None:
        problems.add(
            ctx.inputs_shown,
            None,
            "manifest-inputs",
            f"candidates has no entry for {api!r} (family, endpoint, run dates)",
        )
        return None
    seats = rowlines.seats_for(volume, run)
    humans = {j.key for j in volume.jury.members() if j.family is None}
    missing = [
        j
        for j in (seats.grader, *seats.voters())
        if j not in inputs.jury_endpoints and j not in humans
    ]
    if missing:
        problems.add(
            ctx.inputs_shown,
            None,
            "manifest-inputs",
            f"jury_endpoints has no entry for {', '.join(missing)}",
        )
        ok = False
    return Build(api, slug, run, seats, rowlines.Lines()) if ok else None


def _result(layout: Layout, vol: Volume, sealed: list[Build]) -> BundlesResult:
    written = {b.api for b in sealed}
    return BundlesResult(
        volume=vol.id,
        bundles=tuple(layout.rel(layout.bundle_dir(vol.id, b.slug)) for b in sealed),
        draws=sum(len(b.lines.draws) for b in sealed),
        panel_votes=sum(len(b.lines.panel) for b in sealed),
        heldout_responses=sum(len(b.lines.private) for b in sealed),
        unused_tier0_labels=sum(b.lines.unused_tier0_labels for b in sealed),
        missing=tuple(c.api for c in vol.candidates if c.api not in written),
    )


def write_bundles(
    layout: Layout,
    volume: str,
    rows: Iterable[RecordRow | Located],
    manifest_inputs: BundleInputs,
    *,
    labels: LabelMap | None = None,
    inputs_shown: str = "manifest inputs",
    bounds: Bounds | None = None,
) -> BundlesResult:
    """Write a sealed bundle for every candidate of ``volume`` that ``rows`` name: all of
    them or none. An interrupted publish or import is rolled back first (as publish does).

    Args:
        layout: The publication root and its private store.
        volume: The volume id (``bundles/<volume>/volume.yaml`` must exist and load).
        rows: The draws, as ``RecordRow``s or ``Located`` rows (their file and line are
            named in messages).
        manifest_inputs: The facts the rows do not give (``generator.importing.inputs``).
        labels: How labels map to pass/fail when the volume declares no label set
            [default: ``pass``/``fail``]; with declared ``scoring`` the pre-registered
            rule reads every label (which the verdicts and votes keep) and ``labels``
            must be None.
        inputs_shown: The manifest inputs' file, as messages name it.
        bounds: Reader bounds.

    Returns: What was written.

    Raises:
        InputError: The volume or bank cannot be read, a row or the inputs are invalid,
            or a bundle already exists; nothing is written.
        CommitError: An OS error stopped the move into place; no bundle was left.
        UsageError: ``labels`` given for a volume that declares its label rules.
    """
    bounds = bounds or Bounds()
    located = _located(rows)
    journal.recover(layout.root)  # as publish does: an interrupted move is rolled back first
    vol, bank = read_inputs(layout, volume, bounds)
    problems = Problems()
    for message in qualification_problems(vol, manifest_inputs, inputs_shown):
        problems.add(inputs_shown, None, "manifest-inputs", message)
    secret = commitments.load_secret(layout) if bank.heldout else None
    active = bank.active_items(vol.bank_version)
    ctx = _Context(Scorer.of(vol, active, labels), secret, inputs_shown, rubric_items(vol, active))
    builds = _collect(located, vol, bank, manifest_inputs, ctx, layout, problems)
    ready: list[Sealed] = []
    for build in builds if not problems else []:
        try:
            ready.append(sealed(build, vol, manifest_inputs))
        except ValidationError as exc:
            problems.add(
                layout.rel(layout.bundle_dir(volume, build.slug)),
                None,
                "bundle",
                str(exc).replace("\n", " "),
            )
    if problems:
        raise InputError(f"cannot import into {volume}; nothing was written:", problems.items)
    seal_all(layout, volume, ready)
    return _result(layout, vol, builds)
