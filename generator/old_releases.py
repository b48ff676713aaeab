"""Releases written before a volume's bank inputs were the bank as of its version.

Since the cut change (``generator.store.cut``) a release records each bank file
(``bank/bank.yaml``, the item files) as the bank *as of the volume's version*, so later
versions leave it as it was and the bank can grow. Every release the current code writes
records cuts: ``release.volume_inputs`` takes them from ``store.cut.bank_cut``, which
gives none only for a bank version the manifest does not declare, and preflight refuses
such a volume before anything is written. The committed example's releases record cuts.

A release written before that change recorded each bank file whole. ``store.cut.kept``
still accepts it while the file is unchanged, but once the bank grows the file is no
longer what the release pins, and nothing in the release can show that only later
versions were added. Such a volume is refused, as any changed input is, but with what
happened and what to do: when the root is a git checkout, the file as of the release's
``inputs_commit`` proves the release recorded it whole (its SHA-256 is the recorded one)
and whether the volume's bank as of its version is still the same.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from generator import git
from generator.errors import Problem
from generator.hashing import sha256_bytes
from generator.models.release import Release
from generator.store.cut import CUT_FILES, cut_at, cut_digests, volume_bank_version
from generator.store.paths import Layout

RULE = "old-release-format"


def refusals(layout: Layout, release: Release, changed: Iterable[str]) -> list[Problem]:
    """One problem per changed input of a published ``release``: the old-format case
    (a bank file recorded whole, the bank only grown since) named as such, every other
    change as ``immutable-archive``."""
    grown = _only_grown(layout, release)
    out = []
    for rel in changed:
        if rel in grown:
            out.append(_old_format(release, rel))
        else:
            out.append(Problem(rel, None, "immutable-archive", "changed since publication"))
    return out


def _only_grown(layout: Layout, release: Release) -> set[str]:
    """The bank files ``release`` recorded whole (proved from git) whose cut at the
    volume's version is the same then and now (empty without git or a recorded commit)."""
    commit = release.inputs_commit
    if commit is None:
        return set()
    rel = f"{layout.rel(layout.volume_file(release.volume))}"
    then: dict[str, bytes] = {}
    for name in (*CUT_FILES, rel):
        data = git.file_at(layout.root, commit, name)
        if data is not None:
            then[name] = data
    whole = {n for n in CUT_FILES if n in then and sha256_bytes(then[n]) == release.inputs.get(n)}
    if not whole or rel not in then:
        return set()
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for name, data in then.items():
            path = Path(folder) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            paths[name] = path
        version = volume_bank_version(paths[rel], rel)
        before = cut_digests({n: p for n, p in paths.items() if n in CUT_FILES}, version)
    now = cut_at(layout, release.volume, version)
    return {n for n in whole if before.get(n) is not None and before.get(n) == now.get(n)}


def _old_format(release: Release, rel: str) -> Problem:
    commit = (release.inputs_commit or "")[:12]
    return Problem(
        rel,
        None,
        RULE,
        f"{release.volume}'s release records the whole file as of commit {commit}: it was "
        "written before a volume's bank inputs were the bank as of its version, so it pins "
        "every later version's lines too; the bank as of the volume's version is unchanged, "
        "only grown, but the release cannot show it",
        f"restore {rel} as it was (`git checkout {commit} -- {rel}`) to publish "
        f"{release.volume} again; publish the bank's later versions from a new root: `verify` "
        f"would report {rel} changed to every reader of {release.volume}",
    )
