"""Offline verification for downstream users (``probepress verify``).

Three separate questions, answered separately (DESIGN §10):

- **integrity**: every published file is what the records say — the site manifest
  (every file under ``figures/``, ``site_src/``, ``site/``), each volume's release.json,
  the fingerprint registry, ``SHA256SUMS``; nothing missing, extra, unreadable or
  downgraded; a deleted ledger is a finding, never silence;
- **recomputed**: every published figure recomputes from the public bundles and bank;
- **authenticated**: the manifest and every release are signed by a key the *reader*
  trusts (``--trusted-key``, ``--trust-policy``); None when no trust was given. A key
  shipped inside the site is only reported.

Everything is read in place and bounded (``generator.inventory``): non-regular files are
findings and are never opened. This module depends on the release format
(``generator.release``), trust (``generator.trust``) and the figures computation only.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from generator import figures
from generator.causes import Because, figures_by_source
from generator.errors import InputError, ProbepressError, Problem, root_causes_first
from generator.forked import ChildDied, forked
from generator.models.figures import FiguresRegistry
from generator.progress import Progress, expect, silent
from generator.store import VolumeData, load_volume
from generator.store.paths import BANK, BUNDLES, FIGURES_REGISTRY, PUBLIC_KEY
from generator.trust import Trust, pem_fingerprint
from generator.verify_canary import check_canary
from generator.verify_checks import (
    PUBLISHER_FIX,
    READER_FIX,
    Kind,
    View,
    check_publication,
    open_view,
)
from generator.verify_derived import check_derived
from generator.words import counted

STEPS = 6
"""The steps ``verify`` announces: inventory, records, SHA256SUMS, site manifest,
leaderboards and archives, figures."""
CHECKED = {
    "frozen_files": "frozen file",
    "releases": "release",
    "downloads": "download",
    "manifest_files": "manifest file",
    "derived_downloads": "derived download",
    "figures": "figure",
}
"""What ``checked`` counts (its ``--json`` keys) and the noun a person reads for each."""


@dataclass(frozen=True)
class VerifyReport:
    """Everything checked, what failed, and what is only reported."""

    checked: dict[str, int]
    findings: tuple[Problem, ...]
    """Each with the question it fails as its rule."""
    notes: tuple[str, ...]
    trust_given: bool

    def _passes(self, kind: Kind) -> bool:
        return not any(f.rule == kind for f in self.findings)

    @property
    def integrity(self) -> bool:
        """No file is missing, extra, unreadable or different from its records."""
        return self._passes("integrity")

    @property
    def recomputed(self) -> bool:
        """Every published figure recomputes from its sources."""
        return self._passes("recomputed")

    @property
    def authenticated(self) -> bool | None:
        """Signed by trusted keys and intact; None when no trust was given."""
        if not self.trust_given:
            return None
        return not self.findings

    @property
    def exit_code(self) -> int:
        """0 authenticated; 1 a finding; 3 intact and recomputed, authenticity unchecked."""
        if self.findings:
            return 1
        return 0 if self.trust_given else 3

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form (the three answers kept apart)."""
        return {
            "integrity": self.integrity,
            "recomputed": self.recomputed,
            "authenticated": self.authenticated,
            "checked": self.checked,
            "findings": [
                {
                    "what": f.path,
                    "line": f.line,
                    "message": f.message,
                    "kind": f.rule,
                    "fix": f.fix,
                    "cause": f.cause,
                    "affected": list(f.affected),
                }
                for f in root_causes_first(self.findings)
            ],
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """One line for people."""
        counts = ", ".join(
            counted(n, CHECKED.get(k, k.replace("_", " "))) for k, n in self.checked.items()
        )
        if self.findings:
            return f"not verified: {counted(len(self.findings), 'finding')} ({counts})"
        if self.trust_given:
            return f"verified: intact, recomputed and signed by a trusted key ({counts})"
        return (
            f"intact and recomputed; authenticity was NOT checked: no --trusted-key or "
            f"--trust-policy given, and a key shipped inside the site is never trusted ({counts})"
        )


def verify(
    path: Path, progress: Progress | None = None, *, trust: Trust | None = None
) -> VerifyReport:
    """Verify ``path``: a publication root, or a built site with ``downloads/``.

    The leaderboards, archives and canary are checked in a forked child while the
    figures are recomputed here (``generator.forked``); the child's findings are merged
    in before the recomputation's, in the order the checks ran.

    Args:
        path: The root or site.
        progress: Called with a label before each step.
        trust: The reader's trusted keys and policy; None: authenticity is not checked.
    """
    step = progress or silent
    expect(step, STEPS)
    step("inventory")
    view = open_view(path)
    published = check_publication(view, trust, step)
    registry = _registry(view)
    step("leaderboards and archives")
    beside = partial(_derived, view, published, registry)
    with forked(beside, "the leaderboard, archive and canary checks") as derived:
        step("figures")
        blocked = _blocked(view)
        recomputed = [] if blocked else _recompute(view, published, registry)
        found = derived.result()
    view.findings.extend(found.findings)
    view.notes.extend(found.notes)
    view.checked.update(found.checked)
    _report_recomputed(view, published, blocked, registry, recomputed)
    _report_shipped_key(view)
    return VerifyReport(view.checked, tuple(view.findings), tuple(view.notes), trust is not None)


@dataclass(frozen=True)
class Found:
    """What checks run in the child add to the view: findings and notes after the
    view's own, and every count (``checked``)."""

    findings: list[Problem]
    notes: list[str]
    checked: dict[str, int]


def _derived(view: View, published: list[str], registry: FiguresRegistry | None) -> Found:
    """(In the child) the downloads rebuilt from the records, then the bank's canary."""
    findings, notes = len(view.findings), len(view.notes)
    check_derived(view, published, registry)
    check_canary(view)  # the bank's promise, not authenticity (see verify_canary)
    return Found(view.findings[findings:], view.notes[notes:], view.checked)


def _registry(view: View) -> FiguresRegistry | None:
    """The figures registry, read once for the leaderboards and the recomputation (None:
    not a readable file, already a finding, or it does not read: the recomputation reads
    it again and names why)."""
    if view.unreadable(FIGURES_REGISTRY):
        return None
    try:
        return figures.load_registry(view.layout)
    except ProbepressError:
        return None


def _blocked(view: View) -> str | None:
    """An input of the recomputation that cannot be read safely (None: none)."""
    inputs = (f"{BANK}/", f"{BUNDLES}/", FIGURES_REGISTRY)
    blocked = [
        o.path for o in view.inventory.odd if any(o.path.startswith(view.shown(p)) for p in inputs)
    ]
    return blocked[0] if blocked else None


@dataclass(frozen=True)
class Recomputed:
    """One published volume recomputed, not yet reported."""

    volume: str
    found: list[Problem]
    """What ``figures.verify`` found."""
    inputs: list[Problem]
    """Its inputs' own problems, when it could not read them."""
    error: str | None = None
    """Why it could not be recomputed at all."""


def _recompute(
    view: View, published: list[str], registry: FiguresRegistry | None
) -> list[Recomputed]:
    """Recompute every published volume's figures; the view is not changed (its findings
    are the child's to add to until both are done)."""
    out = []
    loaded: dict[str, VolumeData] = {}  # each volume read once: the next one's drift reads it
    for volume in published:
        unreadable: list[Problem] = []
        try:
            data = _read(view, volume)
            # The volume's rows live until it is recomputed; frozen, the cyclic garbage
            # collector stops walking them on every full collection (as ``check`` does).
            gc.freeze()
            try:
                found = figures.verify(
                    view.layout,
                    volume,
                    data=data,
                    loaded=loaded,
                    inputs=unreadable,
                    registry=registry,
                    beside=forked,
                )
            finally:
                gc.unfreeze()
        except ChildDied:
            raise  # the machine stopped a part of it, not the site: nothing is verified
        except ProbepressError as exc:
            out.append(Recomputed(volume, [], [], f"cannot recompute: {exc.render(3)}"))
            continue
        if data is not None:
            loaded[volume] = data
        out.append(Recomputed(volume, found, unreadable))
    return out


def _report_recomputed(
    view: View,
    published: list[str],
    blocked: str | None,
    registry: FiguresRegistry | None,
    recomputed: list[Recomputed],
) -> None:
    """Every volume's recomputation as findings, after every other check's."""
    if blocked is not None:
        for volume in published:
            view.add(volume, f"not recomputed: {blocked} cannot be read safely", "recomputed")
        return
    if registry is not None and view.readable(FIGURES_REGISTRY):
        view.checked["figures"] = len(registry.figures)
    for done in recomputed:
        if done.error is not None:
            view.add(done.volume, done.error, "recomputed")
        else:
            _report_recomputation(view, done.found, done.inputs)


def _read(view: View, volume: str) -> VolumeData | None:
    """The volume's public view as the recomputation reads it; None when it cannot be
    read (the recomputation then reads it itself and names every problem)."""
    try:
        return load_volume(view.layout, volume, private=False, beside=forked)
    except InputError:
        return None


def _report_recomputation(view: View, found: list[Problem], inputs: list[Problem]) -> None:
    """Root causes first: the inputs' own problems (as the view names their files, with a
    reader's fix), then one finding per changed source for the figures it breaks."""
    for problem in inputs:
        place = view.place(problem.path)
        if not any(f.path == place and f.message == problem.message for f in view.findings):
            view.add(place, problem.message, fix=READER_FIX, line=problem.line)

    def because(source: str) -> Because:
        place = view.place(source)
        if any(f.path == place and f.rule == "integrity" for f in view.findings):
            return Because("changed after it was published (see above)", READER_FIX)
        return Because("differs from the file the figures were computed from", PUBLISHER_FIX)

    grouped = figures_by_source(found, because, view.place)
    changed = {p.cause for p in grouped if p.affected}
    for problem in grouped:
        if problem.rule == "not-recomputed" and problem.cause is not None:
            if view.place(problem.cause) in changed:
                continue  # the changed file's finding already says why
            place = view.place(problem.cause)
            message = f"figures not recomputed: {place} is not intact (see above)"
            view.add(problem.path, message, "recomputed", cause=place)
            continue
        view.findings.append(replace(problem, rule="recomputed", fix=problem.fix or PUBLISHER_FIX))


def _report_shipped_key(view: View) -> None:
    """Name a key the site ships; it is never trusted (it could have been swapped)."""
    rel = PUBLIC_KEY
    if not view.readable(rel):
        return
    try:
        found = pem_fingerprint((view.base / view.shown(rel)).read_bytes(), view.shown(rel))
    except ProbepressError as exc:
        view.notes.append(f"{view.shown(rel)}: {exc}")
        return
    view.notes.append(
        f"{view.shown(rel)}: the site ships key {found}; reported only, never trusted "
        "(pin a key you obtained elsewhere with --trusted-key)"
    )
