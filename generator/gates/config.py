"""config: every run used the volume's frozen protocol, inside its window, under
thresholds fixed before any result.

Each bundle's recorded conditions are compared with its own candidate's: the protocol,
replaced where the candidate declares its own ``conditions``. A run date the bundle does
not record is unknown: the gate notes that the window and the pre-registration date
cannot be checked for it, and never treats it as inside them.

Pre-registration mechanism: ``volume.yaml`` carries ``preregistration.sha256``, the hash of
the canonical JSON of its protocol, thresholds, jury (with its qualification policy) and
every candidate's own conditions, and the date it was fixed. The gate (1) recomputes the
hash; (2) requires the registration date to precede every run; (3) in a git checkout,
reads ``volume.yaml`` as it stood in the first commit that added any of the volume's
bundle files and requires the same protocol, thresholds, jury and conditions there
(fields the format has since retired are ignored; a qualification probe set declared
only since is a warning, as nothing shows it predates the results) — so thresholds
cannot be tuned after results were committed without the history showing it. Outside
git, (3) is a warning (``--strict`` makes it fail).

Anchors (``generator.gates.anchor_probes``): every anchor was chosen by a recorded live
probe (``bundles/<volume>/anchor_probes.jsonl``) taken before its run, through its run's
provider, at most ``thresholds.anchor_probe_max_age_days`` days earlier.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml
from pydantic import BaseModel, ValidationError

from generator import git
from generator.gates import labels
from generator.gates.anchor_probes import check_anchor_probes
from generator.gates.base import Findings, GateContext, GateResult
from generator.models.volume import CandidateRef, Jury, Protocol, Thresholds, Volume
from generator.prereg import volume_preregistration_sha256
from generator.store.rowtypes import BundleData

NAME = "config"


class _Rules(NamedTuple):
    """The pre-registered decision rules of a volume.yaml."""

    protocol: Protocol
    thresholds: Thresholds
    jury: Jury
    conditions: dict[str, dict[str, object]]


def _differences(actual: Protocol, frozen: Protocol, said: str) -> list[str]:
    a, f = actual.model_dump(mode="json"), frozen.model_dump(mode="json")
    return [f"{key} is {a[key]!r} but {said} {f[key]!r}" for key in f if a.get(key) != f[key]]


def _git(ctx: GateContext, *args: str) -> str | None:
    return git.output(ctx.repo_root, *args)


def _first_bundle_commit(ctx: GateContext, out: Findings) -> str | None:
    """The first commit that added a bundle file of the volume; None (warned) if unknown."""
    volume_dir = ctx.layout.rel(ctx.layout.volume_dir(ctx.data.volume.id))
    inside = _git(ctx, "rev-parse", "--is-inside-work-tree")
    if inside is None or inside.strip() != "true":
        out.add(
            "prereg-history",
            ctx.volume_file,
            None,
            "not a git checkout: cannot show the thresholds predate the results",
            "publish from a git checkout",
            severity="warning",
        )
        return None
    log = _git(ctx, "log", "--diff-filter=A", "--format=commit %H", "--name-only", "--", volume_dir)
    commits: list[str] = []
    commit = ""
    for line in (log or "").splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif line.strip() and not line.endswith("/volume.yaml") and commit not in commits:
            commits.append(commit)
    if not commits:
        out.add(
            "prereg-history",
            ctx.volume_file,
            None,
            "the bundles are not committed yet: cannot show the thresholds predate the results",
            "commit volume.yaml first, then the bundles",
            severity="warning",
        )
        return None
    return commits[-1]  # git log lists newest first


def _history(ctx: GateContext, out: Findings) -> None:
    """volume.yaml, as first committed with a bundle, registered today's decision rules."""
    first = _first_bundle_commit(ctx, out)
    if first is None:
        return
    text = _git(ctx, "show", f"{first}:{ctx.volume_file}")
    if text is None:
        out.add(
            "prereg-history",
            ctx.volume_file,
            None,
            f"volume.yaml did not exist when the first bundle was committed ({first[:12]})",
            "commit volume.yaml with its pre-registration before any bundle",
        )
        return
    try:
        document = yaml.safe_load(text)
        then = _decision_rules(document)
    except (yaml.YAMLError, ValidationError, TypeError, KeyError):
        out.add(
            "prereg-history", ctx.volume_file, None, f"volume.yaml at {first[:12]} does not parse"
        )
        return
    _unchanged_since(ctx, out, first, then)
    labels.check_history(out, ctx.volume_file, first, document, ctx.data.volume.scoring)


# Declarations the format added after volumes had results (qualification: jury schema 2;
# grading and min_category_items: the audit; ranking: paired rank ranges, issue 17;
# min_volume_items: minimum sizes; anchor_probe_max_age_days: anchor probes). Absent then
# and declared now, they are not a change of a registered value, but nothing shows they
# predate the results: they warn.
_LATER_DECLARATIONS = (
    ("jury", "qualification"),
    ("jury", "grading"),
    ("thresholds", "min_category_items"),
    ("thresholds", "ranking"),
    ("thresholds", "min_volume_items"),
    ("thresholds", "anchor_probe_max_age_days"),
)


def _unchanged_since(ctx: GateContext, out: Findings, first: str, then: _Rules) -> None:
    """Protocol, thresholds, jury and conditions are as at ``first``; a declaration the
    format added later (``_LATER_DECLARATIONS``), absent then, warns."""
    now = ctx.data.volume
    for part, field in _LATER_DECLARATIONS:
        was, value = getattr(getattr(then, part), field), getattr(getattr(now, part), field)
        if was is not None or value is None:
            continue
        out.add(
            "prereg-added",
            ctx.volume_file,
            None,
            f"{part}.{field} was declared after the results were committed "
            f"(absent at commit {first[:12]}); nothing shows it predates them",
            f"declare {part}.{field} before any run in the next volume",
            severity="warning",
        )
        then = then._replace(**{part: getattr(then, part).model_copy(update={field: value})})
    if then != _Rules(now.protocol, now.thresholds, now.jury, now.declared_conditions()):
        out.add(
            "prereg-changed",
            ctx.volume_file,
            None,
            f"protocol, thresholds, jury or conditions changed after the results were committed "
            f"(compare with commit {first[:12]})",
            "restore the pre-registered values; a change needs a new volume",
        )


def _decision_rules(document: Any) -> _Rules:
    """Protocol, thresholds, jury and candidates' conditions of a historical ``volume.yaml``.

    Fields the current format no longer has are dropped first: a retired field cannot
    influence any decision probepress makes today, and refusing the old file would make
    every format change look like a broken pre-registration.
    """

    def known(model: type[BaseModel], section: Any) -> dict[str, Any]:
        return {k: v for k, v in dict(section).items() if k in model.model_fields}

    candidates = [
        CandidateRef.model_validate(known(CandidateRef, c)) for c in document["candidates"]
    ]
    return _Rules(
        Protocol.model_validate(known(Protocol, document["protocol"])),
        Thresholds.model_validate(known(Thresholds, document["thresholds"])),
        Jury.model_validate(known(Jury, document["jury"])),
        {
            c.slug: c.conditions.model_dump(mode="json", exclude_none=True)
            for c in candidates
            if c.conditions is not None
        },
    )


def _conditions(out: Findings, path: str, volume: Volume, bundle: BundleData) -> None:
    """The bundle ran under its own candidate's conditions."""
    ref: CandidateRef | None = volume.candidate(bundle.slug)
    if ref is not None and ref.conditions is not None:
        expected, said = volume.protocol_for(ref), f"{ref.display_name}'s declared conditions say"
        fix = "re-run under the candidate's declared conditions"
    else:
        expected, said = volume.protocol, "the protocol says"
        fix = "re-run under the frozen protocol"
    for diff in _differences(bundle.manifest.conditions, expected, said):
        out.add("conditions", path, None, f"conditions.{diff}", fix)


def _dates(out: Findings, path: str, volume: Volume, bundle: BundleData) -> list[str]:
    """Run dates inside the window and after the pre-registration; the notes for any
    date the bundle does not record (unknown, so neither inside nor outside)."""
    run = bundle.manifest.run
    started, finished = run.started, run.finished
    window = volume.window
    notes = []
    if not run.known:
        missing = " and ".join(
            name for name, day in (("started", started), ("finished", finished)) if day is None
        )
        notes.append(
            f"{path}: run dates unknown ({missing}); whether the run was inside the window "
            f"{window.start}..{window.end} and after the pre-registration cannot be checked"
        )
    if started is not None and finished is not None and started > finished:
        out.add("run-dates", path, None, f"run started {started} after it finished {finished}")
    if (started is not None and started < window.start) or (
        finished is not None and finished > window.end
    ):
        out.add(
            "window",
            path,
            None,
            f"run {run.shown()} is outside the volume's window {window.start}..{window.end}",
        )
    registered = volume.preregistration.registered
    if started is not None and started <= registered:
        out.add(
            "prereg-date",
            path,
            None,
            f"run started {started}, not after the pre-registration ({registered})",
        )
    return notes


def check(ctx: GateContext) -> GateResult:
    """Run the config gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    notes: list[str] = []
    for bundle in ctx.bundles():
        path = ctx.shown(bundle, "bundle.json")
        _conditions(out, path, volume, bundle)
        notes.extend(_dates(out, path, volume, bundle))
    current = volume_preregistration_sha256(volume)
    if current != volume.preregistration.sha256:
        out.add(
            "prereg-hash",
            ctx.volume_file,
            None,
            "preregistration.sha256 does not match the protocol, thresholds, jury, "
            f"conditions and scoring (they hash to {current[:12]}…)",
            "restore the pre-registered values; a change needs a new volume",
        )
    notes.extend(check_anchor_probes(ctx, out))
    _history(ctx, out)
    return out.result(notes=notes)
