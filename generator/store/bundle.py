"""Read one scan bundle in a single streaming pass into compact rows.

Every bundle file is read once: its bytes are hashed (and compared with the manifest)
while its lines are validated. Draws are kept as small tuples, never as model objects,
and the values that repeat across rows and bundles (draw keys, line numbers, status
tuples, grader, judge and label names, and whole rows) are kept once per volume
(``Memo.pool``), so a bundle's lists hold pointers to shared rows: at 600 candidates ×
103 items × 10 draws the rows cost about 40 bytes a draw with its verdict and panel
votes (360 with a tuple a row).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from generator.commitments import response_commitment
from generator.models.bank import NumberCheck, PatternCheck
from generator.models.bundle import BUNDLE_FILES, BundleManifest, FileEntry
from generator.models.records import (
    LOST_STATUSES,
    Draw,
    PanelVote,
    PrivateResponse,
    Qualification,
    Verdict,
)
from generator.rubric import marks_of
from generator.store import rows
from generator.store.bank import Bank
from generator.store.jsonl import (
    Bounds,
    Problems,
    StreamResult,
    check_regular_file,
    iter_jsonl,
    load_document,
)
from generator.store.paths import Layout, file_name_problem
from generator.store.rowtypes import (
    BundleData,
    DrawKey,
    DrawRow,
    PanelRow,
    QualificationRow,
    VerdictRow,
    new_draw,
    new_key,
    new_verdict,
    new_vote,
    record_key,
)
from generator.tier0 import run_check

MANIFEST = "bundle.json"


MEMO_CHARS = 2000
"""Only responses up to this long are remembered, so the memo stays small."""


@dataclass
class Memo:
    """What the bundles of one volume (one bank) share while they are read."""

    tier0: dict[tuple[str, str], bool] = field(default_factory=dict)
    """Tier 0 outcomes by (item, response): a check is a pure function of the two, and
    short responses repeat across draws and candidates."""
    pool: dict[Any, Any] = field(default_factory=dict)
    """One copy of each draw key, line number, status tuple, name and row the bundles
    hold (``rows.Pool``; no booleans, which equal 0 and 1): at 618,000 draws, a row
    object per draw, verdict and vote is 200 MB of mostly equal tuples."""


class PrivateText(NamedTuple):
    """A held-out response from the private store, with where it was read."""

    path: str
    line: int
    text: str


def _private_texts(
    layout: Layout, volume: str, slug: str, bounds: Bounds, problems: Problems
) -> dict[DrawKey, PrivateText] | None:
    path = layout.private_responses(volume, slug)
    if not path.exists():
        return None
    texts: dict[DrawKey, PrivateText] = {}
    shown = str(path)
    for line, rec in iter_jsonl(path, PrivateResponse, shown, problems, bounds):
        if rec.volume != volume or rec.candidate != slug:
            problems.add(shown, line, "private-mismatch", "response belongs to another bundle")
        texts[record_key(rec)] = PrivateText(shown, line, rec.text)
    return texts


def _read_draws(
    bundle: BundleData,
    layout: Layout,
    bank: Bank,
    volume: str,
    bounds: Bounds,
    problems: Problems,
    result: StreamResult,
    memo: Memo,
) -> None:
    shown = bundle.shown(layout, "draws.jsonl")
    private = (
        _private_texts(layout, volume, bundle.slug, bounds, problems) if bank.private else None
    )
    # Per-record work is kept to local names: this loop runs once per draw of the volume.
    heldout = bank.heldout
    checks: dict[str, NumberCheck | PatternCheck | None] = {}
    append = bundle.draws.append
    tier0_memo, pool = memo.tier0, memo.pool
    for line, draw in iter_jsonl(
        bundle.directory / "draws.jsonl", Draw, shown, problems, bounds, result
    ):
        key = rows.shared(pool, (draw.item, draw.half, draw.draw), new_key)
        item = key.item
        text = response = draw.response
        committed = draw.response_commitment
        statuses = tuple([a.status for a in draw.attempts])
        statuses = pool.setdefault(statuses, statuses)
        lost = statuses[-1] in LOST_STATUSES  # Draw.lost, without two property calls
        if item in heldout:
            if response is not None:
                problems.add(
                    shown,
                    line,
                    "heldout-text-in-bundle",
                    f"held-out item {item} carries response text; store only response_commitment",
                )
                text = None
            if private is not None and committed is not None:
                where = _Where(volume, bundle.slug, shown, line)
                text = _private_text(private, bank.keys.get(item), key, committed, where, problems)
        elif committed is not None:
            problems.add(
                shown, line, "public-hash-only", f"public item {item} needs its response text"
            )
        tier0: bool | None = None
        if text is not None and not lost:
            tier0 = tier0_memo.get((item, text))
            if tier0 is None:
                if item not in checks:
                    full = bank.full_item(item)
                    checks[item] = full.check if full is not None else None
                check = checks[item]
                if check is not None:
                    tier0 = run_check(check, text)
                    if len(text) <= MEMO_CHARS:
                        tier0_memo[(item, text)] = tier0
        has_text = response is not None or committed is not None
        row = (pool.setdefault(line, line), key, statuses, lost, has_text, tier0)
        append(rows.shared(pool, row, new_draw))


class _Where(NamedTuple):
    """The draw whose private text is checked: its bundle and its line."""

    volume: str
    slug: str
    shown: str
    line: int


def _private_text(
    private: dict[DrawKey, PrivateText],
    item_key: bytes | None,
    key: DrawKey,
    committed: str,
    where: _Where,
    problems: Problems,
) -> str | None:
    """The held-out response of ``key`` from the private store, when it matches its
    published commitment (``item_key`` None: the item's text did not load, reported)."""
    found = private.get(key)
    if found is None:
        problems.add(
            where.shown,
            where.line,
            "private-missing",
            "held-out response is missing from the private store",
        )
        return None
    if item_key is None:
        return None
    expected = response_commitment(
        item_key, where.volume, where.slug, key.item, key.half, key.draw, found.text
    )
    if expected != committed:
        problems.add(
            found.path,
            found.line,
            "private-commitment",
            f"response to {key.item} {key.half}{key.draw} does not match the "
            f"response_commitment of {where.shown}:{where.line} under the bank secret",
            "restore the private store that was sealed with this bundle",
        )
        return None
    return found.text


def scan_bundle(
    layout: Layout,
    volume: str,
    slug: str,
    bank: Bank,
    bounds: Bounds,
    problems: Problems,
    memo: Memo | None = None,
    bank_key: str | None = None,
    remember: list[tuple[str, BundleData]] | None = None,
) -> BundleData | None:
    """Validate and summarise ``bundles/<volume>/<slug>/``; report every problem.

    ``memo`` may be shared by the bundles of one volume (same bank). With
    ``bank_key`` (``rows.bank_key``) and the result cache on, a bundle whose exact bytes
    read without problems before is restored from the cache (``generator.store.rows``);
    one read in full without problems is added to ``remember`` with its entry's key (its
    rows dumped and stored by the caller, ``load_volume``, only once the whole volume
    read without problems: never all dumped at once beside the rows they are made of).
    """
    memo = Memo() if memo is None else memo
    reported = len(problems.items)
    store = layout.cache
    found = (
        rows.bundle_key(layout, volume, slug, bank_key, bool(bank.private), bounds)
        if store is not None and bank_key is not None
        else None
    )
    raw = store.get(rows.NAMESPACE, found[0]) if store is not None and found else None
    types = (DrawKey, DrawRow, VerdictRow, PanelRow)
    restored = rows.restore(raw, *types, pool=memo.pool) if raw else None
    bundle = _scan(layout, volume, slug, bank, bounds, problems, memo, restored)
    if (
        remember is not None
        and found is not None
        and restored is None
        and bundle is not None
        and len(problems.items) == reported
        and all(found[1].get(n) == d for n, d in bundle.file_sha256.items())
    ):
        remember.append((found[0], bundle))
    return bundle


def _scan(
    layout: Layout,
    volume: str,
    slug: str,
    bank: Bank,
    bounds: Bounds,
    problems: Problems,
    memo: Memo,
    restored: rows.Restored | None,
) -> BundleData | None:
    """``scan_bundle`` proper; ``restored``: rows and hashes of draws, verdicts and panel
    from the cache, used instead of reading those three files."""
    directory = layout.bundle_dir(volume, slug)
    if directory.is_symlink() or not directory.is_dir():
        what = "is a symbolic link" if directory.is_symlink() else "is missing"
        problems.add(layout.rel(directory), None, "bundle-missing", f"bundle directory {what}")
        return None
    shown_manifest = layout.rel(directory / MANIFEST)
    manifest = load_document(
        directory / MANIFEST, BundleManifest, shown_manifest, problems, bounds.max_yaml_bytes
    )
    if manifest is None:
        return None
    bundle = BundleData(slug=slug, directory=directory, manifest=manifest)
    if restored is not None:
        bundle.draws, bundle.verdicts, bundle.panel = restored[:3]
    _check_listing(layout, bundle, shown_manifest, problems)
    for name, expected in sorted(manifest.files.items()):
        path = directory / name
        if not _listed_name_usable(name, path, directory, shown_manifest, problems):
            continue
        shown = layout.rel(path)
        if restored is not None and name in rows.FILES:  # rows already in the bundle
            size = path.stat().st_size
            result = StreamResult(sha256=restored.files[name], size=size, complete=True)
        else:
            result = _read_file(
                bundle, name, path, shown, layout, bank, volume, bounds, problems, memo
            )
        if result.complete:
            bundle.file_sha256[name] = result.sha256
            _check_manifest_hash(shown, result, expected, problems)
    return bundle


def _check_listing(
    layout: Layout, bundle: BundleData, shown_manifest: str, problems: Problems
) -> None:
    """Report bundle files missing from the manifest's ``files`` and files it does not list."""
    listed = bundle.manifest.files
    for name in BUNDLE_FILES:
        if name not in listed:
            problems.add(shown_manifest, None, "manifest-files", f"files does not list {name}")
    for entry in sorted(bundle.directory.iterdir()):
        if entry.name != MANIFEST and entry.name not in listed:
            problems.add(
                layout.rel(entry), None, "unexpected-file", "file is not listed in bundle.json"
            )


def _listed_name_usable(
    name: str, path: Path, directory: Path, shown_manifest: str, problems: Problems
) -> bool:
    """Whether ``name`` in the manifest's ``files`` (at ``path``) is a file in ``directory``."""
    if "/" in name or "\\" in name or name.startswith(".") or path.parent != directory:
        problems.add(
            shown_manifest,
            None,
            "path-escape",
            f"files lists {name!r}, a path outside the bundle directory",
            "bundle files sit directly in the bundle directory",
        )
        return False
    unusable = file_name_problem(name)
    if unusable is not None:
        problems.add(shown_manifest, None, "bad-file-name", f"files lists {name!r}: {unusable}")
        return False
    return True


def _read_file(
    bundle: BundleData,
    name: str,
    path: Path,
    shown: str,
    layout: Layout,
    bank: Bank,
    volume: str,
    bounds: Bounds,
    problems: Problems,
    memo: Memo,
) -> StreamResult:
    """Read one listed file into the bundle's rows; what the stream saw (hash, size)."""
    result = StreamResult()
    pool = memo.pool
    share = pool.setdefault
    if name == "draws.jsonl":
        _read_draws(bundle, layout, bank, volume, bounds, problems, result, memo)
    elif name == "verdicts.jsonl":
        verdicts = bundle.verdicts
        for line, v in iter_jsonl(path, Verdict, shown, problems, bounds, result):
            key = rows.shared(pool, (v.item, v.half, v.draw), new_key)
            marks = None if v.rubric is None else marks_of(v.rubric)
            row = (
                share(line, line),
                key,
                v.tier,
                share(v.grader, v.grader),
                share(v.verdict, v.verdict),
                v.borderline,
                bool(v.evidence),
                share(v.label, v.label),
                marks,
            )
            verdicts.append(rows.shared(pool, row, new_verdict))
    elif name == "panel.jsonl":
        panel = bundle.panel
        for line, p in iter_jsonl(path, PanelVote, shown, problems, bounds, result):
            key = rows.shared(pool, (p.item, p.half, p.draw), new_key)
            names = tuple(share(x, x) for x in (p.judge, p.family, p.vote, p.why, p.label))
            panel.append(rows.shared(pool, (share(line, line), key, *names), new_vote))
    elif name == "qualification.jsonl":
        for line, q in iter_jsonl(path, Qualification, shown, problems, bounds, result):
            bundle.qualification.append(QualificationRow(line, q))
    elif check_regular_file(path, shown, problems, bounds.max_file_bytes):
        problems.add(shown, None, "unexpected-file", f"{name} is not a bundle file")
    return result


def _check_manifest_hash(
    shown: str, result: StreamResult, expected: FileEntry, problems: Problems
) -> None:
    """Report a file whose SHA-256 or size differs from its ``bundle.json`` entry."""
    if result.sha256 != expected.sha256 or result.size != expected.size:
        problems.add(
            shown,
            None,
            "manifest-hash",
            f"SHA-256/size do not match bundle.json (found {result.sha256[:12]}…, "
            f"{result.size} bytes; manifest says {expected.sha256[:12]}…, "
            f"{expected.size} bytes)",
            "the file changed after the run was sealed; restore it from the runner's output",
        )
