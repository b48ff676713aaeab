"""Draw rows and the draw rules (held-out text, commitment-only public draws, the private
store), checked against a plain re-reading of the files."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.errors import InputError
from generator.models.records import LOST_STATUSES
from generator.store import Layout, load_volume
from generator.store.rowtypes import DrawKey, DrawRow
from generator.store.volume import VolumeData, candidate_slug
from generator.tier0 import run_check
from tests import commitment_ref
from tests.factories import VOL1, bundle_dir, edit_lines, first_slug

Rows = list[dict[str, Any]]


def _load(root: Path, *, private: bool = True) -> VolumeData:
    return load_volume(Layout.at(root, root / ".private"), VOL1, private=private, strict=False)


def _jsonl(path: Path) -> Rows:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _expected(root: Path, data: VolumeData, slug: str, private: bool) -> tuple[list[Any], ...]:
    """The rows and draw problems of one bundle, worked out the slow, obvious way."""
    bank = data.bank
    shown = f"bundles/{VOL1}/{slug}/draws.jsonl"
    texts = {}
    private_path = (root / ".private" / "responses" / VOL1 / f"{slug}.jsonl").resolve()
    if private:
        for n, r in enumerate(_jsonl(private_path), start=1):
            texts[(r["item"], r["half"], r["draw"])] = (n, r["text"])
    secret = commitment_ref.secret_of(root / ".private")
    rows, problems = [], []
    for line, r in enumerate(_jsonl(bundle_dir(root, slug) / "draws.jsonl"), start=1):
        key = DrawKey(r["item"], r["half"], r["draw"])
        statuses = tuple(a["status"] for a in r["attempts"])
        lost = statuses[-1] in LOST_STATUSES
        response, digest = r.get("response"), r.get("response_commitment")
        text = response
        if key.item in bank.heldout:
            if response is not None:
                problems.append((shown, line, "heldout-text-in-bundle"))
                text = None
            if private and digest is not None:
                found = texts.get(tuple(key))
                text = found[1] if found else None
                k = commitment_ref.item_key(secret, key.item)
                if found is None:
                    problems.append((shown, line, "private-missing"))
                elif commitment_ref.response(k, VOL1, slug, *key, found[1]) != digest:
                    problems.append((str(private_path), found[0], "private-commitment"))
                    text = None
        elif digest is not None:
            problems.append((shown, line, "public-hash-only"))
        tier0 = None
        item = bank.full_item(key.item)
        if text is not None and not lost and item is not None and item.check is not None:
            tier0 = run_check(item.check, text)
        has_text = response is not None or digest is not None
        rows.append(DrawRow(line, key, statuses, lost, has_text, tier0))
    return rows, problems


def _draw_problems(data: VolumeData, slug: str) -> list[tuple[str, int | None, str]]:
    """Problems found reading the draws (at a draws line, or at the private text's line)."""
    shown = f"bundles/{VOL1}/{slug}/draws.jsonl"
    private = str(data.layout.private_responses(VOL1, slug))
    return [(p.path, p.line, p.rule) for p in data.problems if p.path in (shown, private)]


def _damage(root: Path, slug: str) -> None:
    """Every draw rule broken at least once in one bundle, and a few draws lost."""
    d = bundle_dir(root, slug)
    heldout = {r["id"] for r in _jsonl(root / "bank" / "heldout_index.jsonl")}
    private_path = root / ".private" / "responses" / VOL1 / f"{slug}.jsonl"
    private = _jsonl(private_path)

    def draws(rows: Rows) -> Rows:
        held = [r for r in rows if r["item"] in heldout]
        public = [r for r in rows if r["item"] not in heldout]
        held[0].pop("response_commitment")
        held[0]["response"] = "a held-out answer"
        public[1].pop("response")
        public[1]["response_commitment"] = "hmac-sha256:" + "0" * 64
        for r in public[5:8]:
            r.pop("response")
            r["attempts"] = [{"latency_ms": 1, "status": "timeout"}]
        return rows

    edit_lines(d, "draws.jsonl", draws)
    tier0 = {r["id"] for r in _jsonl(root / "bank" / "heldout_index.jsonl") if r["tier"] == 0}
    changed, missing = [n for n, r in enumerate(private) if r["item"] in tier0][:2]
    private[changed]["text"] = "changed after the run"
    del private[missing]
    private_path.write_text("".join(json.dumps(r) + "\n" for r in private), "utf-8")


def _first_ranked_slug(root: Path) -> str:
    doc = yaml.safe_load((root / "bundles" / VOL1 / "volume.yaml").read_text("utf-8"))
    ranked = [c for c in doc["candidates"] if c.get("role") != "baseline"]
    return sorted(candidate_slug(c["api"], c.get("variant")) for c in ranked)[0]


@pytest.mark.parametrize("private", [True, False])
@pytest.mark.parametrize("damaged", [False, True])
def test_rows_match_a_plain_reading(root: Path, private: bool, damaged: bool) -> None:
    # A ranked model's bundle: the first bundle by name is now a baseline that always
    # refuses, so none of its Tier 0 checks pass.
    slug = _first_ranked_slug(root)
    if damaged:
        _damage(root, slug)
    data = _load(root, private=private)
    for name, bundle in data.bundles.items():
        rows, problems = _expected(root, data, name, private)
        assert bundle.draws == rows
        assert _draw_problems(data, name) == problems
    expected: set[str] = set()
    if damaged:
        expected = {"heldout-text-in-bundle", "public-hash-only"}
        expected |= {"private-missing", "private-commitment"} if private else set()
    assert {rule for _, _, rule in _draw_problems(data, slug)} == expected
    tier0 = [row.tier0_pass for row in data.bundles[slug].draws]
    assert True in tier0 and None in tier0


def test_verdict_and_panel_rows_keep_their_keys(root: Path) -> None:
    data = _load(root)
    for slug, bundle in data.bundles.items():
        d = bundle_dir(root, slug)
        verdicts = _jsonl(d / "verdicts.jsonl")
        assert [(v.line, tuple(v.key), v.verdict) for v in bundle.verdicts] == [
            (n, (r["item"], r["half"], r["draw"]), r["verdict"])
            for n, r in enumerate(verdicts, start=1)
        ]
        votes = _jsonl(d / "panel.jsonl")
        assert [(p.line, tuple(p.key), p.vote) for p in bundle.panel] == [
            (n, (r["item"], r["half"], r["draw"]), r["vote"]) for n, r in enumerate(votes, start=1)
        ]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_is_left_as_it_was(root: Path, enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert _load(root).bundles
        assert gc.isenabled() == enabled
        (bundle_dir(root, first_slug(root)) / "draws.jsonl").write_bytes(b"{bad\n")
        with pytest.raises(InputError):
            load_volume(Layout.at(root, root / ".private"), VOL1)
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("cache", [False, True])
def test_equal_rows_are_one_object(root: Path, cache: bool) -> None:
    """A row that repeats across bundles (same line, draw and outcome) is kept once, also
    when the bundles come back from the result cache; equal rows keep their types."""
    layout = Layout.at(root, root / ".private", cache=root.parent / "cache" if cache else False)
    for _ in range(1 + cache):  # with the cache: the second read restores every bundle
        data = load_volume(layout, VOL1, strict=False)
    for name in ("draws", "verdicts", "panel"):
        seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        for bundle in data.bundles.values():
            for row in getattr(bundle, name):
                assert seen.setdefault(row, row) is row
                assert isinstance(row.key, DrawKey) and type(row.line) is int
        assert len(seen) < sum(len(getattr(b, name)) for b in data.bundles.values())
