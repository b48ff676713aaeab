"""holdout: no held-out text reaches anything public, and published downloads never change.

Scans every file under the publication root (tracked inputs and every output that
exists: frozen HTML, PDF text layers, JSONL downloads, figures, the built site), except
the private store, version-control and tool caches, for held-out prompt and response
text — whole or as a long shared run (``generator.leaks``, linear in the bytes scanned).
Tool caches and ``*.egg-info`` are skipped only outside ``site_src/`` and ``site/``:
MkDocs publishes everything under its docs folder. A symbolic link, FIFO, socket or
device, or a file over the scan's size bound, is a finding (it is never read). Public
texts are not reported as leaks (they are public anyway), so a public item whose text
repeats a held-out item's (whole, or a run of the scanner's window) is refused here.
Also: held-out verdicts carry no evidence quote; bundles with held-out draws went only
through endpoints declared no-training; each public bank JSONL download holds exactly the
public items of its version; earlier published downloads are byte-unchanged against the
fingerprint registry. A bank with no held-out items is legitimate: there is nothing to
leak, the gate says so in a note, and the download checks still run. Whole bank: ``uncut``.

Two parts: ``check`` reads the inputs (endpoints, evidence, public items that repeat
held-out ones); ``check_outputs`` reads the finished tree (the scan and the downloads),
so ``publish`` runs it once, after the site is built.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path

from generator import bank_downloads, cache, git
from generator.bank_downloads import public_jsonl, public_jsonl_name
from generator.errors import Problem
from generator.gates.base import Findings, GateContext, GateResult
from generator.gates.locate import line_of
from generator.hashing import drift, on_disk, sha256_file
from generator.jury import jury_endpoint_problems
from generator.leaks import (
    Leak,
    LeakConfig,
    LeakIndex,
    Secret,
    Unscannable,
    scan_paths,
)
from generator.leaks.extract import Format
from generator.leaks.public import PublicTexts
from generator.leaks.republish import copied
from generator.leaks.ucd import VERSIONS as UNICODE_DATA
from generator.models.bank import BankItem, PatternCheck
from generator.models.records import PrivateResponse
from generator.store.jsonl import Bounds, Problems, iter_jsonl
from generator.store.paths import SITE, SITE_SRC, TOOL_DIRS
from generator.words import counted

NAME = "holdout"
SKIP_DIRS = TOOL_DIRS
"""Tool folders skipped outside the published trees (never under ``PUBLISHED``)."""
PUBLISHED = frozenset({SITE_SRC, SITE})
"""Top-level folders published as they are (MkDocs copies every file of its docs folder)."""
VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def secrets(ctx: GateContext, problems: Problems) -> Iterator[Secret]:
    """Every held-out text in the private store: item prompts and criteria, responses.

    An unreadable private response is reported in ``problems``: a secret that cannot be
    read cannot be looked for, so the gate must not pass quietly.
    """
    for item in sorted(ctx.data.bank.uncut().private.values(), key=lambda i: i.id):
        yield Secret(f"item:{item.id}", "prompt", item.prompt_text())
        yield Secret(f"item:{item.id}/criterion", "prompt", item.criterion_text())
        for n, text in enumerate(item.reference_texts()):
            yield Secret(f"item:{item.id}/reference/{n}", "prompt", text)
    for path in _response_files(ctx):
        for _, rec in iter_jsonl(path, PrivateResponse, str(path), problems, Bounds()):
            key = f"draw:{rec.volume}/{rec.candidate}/{rec.item}/{rec.half}/{rec.draw}"
            yield Secret(key, "response", rec.text)


def _response_files(ctx: GateContext) -> list[Path]:
    responses = ctx.layout.private / "responses"
    return sorted(responses.glob("*/*.jsonl")) if responses.is_dir() else []


def ignored(ctx: GateContext) -> PublicTexts:
    """Public texts whose shared windows are never reported (see ``generator.leaks``):
    every public item's prompt, pass criterion and check patterns, and the responses
    and evidence quotes of public items in the volume's bundles (read when used)."""
    public = sorted(ctx.data.bank.uncut().public.values(), key=lambda i: i.id)
    return PublicTexts(
        (text for item in public for text in _public_texts(item)),
        (b.directory / name for b in ctx.bundles() for name in ("draws.jsonl", "verdicts.jsonl")),
        (item.id for item in public),
    )


def _public_texts(item: BankItem) -> list[str]:
    """A public item's own texts: prompt, pass criterion, check patterns."""
    check = item.check
    patterns = [*check.required, *check.forbidden] if isinstance(check, PatternCheck) else []
    return [item.prompt_text(), item.criterion_text(), *patterns]


def secrets_key(ctx: GateContext, config: LeakConfig) -> str:
    """Cache key of everything the leak index is built from: the held-out items' texts,
    the bytes of every private response file, the ignored public texts, the scanner's
    settings, and the Unicode data normalisation depends on (NFKC and casefold change
    with Python's ``unicodedata``; skeletons and ignorables with ICU's) — the code is
    part of every key."""
    private = sorted(ctx.data.bank.uncut().private.values(), key=lambda i: i.id)
    return cache.key(
        "leak-secrets",
        repr(astuple(config)),
        f"python={sys.version} unidata={unicodedata.unidata_version} {UNICODE_DATA}",
        ("\0".join([i.id, *i.heldout_texts()]) for i in private),
        (
            f"{p.relative_to(ctx.layout.private).as_posix()}={sha256_file(p)}"
            for p in _response_files(ctx)
        ),
        ignored(ctx).fingerprint(),
    )


class _CleanMemo:
    """Files scanned clean against these secrets: known ones are read from the result
    cache; new ones are collected for the caller to store (the gate never writes)."""

    def __init__(self, memo: cache.Reader, secrets: str) -> None:
        self.memo = memo
        self.secrets = secrets
        self.learned: list[cache.Entry] = []
        self.trusted = True
        """False once the secrets could not all be read: nothing is remembered then."""

    def _key(self, digest: str, fmt: Format) -> str:
        return cache.key(self.secrets, digest, fmt)

    def known(self, digest: str, fmt: Format) -> bool:
        return self.memo.has("leak-clean", self._key(digest, fmt))

    def remember(self, digest: str, fmt: Format) -> None:
        self.learned.append(cache.Entry("leak-clean", self._key(digest, fmt)))

    def entries(self) -> list[cache.Entry]:
        """What to store: nothing unless every secret was read."""
        return self.learned if self.trusted else []


def public_files(ctx: GateContext) -> Iterator[Path]:
    """Every entry under the root that is not a directory, in sorted order: the private
    store and version control excluded, tool caches excluded outside ``PUBLISHED``
    unless git tracks files in them (those are yielded after the rest). Links to
    directories are yielded, not followed (the scan reports them)."""
    root, private = ctx.layout.root, ctx.layout.private
    skipped: list[str] = []
    for current, dirs, files in os.walk(root):
        here = Path(current)
        published = here != root and here.relative_to(root).parts[0] in PUBLISHED
        keep: list[str] = []
        for name in dirs:
            tool = not published and (name in SKIP_DIRS or name.endswith(".egg-info"))
            if tool and here / name != private:
                skipped.append((here / name).relative_to(root).as_posix())
            if here / name == private or name in VCS_DIRS or tool:
                continue
            if (here / name).is_symlink():
                files.append(name)
            else:
                keep.append(name)
        dirs[:] = sorted(keep)
        for name in sorted(files):
            yield here / name
    yield from _tracked(root, skipped)


def _tracked(root: Path, folders: list[str]) -> Iterator[Path]:
    """Files git tracks inside skipped tool folders: tracked means published."""
    if not folders:
        return
    listed = git.output(root, "ls-files", "-z", "--", *folders) or ""
    for name in sorted(filter(None, listed.split("\0"))):
        yield root / name


def _line_of(ctx: GateContext) -> dict[str, int]:
    """The line of each public item in the public bank file."""
    lines: dict[str, int] = {}
    path = ctx.layout.public_items
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, text in enumerate(handle, start=1):
            try:
                record = json.loads(text)
            except ValueError:
                continue  # the bank reader reports it
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                lines.setdefault(record["id"], number)
    return lines


def _republished(ctx: GateContext, config: LeakConfig, out: Findings) -> None:
    """Refuse public items that repeat a held-out item's text: the scan ignores public
    texts, so such an item would carry the held-out text everywhere unreported. Text
    that two public items share is not a copy (``generator.leaks.republish``)."""
    bank = ctx.data.bank.uncut()
    held = [
        Secret(f"item:{item.id}", "prompt", text)
        for item in sorted(bank.private.values(), key=lambda i: i.id)
        for text in (item.prompt_text(), item.criterion_text())
    ]
    public = sorted(bank.public.values(), key=lambda i: i.id)
    shown = ctx.layout.rel(ctx.layout.public_items)
    lines = _line_of(ctx) if bank.public and ctx.layout.public_items.is_file() else {}
    texts = [f"{i.prompt_text()}\n\n{i.criterion_text()}" for i in public]
    for item, leaks in zip(public, copied(held, texts, config), strict=True):
        found: dict[str, Leak] = {}
        for leak in leaks:
            best = found.get(leak.secret_key)
            if best is None or leak.tokens > best.tokens:
                found[leak.secret_key] = leak
        for key, leak in sorted(found.items()):
            extent = "its whole text" if leak.whole else f"{leak.tokens} consecutive words"
            out.add(
                "heldout-republished",
                shown,
                lines.get(item.id),
                f"public item {item.id} repeats held-out item {key.removeprefix('item:')} "
                f"({extent}); public texts are not scanned for, so it would publish it",
                "remove or reword the public item; held-out texts are never made public",
            )


def _downloads(ctx: GateContext, out: Findings) -> None:
    bank = ctx.data.bank.uncut()
    folder = ctx.layout.downloads_dir
    for version in bank.manifest.version_ids():
        path = folder / public_jsonl_name(version)
        if path.is_file() and path.read_bytes() != public_jsonl(bank, version):
            out.add(
                "download-content",
                ctx.layout.rel(path),
                None,
                f"does not hold exactly the public items of bank {version}",
                "regenerate the downloads; never edit them by hand",
            )
    out.extend(bank_downloads.ledger_problems(ctx.layout))  # published ledger lines
    for found in drift(bank_downloads.registered(ctx.layout).items(), on_disk(ctx.layout.root)):
        what = "is missing" if found.change == "missing" else "changed after it was published"
        out.add(
            "download-changed",
            found.path,
            None,
            f"published download {what}",
            "published downloads never change; restore the published bytes",
        )


def _summary(clean: _CleanMemo | None) -> int | None:
    """How many secrets are too short to scan, as recorded when the same secrets were
    last indexed and all read cleanly (None: not recorded, build the index)."""
    if clean is None:
        return None
    raw = clean.memo.get("leak-index", clean.secrets)
    try:
        value = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    count = value.get("unscannable") if isinstance(value, dict) else None
    return count if isinstance(count, int) and count >= 0 else None


def leak_scan(ctx: GateContext) -> tuple[list[Problem], list[str], list[cache.Entry]]:
    """The leak scan proper: findings, notes, and the cache entries it learned (needs
    the private store's texts).

    With the result cache (``ctx.memo``), the index of held-out texts is built only if
    some file has to be scanned, and a file is scanned only if its exact bytes were not
    already scanned clean against exactly these secrets with this code
    (``generator.cache``). Files scanned clean now come back as entries to store.
    """
    out = Findings(NAME)
    notes: list[str] = []
    config = LeakConfig()
    clean = _CleanMemo(ctx.memo, secrets_key(ctx, config)) if ctx.memo is not None else None
    summary = _summary(clean)

    @functools.cache
    def index() -> LeakIndex:
        unreadable = Problems()
        built = LeakIndex.build(secrets(ctx, unreadable), config=config, ignore=ignored(ctx))
        for problem in unreadable.items:
            out.add(
                "private-unreadable",
                problem.path,
                problem.line,
                f"{problem.message}: this held-out text cannot be scanned for",
                "repair the private store",
            )
        if clean is not None:
            clean.trusted = not unreadable
            entry = json.dumps({"unscannable": len(built.unscannable)}).encode()
            clean.learned.append(cache.Entry("leak-index", clean.secrets, entry))
        return built

    unscannable = summary if summary is not None else len(index().unscannable)
    if unscannable:
        notes.append(f"{counted(unscannable, 'held-out text')} too short to scan for leaks")
    refused: list[Unscannable] = []
    found = scan_paths(
        index,
        public_files(ctx),
        root=ctx.layout.root,
        clean=clean,
        config=config,
        unscannable=refused,
    )
    for file in refused:
        out.add(file.rule, file.source, None, file.message, file.fix)
    for leak in found:
        extent = "the whole text" if leak.whole else f"{leak.tokens} consecutive words"
        page = f" on page {leak.page}" if leak.page is not None else ""
        out.add(
            f"leak-{leak.kind}",
            leak.source,
            leak.line,
            f"held-out {leak.kind} {leak.secret_key} appears{page} ({extent}, "
            f"{leak.excerpt_len} characters)",
            "remove the held-out text; held-out items are published by id only",
        )
    return out.items, notes, clean.entries() if clean is not None else []


def check(ctx: GateContext) -> GateResult:
    """The holdout gate's part on the inputs: endpoints, evidence quotes, public items
    that repeat held-out ones."""
    out = Findings(NAME)
    bank = ctx.data.bank.uncut()
    for bundle in ctx.bundles():
        endpoint = bundle.manifest.endpoint
        held = 0 if endpoint.no_training else sum(bank.is_heldout(r.key.item) for r in bundle.draws)
        if held:
            out.add(
                "training-endpoint",
                ctx.shown(bundle, "bundle.json"),
                None,
                f"{held} held-out draws went through an endpoint not declared no-training "
                f"({endpoint.gateway} / {endpoint.serving_provider})",
                "run held-out items only through no-training endpoints",
            )
        # Held-out prompts and responses go to the grader and the panel too.
        for problem in jury_endpoint_problems(bundle, bank.is_heldout):
            out.add(
                problem.rule,
                ctx.shown(bundle, "bundle.json"),
                line_of(bundle.directory / "bundle.json", problem.loc),
                problem.message,
                "grade held-out draws only through endpoints declared no-training",
            )
        path = ctx.shown(bundle, "verdicts.jsonl")
        for v in bundle.verdicts:
            if v.has_evidence and bank.is_heldout(v.key.item):
                out.add(
                    "heldout-evidence",
                    path,
                    v.line,
                    f"the verdict on held-out {v.key.item} carries an evidence quote",
                    "keep evidence for held-out items in the private store",
                )
    if not bank.heldout:
        note = "this bank has no held-out items: every item is public, nothing can leak"
        return out.result(notes=[note])
    if not bank.private:
        out.add(
            "no-private-store",
            str(ctx.layout.private),
            None,
            "held-out texts are not available, so nothing can be scanned for leaks",
            "pass --private DIR or set PROBEPRESS_PRIVATE",
        )
        return out.result()
    _republished(ctx, LeakConfig(), out)
    return out.result()


def check_outputs(ctx: GateContext) -> GateResult:
    """The holdout gate's part on the finished tree: the leak scan of every public file
    (outputs included) and the downloads' content and immutability."""
    out = Findings(NAME)
    if not ctx.data.bank.uncut().heldout:  # all public: nothing to scan for, downloads still
        _downloads(ctx, out)
        return out.result()
    if not ctx.data.bank.uncut().private:
        return out.result()  # the input part says why nothing can be scanned
    found, notes, learned = leak_scan(ctx)
    out.items.extend(found)
    _downloads(ctx, out)
    return out.result(notes=notes, learned=learned)
