"""preflight: the volume is complete and every file reads strictly.

Every listed bundle exists, parses strictly and matches its manifest hashes (the loader's
findings); the schedule is complete — every item of the bank version × half × draw
exactly once, nothing unknown or duplicated; every draw has exactly one verdict of its
item's tier; Tier 0 verdicts agree with re-running the item's mechanical check; lost
draws and "lost" verdicts go together; every rater label is declared and the pass/fail
recorded beside it is what the pre-registered rule of its item group derives
(``generator.gates.labels``); rubric items' verdicts grade every line of their rubric
exactly once with evidence (``generator.gates.rubric``). Why: a rate over an incomplete
or padded schedule is not the rate of the protocol that was pre-registered.
"""

from __future__ import annotations

from generator.gates import labels, rubric
from generator.gates.base import Findings, GateContext, GateResult
from generator.store.rowtypes import BundleData, DrawKey
from generator.words import counted

NAME = "preflight"
LISTED = 5


def _schedule(ctx: GateContext, bundle: BundleData, out: Findings) -> None:
    protocol = ctx.data.volume.protocol
    path = ctx.shown(bundle, "draws.jsonl")
    seen: dict[DrawKey, int] = {}
    for row in bundle.draws:
        key = row.key
        if key.item not in ctx.items:
            out.add(
                "unknown-item",
                path,
                row.line,
                f"item {key.item} is not in bank {ctx.data.volume.bank_version}",
                "run only the items of the volume's bank version",
            )
        elif key.half not in protocol.halves or not 1 <= key.draw <= protocol.draws_per_half:
            out.add(
                "off-schedule",
                path,
                row.line,
                f"draw {key.half}{key.draw} of {key.item} is outside the protocol "
                f"(halves {', '.join(protocol.halves)} × {protocol.draws_per_half} draws)",
            )
        elif key in seen:
            out.add(
                "duplicate-draw",
                path,
                row.line,
                f"draw {key.item} {key.half}{key.draw} already appears on line {seen[key]}",
                "keep exactly one draw per item, half and index",
            )
        else:
            seen[key] = row.line
    # Plain tuples hash and compare like DrawKeys, and are much cheaper to build.
    expected = [
        (item, half, n)
        for item in ctx.items
        for half in protocol.halves
        for n in range(1, protocol.draws_per_half + 1)
    ]
    missing = [DrawKey(*k) for k in expected if k not in seen]
    if missing:
        shown = ", ".join(f"{k.item} {k.half}{k.draw}" for k in missing[:LISTED])
        more = f" and {len(missing) - LISTED} more" if len(missing) > LISTED else ""
        out.add(
            "missing-draw",
            path,
            None,
            f"{counted(len(missing), 'scheduled draw')} missing: {shown}{more}",
            "every item × half × draw must be run exactly once (a lost draw is recorded, "
            "not dropped)",
        )


def _verdicts(ctx: GateContext, bundle: BundleData, out: Findings) -> None:
    path = ctx.shown(bundle, "verdicts.jsonl")
    draws = {row.key: row for row in bundle.draws}
    seen: dict[DrawKey, int] = {}
    for v in bundle.verdicts:
        draw = draws.get(v.key)
        item = ctx.items.get(v.key.item)
        label = f"{v.key.item} {v.key.half}{v.key.draw}"
        if v.key in seen:
            out.add(
                "duplicate-verdict",
                path,
                v.line,
                f"{label} already has a verdict on line {seen[v.key]}",
            )
            continue
        seen[v.key] = v.line
        if draw is None:
            out.add("verdict-without-draw", path, v.line, f"{label} has a verdict but no draw")
            continue
        if item is not None and v.tier != item.tier:
            out.add(
                "verdict-tier",
                path,
                v.line,
                f"{label} is Tier {item.tier} but its verdict says Tier {v.tier}",
            )
        if draw.lost != (v.verdict == "lost"):
            what = (
                "was lost but its verdict is" if draw.lost else "has an answer but its verdict is"
            )
            out.add("lost-verdict", path, v.line, f"{label} {what} {v.verdict!r}")
        checked = v.tier == 0 and draw.tier0_pass is not None and v.verdict in ("pass", "fail")
        if checked and draw.tier0_pass != (v.verdict == "pass"):
            out.add(
                "tier0-recheck",
                path,
                v.line,
                f"{label}: the mechanical check says {'pass' if draw.tier0_pass else 'fail'}"
                f" but the verdict says {v.verdict}",
                "Tier 0 verdicts must be what the item's check decides",
            )
    missing = [k for k in draws if k not in seen]
    if missing:
        shown = ", ".join(f"{k.item} {k.half}{k.draw}" for k in missing[:LISTED])
        more = f" and {len(missing) - LISTED} more" if len(missing) > LISTED else ""
        out.add(
            "missing-verdict",
            path,
            None,
            f"{counted(len(missing), 'draw')} without a verdict: {shown}{more}",
        )


def _manifest(ctx: GateContext, bundle: BundleData, out: Findings) -> None:
    path = ctx.shown(bundle, "bundle.json")
    volume = ctx.data.volume
    if bundle.manifest.volume != volume.id:
        out.add(
            "bundle-volume", path, None, f"volume is {bundle.manifest.volume!r}, not {volume.id!r}"
        )
    if bundle.manifest.bank_version != volume.bank_version:
        out.add(
            "bundle-bank-version",
            path,
            None,
            f"bank_version is {bundle.manifest.bank_version}, "
            f"the volume runs {volume.bank_version}",
        )
    draws = {row.key for row in bundle.draws}
    panel_path = ctx.shown(bundle, "panel.jsonl")
    for vote in bundle.panel:
        if vote.key.item not in ctx.items:
            out.add(
                "unknown-item",
                panel_path,
                vote.line,
                f"vote on item {vote.key.item}, which is not in bank {volume.bank_version}",
                "the panel re-grades only draws of the volume's bank version",
            )
        elif vote.key not in draws:
            out.add(
                "vote-without-draw",
                panel_path,
                vote.line,
                f"vote on {vote.key.item} {vote.key.half}{vote.key.draw}, which is not a draw",
            )


def check(ctx: GateContext) -> GateResult:
    """Run the preflight gate."""
    out = Findings(NAME)
    out.extend(ctx.data.problems)
    labels.check_groups(ctx, out)
    rubric.check_groups(ctx, out)
    rules = labels.rules_of(ctx)
    scored = rubric.scored_items(ctx)
    for bundle in ctx.bundles():
        _manifest(ctx, bundle, out)
        _schedule(ctx, bundle, out)
        _verdicts(ctx, bundle, out)
        labels.check_labels(ctx, bundle, rules, out, scored)
        rubric.check_verdicts(ctx, bundle, scored, out)
    return out.result()
