"""Generated pages of one volume: its results page (its jury page: ``site.jury``).

Every number comes from the figures registry (its display form, exactly as the frozen
pages print it); every frozen file is linked with its SHA-256 from the fingerprint
registry. The pages link to the frozen HTML and PDF; they never embed them.
"""

from __future__ import annotations

from decimal import Decimal

from generator.fingerprints import FrozenFile
from generator.models.figures import Figure
from generator.models.volume import CandidateRef
from generator.numbers import reading
from generator.scoring import reference_statement
from generator.site import coverage
from generator.site.markup import admonition, code, link, page, table, text
from generator.site.published import LEADERBOARD, PublishedVolume
from generator.words import counted

MISSING = "—"
DEMONSTRATION = (
    "This volume is demonstration data: synthetic models answering a synthetic bank, "
    "written by `probepress demo`. No number on this page describes a real model."
)


def percent(value: Decimal) -> str:
    """``0.95`` -> ``95%``; ``0.975`` -> ``97.5%``."""
    shown = format(value * 100, "f")
    return (shown.rstrip("0").rstrip(".") if "." in shown else shown) + "%"


def shown(figure: Figure | None, interval: str | None = None) -> str:
    """A figure's display form (or one interval's), escaped; a dash when absent."""
    if figure is None:
        return MISSING
    if interval is None:
        return text(reading(figure.display))
    found = figure.intervals.get(interval)
    return text(reading(found.display)) if found is not None else MISSING


def fingerprint(entry: FrozenFile | None) -> str:
    """``sha256:<hex>`` in a code span."""
    return code(f"sha256:{entry.sha256}") if entry is not None else MISSING


def frozen_links(pv: PublishedVolume, stem: str, label: str, base: str = "") -> str:
    """One line linking ``<stem>.html`` and ``<stem>.pdf`` with their fingerprints.

    Args:
        pv: The volume.
        stem: File name inside ``volumes/<vol>/`` without suffix (``jury/<slug>``).
        label: Link text.
        base: Prefix of the link target, from the linking page to the volume folder.
    """
    parts = []
    for kind in ("html", "pdf"):
        entry = pv.frozen_file(f"{stem}.{kind}")
        if entry is not None:
            target = f"{base}{stem}.{kind}"
            parts.append(f"{link(f'{label} ({kind.upper()})', target)} {fingerprint(entry)}")
    return " · ".join(parts) if parts else MISSING


def rank_range(pv: PublishedVolume, slug: str) -> str:
    """``3–5`` (or ``2`` when both ends agree), with its tie group."""
    best, worst = pv.figure(f"{slug}/rank_best"), pv.figure(f"{slug}/rank_worst")
    if best is None or worst is None:
        return MISSING
    span = best.display if best.display == worst.display else f"{best.display}–{worst.display}"
    group = pv.figure(f"{slug}/tie_group")
    return text(span + (f" (tie group {group.display})" if group is not None else ""))


def rank_statement(pv: PublishedVolume) -> str:
    """What a rank range means under the volume's declared rule, in one or two sentences."""
    ranking = pv.volume.thresholds.ranking
    if ranking is None:
        return (
            "A rank range is every rank the core-rate intervals allow; overlapping "
            "intervals share a tie group."
        )
    level = f"{(ranking.familywise_confidence * 100).normalize():f}%"
    return (
        "A rank range runs from one plus the number of models significantly better to the "
        "number of models minus the number significantly worse, every pair compared by the "
        "paired difference of their core rates on the same items, Holm-adjusted so that "
        f"every order claimed holds at once with {level} confidence. There are no tie groups."
    )


def _order(pv: PublishedVolume, ref: CandidateRef) -> tuple[int, Decimal, str]:
    slug = ref.slug
    best = pv.figure(f"{slug}/rank_best")
    core = pv.figure(f"{slug}/core_rate")
    return (
        int(best.value) if best else 1 << 30,
        Decimal(core.value) if core else Decimal(2),
        ref.display_name,
    )


def candidates_in_order(pv: PublishedVolume) -> list[CandidateRef]:
    """Candidates and anchors by best rank, then core rate, then name (the leaderboard's
    order); baselines are never ranked and have their own table (``baseline_table``)."""
    return sorted(pv.volume.ranked(), key=lambda ref: _order(pv, ref))


def baseline_table(pv: PublishedVolume) -> str:
    """The baselines' own table (never ranked), by core rate; empty without baselines."""
    rows = [
        [text(ref.display_name), text(ref.baseline.kind if ref.baseline else MISSING)]
        + [shown(pv.figure(f"{ref.slug}/{rate}")) for rate in ("core_rate", "full_rate")]
        + [shown(pv.figure(f"{ref.slug}/core_rate"), "narrow")]
        for ref in sorted(pv.volume.baselines(), key=lambda ref: _order(pv, ref))
    ]
    if not rows:
        return ""
    header = ["Baseline", "Kind", "Core rate", "Full-bank rate", "Core narrow interval"]
    return (
        "## Baselines (not ranked)\n\nA baseline answers by a fixed rule (or with the "
        "reference answers) and is graded like a candidate, to show what a shortcut scores "
        "here. It is never ranked, never in a rank range or tie group; `probepress audit` "
        "checks it scores as pre-registered.\n\n" + table(header, rows, "llrrr")
    )


def leaderboard_table(pv: PublishedVolume) -> str:
    """The summary table on the core: one row per candidate and anchor, in rank order."""
    rows = []
    for ref in candidates_in_order(pv):
        slug = ref.slug
        core = pv.figure(f"{slug}/core_rate")
        rows.append(
            [
                text(ref.display_name),
                text(ref.role),
                rank_range(pv, slug),
                shown(core),
                shown(core, "narrow"),
                shown(core, "wide"),
                *coverage.cells(pv, slug),
            ]
        )
    header = ["Model", "Role", "Rank range", "Core rate", "Narrow", "Wide", *coverage.HEADER]
    align = "lllrrr" + coverage.ALIGN
    return '<div class="pp-leaderboard" markdown>\n\n' + table(header, rows, align) + "\n\n</div>"


def full_bank_table(pv: PublishedVolume) -> str:
    """The full-bank rates, in the same order, with each model's exact API string."""
    rows = []
    for ref in candidates_in_order(pv):
        full = pv.figure(f"{ref.slug}/full_rate")
        rows.append(
            [
                text(ref.display_name),
                code(ref.api),
                text(ref.run_date if ref.run_date is not None else "unknown"),
                shown(full),
                shown(full, "narrow"),
                shown(full, "wide"),
                *coverage.cells(pv, ref.slug),
            ]
        )
    header = ["Model", "API string", "Run date", "Full-bank rate", "Narrow", "Wide"]
    header += coverage.HEADER
    align = "lllrrr" + coverage.ALIGN
    return '<div class="pp-fullbank" markdown>\n\n' + table(header, rows, align) + "\n\n</div>"


def _drift_lines(pv: PublishedVolume) -> list[str]:
    lines = []
    for ref in pv.volume.candidates:
        slug = ref.slug
        for kind in ("drift", "movement"):
            fig = pv.figure(f"{kind}/{slug}/core")
            if fig is not None:
                lines.append(
                    f"- {text(fig.label)}: {shown(fig)} (narrow interval {shown(fig, 'narrow')})"
                )
    return lines


def movement_section(pv: PublishedVolume) -> str:
    """Anchors, drift and movement, with the two-anchor statement."""
    anchors = pv.figure("movement/anchors")
    statement = anchors.detail.get("statement") if anchors is not None else None
    lines = [text(statement) if isinstance(statement, str) else MISSING]
    drift = _drift_lines(pv)
    if drift:
        lines += ["", *drift]
    return "## Anchors, drift and movement\n\n" + "\n".join(lines)


def conditions_section(pv: PublishedVolume) -> str:
    """The frozen protocol and the pre-registered thresholds."""
    v = pv.volume
    p, t = v.protocol, v.thresholds
    rows = [
        ["Halves", text(", ".join(p.halves))],
        ["Draws per half", text(p.draws_per_half)],
        ["Temperature", text(p.temperature)],
        ["Max output tokens", text(p.max_output_tokens)],
        ["Tools", "on" if p.tools else "off"],
        ["System prompt SHA-256", code(p.system_prompt_sha256)],
        ["Confidence of every interval", text(percent(t.confidence))],
        ["Panel sample fraction (per stratum)", text(percent(t.panel_sample_fraction))],
        ["AC1 floor", text(t.ac1_floor)],
        ["Circuit breaker (lost-draw share)", text(percent(t.circuit_breaker_error_share))],
        ["Panel sample seed", text(t.sample_seed)],
        *coverage.minimum_rows(t),
        ["Pre-registration", f"{code(v.preregistration.sha256)} ({v.preregistration.registered})"],
        ["Run window", f"{v.window.start} to {v.window.end}"],
    ]
    out = "## Run conditions\n\n" + table(["Setting", "Value"], rows)
    own = [ref for ref in v.candidates if ref.conditions is not None]
    if own:
        out += (
            "\n\nCandidates run under their own pre-registered conditions (replacing the "
            "protocol's where given):\n\n"
            + table(
                ["Model", "API string", "Conditions"],
                [
                    [
                        text(ref.display_name),
                        code(ref.api),
                        text(
                            ", ".join(
                                f"{k.replace('_', ' ')} {val}"
                                for k, val in sorted(ref.conditions.overrides().items())
                            )
                        ),
                    ]
                    for ref in own
                    if ref.conditions is not None
                ],
            )
        )
    return out


def volume_heading(pv: PublishedVolume) -> list[str]:
    v = pv.volume
    roles = [c.role for c in v.candidates]
    facts = (
        f"Published {v.publication_date} · bank {text(v.bank_version)} · "
        f"{counted(roles.count('candidate'), 'candidate')} and "
        f"{counted(roles.count('anchor'), 'anchor')}"
        + (f" (and {counted(roles.count('baseline'), 'baseline')})" if "baseline" in roles else "")
        + " · "
        f"every interval at {text(percent(v.thresholds.confidence))} confidence"
    )
    blocks = [admonition("warning", "Demonstration data", DEMONSTRATION)] if v.demonstration else []
    return [*blocks, facts, text(reference_statement(v)), *_statements(pv)]


def _statements(pv: PublishedVolume) -> list[str]:
    """What every page of the volume states: qualification not run (and why); judged
    numbers judge-unvalidated (and why); a bank with no held-out items."""
    out = []
    not_run = pv.volume.jury.not_run
    if not_run is not None:
        out.append(
            admonition(
                "note",
                "Qualification not run",
                f"No grader or judge was qualified on probe cases: {text(not_run.reason)}",
            )
        )
    calibration = pv.figure("calibration/draws")
    if calibration is not None and calibration.detail.get("status") == "judge-unvalidated":
        out.append(
            admonition(
                "warning",
                "Judge-unvalidated",
                "Every judged number of this volume is judge-unvalidated: "
                f"{text(str(calibration.detail['statement']))}.",
            )
        )
    items = pv.figure("bank/items")
    if items is not None and items.detail.get("held_out") == 0:
        out.append(
            admonition(
                "note",
                "No held-out items",
                "This bank has no held-out items: every item is public.",
            )
        )
    return out


def scoring_section(pv: PublishedVolume) -> str:
    """The label set, each item group's pre-registered label rule, and the reference."""
    scoring = pv.volume.scoring_or_default()
    lines = [text(reference_statement(pv.volume))]
    if scoring.labels is None:
        lines.append("No label set is declared: each rater's label is its verdict (pass or fail).")
        return "## Scoring\n\n" + "\n\n".join(lines)
    lines.append(
        "Raters' labels: " + ", ".join(code(label) for label in scoring.labels) + ". Each "
        "verdict keeps its rater's label; pass or fail is derived from it by the "
        "pre-registered rule of the item's group (part of the pre-registration hash)."
    )
    rows = []
    for group in scoring.groups:
        members = group.categories or group.items
        kind = "categories" if group.categories else "items"
        rule = "; ".join(f"{code(k)} → {text(v)}" for k, v in group.rule.items())
        rows.append([code(group.id), text(f"{kind}: {', '.join(members)}"), rule])
    lines.append(table(["Item group", "Members", "Label → outcome"], rows))
    return "## Scoring\n\n" + "\n\n".join(lines)


def results_page(pv: PublishedVolume) -> str:
    """``volumes/<vol>/index.md``."""
    # The forest plots bring the page templates (Jinja): only a site build draws them,
    # and ``verify`` imports this module for the tidy leaderboard's candidate order.
    from generator.site.forest import forest_section

    v = pv.volume
    return page(
        v.title,
        *volume_heading(pv),
        "## Leaderboard (core rates)\n\n"
        f"Frozen leaderboard: {frozen_links(pv, LEADERBOARD, 'leaderboard')}\n\n"
        "Failure rates: lower is better. *Narrow* intervals hold the bank fixed (this "
        "model on these probes); *wide* intervals treat the probes as a sample (probes "
        f"like these). {rank_statement(pv)} See [the methodology]"
        "(../../methodology.md#rank-ranges). " + coverage.NOTE,
        leaderboard_table(pv),
        forest_section(pv, [ref.slug for ref in candidates_in_order(pv)]),
        f"## Full-bank rates (bank {text(v.bank_version)})\n\n"
        "Every active validated probe of the volume's bank version; prior candidates were "
        "re-run on the whole bank, so these rates share one scale.",
        full_bank_table(pv),
        baseline_table(pv),
        f"Jury, agreement and every jury card: [jury of {text(v.id)}](jury.md).",
        movement_section(pv),
        scoring_section(pv),
        conditions_section(pv),
    )
