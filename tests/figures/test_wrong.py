"""What each candidate gets wrong, and the grader's met-rate of every rubric line
(``generator.figures.wrong``), recomputed here from the example's files."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from generator.figures.tally import tally_volume
from generator.figures.wrong import TOP
from generator.store import Layout
from generator.store.volume import load_volume

VOLUMES = ("vol-001", "vol-002")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def _figures(root: Path) -> dict[str, dict[str, Any]]:
    figures: dict[str, dict[str, Any]] = json.loads(
        (root / "figures" / "figures.json").read_text("utf-8")
    )["figures"]
    return figures


def _validated(root: Path) -> dict[str, dict[str, Any]]:
    rows = _jsonl(root / "bank" / "public.jsonl") + _jsonl(root / "bank" / "heldout_index.jsonl")
    return {r["id"]: r for r in rows if r["status"] == "validated"}


def _slugs(root: Path, vol: str) -> list[str]:
    return sorted(p.name for p in (root / "bundles" / vol).iterdir() if p.is_dir())


def _lines(root: Path, vol: str, slug: str) -> dict[tuple[str, str], list[tuple[str, bool]]]:
    """(item, line) → [(draw "A1", met)] of every rubric verdict, in draw order."""
    out: dict[tuple[str, str], list[tuple[str, bool]]] = defaultdict(list)
    verdicts = _jsonl(root / "bundles" / vol / slug / "verdicts.jsonl")
    for v in sorted(verdicts, key=lambda v: (v["item"], v["half"], v["draw"])):
        for g in (v.get("rubric") or {}).get("lines", []):
            out[(v["item"], g["line"])].append((f"{v['half']}{v['draw']}", g["met"]))
    return dict(out)


def _heldout(root: Path) -> set[str]:
    return {r["id"] for r in _jsonl(root / "bank" / "heldout_index.jsonl")}


def _kinds(root: Path, vol: str, slug: str) -> dict[tuple[str, str], str]:
    found = {}
    for v in _jsonl(root / "bundles" / vol / slug / "verdicts.jsonl"):
        for g in (v.get("rubric") or {}).get("lines", []):
            found[(v["item"], g["line"])] = g["kind"]
    return found


def test_every_rubric_lines_met_rate_is_the_graders_share_of_yes(root: Path) -> None:
    figures, validated, heldout = _figures(root), _validated(root), _heldout(root)
    seen = 0
    for slug in _slugs(root, "vol-002"):
        lines = _lines(root, "vol-002", slug)
        assert lines, slug  # the example grades rubric items in vol-002
        for (item, line), grades in lines.items():
            fid = f"vol-002/{slug}/rubric/line/{item}/{line}/met"
            if item not in validated:
                assert fid not in figures
                continue
            met = sum(m for _, m in grades)
            f = figures[fid]
            assert f["value"] == f"{met / len(grades):.4f}", fid
            assert (f["detail"]["counted"], f["detail"]["draws"]) == (met, len(grades))
            assert f["detail"]["heldout"] == (item in heldout)
            lo, hi = float(f["intervals"]["ci"]["lo"]), float(f["intervals"]["ci"]["hi"])
            assert lo <= met / len(grades) <= hi
            seen += 1
    assert seen > 0
    assert not [fid for fid in figures if fid.startswith("vol-001/") and "/rubric/line/" in fid]


def _top(counts: dict[Any, tuple[int, int]]) -> list[Any]:
    failing = [(k, kn) for k, kn in counts.items() if kn[0]]
    failing.sort(key=lambda x: (-x[1][0] / x[1][1], -x[1][0], x[0]))
    return [k for k, _ in failing[:TOP]]


@pytest.mark.parametrize("vol", VOLUMES)
def test_most_failed_items_are_the_rates_own_counts(root: Path, vol: str) -> None:
    figures = _figures(root)
    data = load_volume(Layout.at(root, root / ".private"), vol)
    tally = tally_volume(data)
    validated = {m.id for m in tally.items if m.status == "validated"}
    baselines = {ref.slug for ref in data.volume.baselines()}
    assert baselines  # the example lists baselines: they get no failure shares
    for slug, t in tally.tallies.items():
        if slug in baselines:
            assert not [f for f in figures if f.startswith(f"{vol}/{slug}/wrong/")], slug
            continue
        counts = {
            m.id: (int(t.k[n]), int(t.n[n]))
            for n, m in enumerate(tally.items)
            if m.id in validated and t.n[n] > 0
        }
        expected = _top(counts)
        prefix = f"{vol}/{slug}/wrong/item/"
        listed = sorted(fid.removeprefix(prefix) for fid in figures if fid.startswith(prefix))
        assert listed == sorted(expected), slug
        assert len(expected) == min(TOP, sum(1 for k, _ in counts.values() if k))
        for item in expected:
            f = figures[prefix + item]
            k, n = counts[item]
            assert f["value"] == f"{k / n:.4f}" and f["kind"] == "share"
            assert f["label"].endswith(f"decided draws of item {item} that failed")


def test_most_failed_rubric_lines_count_misses_and_must_not_hits(root: Path) -> None:
    figures, validated, heldout = _figures(root), _validated(root), _heldout(root)
    assert any(item in heldout for item, _ in _kinds(root, "vol-002", "demo-aurora-aurora-7b-chat"))
    for slug in _slugs(root, "vol-002"):
        if slug.startswith("baseline-"):  # never ranked: no failure shares
            assert not [f for f in figures if f.startswith(f"vol-002/{slug}/wrong/")], slug
            continue
        kinds = _kinds(root, "vol-002", slug)
        fails: dict[tuple[str, str], tuple[int, int]] = {}
        first: dict[tuple[str, str], str] = {}
        for key, grades in _lines(root, "vol-002", slug).items():
            if key[0] not in validated:
                continue
            failed = [d for d, met in grades if met == (kinds[key] == "must_not_include")]
            fails[key] = (len(failed), len(grades))
            if failed:
                first[key] = failed[0]
        prefix = f"vol-002/{slug}/wrong/line/"
        listed = {
            tuple(fid.removeprefix(prefix).split("/")) for fid in figures if fid.startswith(prefix)
        }
        assert listed == set(_top(fails)), slug
        for item, line in listed:
            f = figures[f"{prefix}{item}/{line}"]
            k, n = fails[(item, line)]
            assert f["value"] == f"{k / n:.4f}"
            # A public item names its first failing draw for the page; a held-out one never.
            wanted = None if item in heldout else first[(item, line)]
            assert f["detail"].get("example") == wanted
