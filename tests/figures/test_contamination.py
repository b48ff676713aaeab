"""The contamination gap (issue 18): registered per ranked candidate, recomputed here by
hand from the tallies, declared absent with why for baselines and banks without held-out
items, and read in plain words on the jury card and the site's jury page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator import figures
from generator.figures.contamination import BASELINE_STATEMENT, NO_STRATA_STATEMENT
from generator.figures.tally import tally_volume
from generator.numbers import for_reading
from generator.render.contamination import EXPLAINED
from generator.render.run import render_volume
from generator.store import Layout
from generator.store.volume import load_volume
from tests.factories import all_public, bundle_dir, edit_lines, slugs

VOL = "vol-002"


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private")


def _section(page: Path, name: str) -> str:
    text = page.read_text("utf-8")
    start = text.index(f'<section id="{name}">')
    return text[start : text.index("</section>", start)]


def _card(root: Path, slug: str) -> Path:
    layout = _layout(root)
    figures.write(layout, VOL)
    render_volume(layout, VOL, pdf=False, draft=True)
    return root / "site_src" / "volumes" / VOL / "jury" / f"{slug}.html"


def _by_hand(root: Path, slug: str) -> float:
    """Held-out minus public mean fail fraction per category, weighted by item share."""
    data = load_volume(_layout(root), VOL, private=False)
    t = tally_volume(data).tallies[slug]
    items = tally_volume(data).items
    sides: dict[str, dict[bool, list[float]]] = {}
    for pos, meta in enumerate(items):
        if meta.status == "validated" and t.n[pos] > 0:
            side = sides.setdefault(meta.category, {True: [], False: []})
            side[data.bank.is_heldout(meta.id)].append(int(t.k[pos]) / int(t.n[pos]))
    both = {c: s for c, s in sides.items() if s[True] and s[False]}
    total = sum(len(s[True]) + len(s[False]) for s in both.values())
    return sum(
        (len(s[True]) + len(s[False]))
        / total
        * (sum(s[True]) / len(s[True]) - sum(s[False]) / len(s[False]))
        for s in both.values()
    )


def test_every_ranked_candidate_has_a_gap_that_recomputes_by_hand(root: Path) -> None:
    found = figures.compute(_layout(root), VOL)
    data = load_volume(_layout(root), VOL, private=False)
    for ref in data.volume.ranked():
        gap = found[f"{VOL}/{ref.slug}/contamination/gap"]
        assert float(gap.value) == pytest.approx(_by_hand(root, ref.slug), abs=5e-5)
        assert set(gap.intervals) == {"narrow", "wide"}
        assert gap.intervals["wide"].method == "stratified-pooled-t-item-fractions"
        assert float(gap.intervals["wide"].lo) <= float(gap.intervals["narrow"].lo)
        assert gap.detail["heldout_items"] == 28 and len(gap.detail["categories"]) == 13
    baselines = found[f"{VOL}/contamination/baselines"]
    assert baselines.detail["absent"] == sorted(
        f"{VOL}/{ref.slug}/contamination/gap" for ref in data.volume.baselines()
    )
    assert baselines.detail["statement"] == BASELINE_STATEMENT


def _contaminate(rows: list[dict[str, Any]], heldout: set[str]) -> list[dict[str, Any]]:
    """Every decided draw of a public item passes (as if the model had learnt them); rubric
    items count toward no failure rate, so their grades stay."""
    for row in rows:
        if row["item"] not in heldout and row["verdict"] == "fail" and "rubric" not in row:
            row["verdict"] = "pass"
            if "label" in row:
                row["label"] = "pass"
    return rows


def test_a_model_that_learnt_the_public_items_shows_the_signal(root: Path) -> None:
    index = root / "bank" / "heldout_index.jsonl"
    heldout = {json.loads(x)["id"] for x in index.read_text("utf-8").splitlines()}
    slug = next(s for s in slugs(root, VOL) if "ember" in s)
    edit_lines(bundle_dir(root, slug, VOL), "verdicts.jsonl", lambda r: _contaminate(r, heldout))
    section = _section(_card(root, slug), "contamination")
    gap = for_reading(
        figures.load_registry(_layout(root)).figures[f"{VOL}/{slug}/contamination/gap"]
    )
    assert float(gap.intervals["wide"].lo) > 0
    assert gap.display in section and gap.intervals["wide"].display in section
    assert "The wide interval lies above zero: a contamination signal" in section
    assert "A positive gap is a signal, not" in section


def test_an_ordinary_card_states_its_interval_and_no_held_out_item(root: Path) -> None:
    slug = next(s for s in slugs(root, VOL) if "kestrel" in s)
    section = _section(_card(root, slug), "contamination")
    gap = for_reading(
        figures.load_registry(_layout(root)).figures[f"{VOL}/{slug}/contamination/gap"]
    )
    assert gap.display in section and gap.intervals["narrow"].display in section
    assert "no contamination signal" in section
    index = root / "bank" / "heldout_index.jsonl"
    for line in index.read_text("utf-8").splitlines():
        assert json.loads(line)["id"] not in section


def test_a_baseline_card_says_why_it_has_no_gap(root: Path) -> None:
    card = _card(root, "baseline-always-refuse")
    assert "Not computed for this candidate" in _section(card, "contamination")
    assert BASELINE_STATEMENT in _section(card, "absent")


def test_a_bank_without_held_out_items_declares_every_gap_absent(root: Path) -> None:
    index = root / "bank" / "heldout_index.jsonl"
    held = index.read_bytes()
    all_public(root, VOL)
    index.write_bytes(held)  # all_public reads the held-out ids from the index
    all_public(root, "vol-001")  # the previous volume is read for drift
    slug = next(s for s in slugs(root, VOL) if "kestrel" in s)
    card = _card(root, slug)
    registry = figures.load_registry(_layout(root)).figures
    assert not [f for f in registry if f.startswith(VOL) and f.endswith("/contamination/gap")]
    assert registry[f"{VOL}/contamination/absent"].detail["statement"] == NO_STRATA_STATEMENT
    assert NO_STRATA_STATEMENT in _section(card, "absent")
    assert "failure rate on public items of the same categories" in EXPLAINED
    assert "failure rate on public items of the same categories" in card.read_text("utf-8")
