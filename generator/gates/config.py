"""config: every run used the volume's frozen protocol, inside its window, under
thresholds fixed before any result.

Pre-registration mechanism: ``volume.yaml`` carries ``preregistration.sha256``, the hash of
the canonical JSON of its protocol, thresholds and jury, and the date it was fixed. The
gate (1) recomputes the hash; (2) requires the registration date to precede every run;
(3) in a git checkout, reads ``volume.yaml`` as it stood in the first commit that added
any of the volume's bundle files and requires the same protocol, thresholds and jury
there (fields the format has since retired are ignored; a qualification probe set
declared only since is a warning, as nothing shows it predates the results) — so
thresholds cannot be tuned after results were committed without the history showing it.
Outside git, (3) is a warning (``--strict`` makes it fail).
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from generator import git
from generator.gates import labels
from generator.gates.base import Findings, GateContext, GateResult
from generator.models.volume import Jury, Protocol, Thresholds
from generator.prereg import volume_preregistration_sha256

NAME = "config"


def _differences(actual: Protocol, frozen: Protocol) -> list[str]:
    a, f = actual.model_dump(mode="json"), frozen.model_dump(mode="json")
    return [
        f"{key} is {a[key]!r} but the protocol says {f[key]!r}" for key in f if a.get(key) != f[key]
    ]


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


def _unchanged_since(
    ctx: GateContext, out: Findings, first: str, then: tuple[Protocol, Thresholds, Jury]
) -> None:
    """Protocol, thresholds and jury are as at ``first``; a later qualification set warns."""
    now = ctx.data.volume
    if then[2].qualification is None and now.jury.qualification is not None:
        # A declaration the format added later (schema version 2) is not a change of a
        # registered value, but nothing shows it predates the results: say so.
        out.add(
            "prereg-added",
            ctx.volume_file,
            None,
            "jury.qualification was declared after the results were committed "
            f"(absent at commit {first[:12]}); nothing shows the probe set predates them",
            "declare the qualification probe set before any run in the next volume",
            severity="warning",
        )
        then = (
            then[0],
            then[1],
            then[2].model_copy(update={"qualification": now.jury.qualification}),
        )
    if then != (now.protocol, now.thresholds, now.jury):
        out.add(
            "prereg-changed",
            ctx.volume_file,
            None,
            f"protocol, thresholds or jury changed after the results were committed "
            f"(compare with commit {first[:12]})",
            "restore the pre-registered values; a change needs a new volume",
        )


def _decision_rules(document: Any) -> tuple[Protocol, Thresholds, Jury]:
    """Protocol, thresholds and jury of a historical ``volume.yaml``.

    Fields the current format no longer has are dropped first: a retired field cannot
    influence any decision probepress makes today, and refusing the old file would make
    every format change look like a broken pre-registration.
    """

    def known(model: type[BaseModel], section: Any) -> dict[str, Any]:
        return {k: v for k, v in dict(section).items() if k in model.model_fields}

    return (
        Protocol.model_validate(known(Protocol, document["protocol"])),
        Thresholds.model_validate(known(Thresholds, document["thresholds"])),
        Jury.model_validate(known(Jury, document["jury"])),
    )


def check(ctx: GateContext) -> GateResult:
    """Run the config gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    for bundle in ctx.bundles():
        path = ctx.shown(bundle, "bundle.json")
        for diff in _differences(bundle.manifest.conditions, volume.protocol):
            out.add(
                "conditions", path, None, f"conditions.{diff}", "re-run under the frozen protocol"
            )
        run = bundle.manifest.run
        if run.started > run.finished:
            out.add(
                "run-dates",
                path,
                None,
                f"run started {run.started} after it finished {run.finished}",
            )
        if run.started < volume.window.start or run.finished > volume.window.end:
            out.add(
                "window",
                path,
                None,
                f"run {run.started}..{run.finished} is outside the volume's window "
                f"{volume.window.start}..{volume.window.end}",
            )
        if run.started <= volume.preregistration.registered:
            out.add(
                "prereg-date",
                path,
                None,
                f"run started {run.started}, not after the pre-registration "
                f"({volume.preregistration.registered})",
            )
    current = volume_preregistration_sha256(volume)
    if current != volume.preregistration.sha256:
        out.add(
            "prereg-hash",
            ctx.volume_file,
            None,
            "preregistration.sha256 does not match the protocol, thresholds, jury and scoring "
            f"(they hash to {current[:12]}…)",
            "restore the pre-registered values; a change needs a new volume",
        )
    _history(ctx, out)
    return out.result()
