"""The example's third volume (issue 18): items climbed the ladder after vol-002, one
non-core item retired, a category below vol-003's minimum withheld, the contamination
gap shown; and the ledgers the demo writes are the ones ``review apply`` appends."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.canonical import dumps_line
from generator.demo.bank import build_bank, ledgers
from generator.demo.build import build, write
from generator.demo.spec import EXAMPLE, ReviewSpec
from generator.models.review import Disagreement, StatusChange
from generator.store import Layout, load_volume
from generator.store.bank import load_bank
from generator.store.jsonl import Bounds, Problems
from tests.conftest import CliRun, as_of

REPO = Path(__file__).resolve().parents[2]
RETIRED = "ambig-003"
WITHHELD = "withheld: 4 validated items, minimum 5"


def _items() -> dict[str, Any]:
    return {d.item.id: d.item for d in build_bank(EXAMPLE)[1]}


def _figures(root: Path) -> dict[str, Any]:
    data = json.loads((root / "figures" / "figures.json").read_text("utf-8"))
    return data["figures"]  # type: ignore[no-any-return]


def _day(volume: str) -> dt.date:
    return next(v.publication_date for v in EXAMPLE.volumes if v.id == volume)


def test_the_reviews_after_vol_002_are_ledger_lines_as_review_apply_writes_them() -> None:
    written = ledgers(EXAMPLE, _items())
    assert [(c.item, c.status, c.by) for c in written.climbs] == [
        ("live-003", "validated", "A. Haddad"),
        ("premise-004", "reviewed", "S. Tanaka"),
        ("prov-003", "validated", "R. Okafor"),
    ]
    [dispute] = written.disagreements
    assert (dispute.item, dispute.status, dispute.by) == ("prov-003", "reviewed", "R. Okafor")
    resolved = next(c for c in written.climbs if c.item == "prov-003")
    assert resolved.resolution and dispute.on < resolved.on
    for line in (*written.climbs, *written.disagreements):
        assert _day("vol-002") < line.on <= _day("vol-003")
        # The bank version current on the day: v1.3 from its release on 2026-12-01.
        assert line.bank_version == ("v1.3" if line.on >= dt.date(2026, 12, 1) else "v1.2")
    public = build().public
    for name, lines in (("status", written.climbs), ("disagreements", written.disagreements)):
        # Line for line what ``review apply`` appends (``generator.reviewing``).
        expected = "".join(dumps_line(x.model_dump(mode="json")) for x in lines)
        assert public[f"bank/{name}.jsonl"] == expected.encode("utf-8")
    data = public["bank/status.jsonl"].splitlines()
    assert [StatusChange.model_validate_json(x) for x in data] == written.climbs
    one = public["bank/disagreements.jsonl"].splitlines()
    assert [Disagreement.model_validate_json(x) for x in one] == [dispute]


def _refused(tmp_path: Path, *declared: ReviewSpec) -> list[tuple[str, str]]:
    """What the bank's reader refuses of the ledgers the demo writes for ``declared``
    (the bank alone: no volume is simulated)."""
    layout = Layout.at(tmp_path, tmp_path / ".private")
    write(build(replace(EXAMPLE, reviews=declared, volumes=())), layout)
    problems = Problems()
    load_bank(layout, Bounds(), problems, private=False)
    return [(f"{p.path}:{p.line}", f"{p.message} [{p.rule}]") for p in problems.items]


def test_a_review_that_breaks_the_ladder_is_refused_by_the_ledger_reader(tmp_path: Path) -> None:
    same = ReviewSpec("live-003", "sign-off", "S. Tanaka", dt.date(2026, 11, 27))
    assert _refused(tmp_path / "same", same) == [
        (
            "bank/status.jsonl:1",
            "live-003: step 3 (validated) is signed by 'S. Tanaka', who also signed it off "
            "as 'reviewed': each rung needs a different person [validation-ladder]",
        )
    ]
    disputed = ReviewSpec("prov-003", "disagree", "R. Okafor", dt.date(2026, 11, 30), "wrong")
    unresolved = ReviewSpec("prov-003", "sign-off", "R. Okafor", dt.date(2026, 12, 4))
    assert _refused(tmp_path / "unresolved", disputed, unresolved) == [
        (
            "bank/status.jsonl:1",
            "prov-003: the 'validated' step follows a recorded disagreement but gives no "
            "resolution: write down how the two reviewers settled it [validation-ladder]",
        )
    ]
    top = ReviewSpec("ambig-001", "sign-off", "J. Doe", dt.date(2026, 11, 27))
    assert _refused(tmp_path / "top", top) == [
        (
            "bank/status.jsonl:1",
            "ambig-001: the item is already 'validated', the top rung [validation-ladder]",
        )
    ]


def test_a_review_on_a_publication_date_or_of_a_heldout_item_is_refused(tmp_path: Path) -> None:
    on_the_day = ReviewSpec("live-003", "sign-off", "A. Haddad", _day("vol-002"))
    with pytest.raises(ValueError) as caught:
        ledgers(replace(EXAMPLE, reviews=(on_the_day,)), _items())
    assert str(caught.value) == (
        "example review of live-003 on 2026-11-25: dated 2026-11-25, a volume's publication "
        "date: the date must follow it"
    )
    held = ReviewSpec("h-arith-01", "sign-off", "A. Haddad", dt.date(2026, 11, 27))
    assert _refused(tmp_path, held) == [
        (
            "bank/status.jsonl:1",
            "h-arith-01 is held out: its notes stay in the private store (notes_private: "
            "true, no comment or resolution) [ledger-private]",
        )
    ]


def test_the_example_as_of_vol_002_has_no_later_version_volume_or_review() -> None:
    earlier = as_of(EXAMPLE, "vol-002")
    assert [v.id for v in earlier.versions] == ["v1", "v1.1", "v1.2"]
    assert [v.id for v in earlier.volumes] == ["vol-001", "vol-002"]
    assert earlier.reviews == ()
    assert as_of(EXAMPLE, "vol-003") == EXAMPLE


def test_vol_003_adds_nothing_to_what_earlier_volumes_published(
    example_src: Path, example_vol002_src: Path
) -> None:
    names = ["bank/public.jsonl", "bank/heldout_index.jsonl"]
    for volume in ("vol-001", "vol-002"):
        files = sorted((example_vol002_src / "bundles" / volume).rglob("*"))
        names += [str(p.relative_to(example_vol002_src)) for p in files if p.is_file()]
    for name in names:
        assert (example_src / name).read_bytes() == (example_vol002_src / name).read_bytes(), name
    assert not (example_vol002_src / "bank" / "status.jsonl").exists()
    assert (example_src / "bank" / "status.jsonl").is_file()


def test_items_climbed_between_vol_002_and_vol_003(example_src: Path) -> None:
    layout = Layout.at(example_src, example_src / ".private")
    two, three = load_volume(layout, "vol-002"), load_volume(layout, "vol-003")
    statuses = {
        i: (two.bank.meta(i).status, three.bank.meta(i).status)
        for i in ("live-003", "prov-003", "premise-004")
    }
    assert statuses == {
        "live-003": ("reviewed", "validated"),
        "prov-003": ("reviewed", "validated"),
        "premise-004": ("draft", "reviewed"),
    }
    steps = three.bank.meta("prov-003").validation
    assert [(s.status, s.by) for s in steps][-1] == ("validated", "R. Okafor")
    assert steps[-1].resolution
    assert [d.by for d in three.bank.disputes["prov-003"]] == ["R. Okafor"]


def test_vol_003_retires_one_non_core_item_and_keeps_the_core(example_src: Path) -> None:
    layout = Layout.at(example_src, example_src / ".private")
    one, two, three = (load_volume(layout, f"vol-00{n}") for n in (1, 2, 3))
    active = {
        v: {m.id for m in d.bank.active_items(d.volume.bank_version)}
        for v, d in (("two", two), ("three", three))
    }
    assert active["two"] - active["three"] == {RETIRED}
    assert active["three"] <= active["two"]
    assert not three.bank.frozen(RETIRED).core
    core = {m.id for m in one.bank.active_items("v1") if m.core}
    assert len(core) == 63
    assert core == {m.id for m in three.bank.active_items("v1.3") if m.core}
    assert all(RETIRED not in {d.key.item for d in b.draws} for b in three.bundles.values())
    assert all(RETIRED in {d.key.item for d in b.draws} for b in two.bundles.values())


def test_vol_001_core_rate_definition_equals_vol_003_after_the_retirement(
    example_src: Path,
) -> None:
    figs = _figures(example_src)
    layout = Layout.at(example_src, example_src / ".private")
    three = load_volume(layout, "vol-003")
    slugs = [three.slug_of(c) for c in three.volume.candidates]
    assert len(slugs) == 10
    for slug in slugs:
        assert figs[f"vol-003/{slug}/core_rate"]["detail"]["items"] == 63, slug
        if f"vol-001/{slug}/core_rate" in figs:
            assert figs[f"vol-001/{slug}/core_rate"]["detail"]["items"] == 63, slug
        # vol-002's full bank, plus live-003 and prov-003 (now validated), less ambig-003.
        two = figs[f"vol-002/{slug}/full_rate"]["detail"]["items"]
        assert figs[f"vol-003/{slug}/full_rate"]["detail"]["items"] == two + 2 - 1 == 71, slug


def test_vol_003_withholds_the_category_below_its_minimum(example_src: Path) -> None:
    figs = _figures(example_src)
    withheld = figs["vol-003/category/ambiguity/withheld"]
    assert (withheld["value"], withheld["detail"]["minimum"]) == ("4", 5)
    assert withheld["detail"]["statement"] == WITHHELD
    assert [f for f in figs if f.startswith("vol-003/") and "/withheld" in f] == [
        "vol-003/category/ambiguity/withheld"
    ]
    for slug in ("demo-fjord-fjord-ref-1", "demo-gannet-gannet-xl"):
        assert f"vol-003/{slug}/category/ambiguity/rate" not in figs
        assert f"vol-002/{slug}/category/ambiguity/rate" in figs
        assert f"vol-003/{slug}/category/arithmetic/rate" in figs


def test_vol_003_shows_every_ranked_candidates_contamination_gap(example_src: Path) -> None:
    figs = _figures(example_src)
    layout = Layout.at(example_src, example_src / ".private")
    three = load_volume(layout, "vol-003")
    ranked = [three.slug_of(c) for c in three.volume.candidates if c.role != "baseline"]
    assert len(ranked) == 8
    for slug in ranked:
        gap = figs[f"vol-003/{slug}/contamination/gap"]
        assert gap["kind"] == "difference" and set(gap["intervals"]) == {"narrow", "wide"}
        assert gap["detail"]["heldout_items"] == 28


# The committed publication: these pass once the example is regenerated and published
# with vol-003 (`make example`).


def test_committed_vol_003_page_says_why_ambiguity_is_withheld() -> None:
    page = (REPO / "site_src" / "volumes" / "vol-003" / "leaderboard.html").read_text("utf-8")
    assert WITHHELD in page
    assert "fewer than 5 validated items (the pre-registered minimum)" in page


def test_committed_vol_003_jury_cards_show_the_contamination_gap() -> None:
    cards = sorted((REPO / "site_src" / "volumes" / "vol-003" / "jury").glob("demo-*.html"))
    assert len(cards) == 8
    for card in cards:
        text = card.read_text("utf-8")
        start = text.index('<section id="contamination">')
        section = text[start : text.index("</section>", start)]
        assert "held-out minus public failure rate" in section, card.name
        assert "No held-out text is used or shown" in section, card.name


def test_vol_003_audit_fails_only_on_the_withheld_category(cli: CliRun) -> None:
    result = cli("audit", "vol-003")
    assert result.exit_code == 1
    failures = [x for x in result.output.splitlines() if x.startswith("FAIL: ")]
    assert failures == [
        "FAIL: balance: bundles/vol-003/volume.yaml: category ambiguity has 4 validated items, "
        "below the pre-registered minimum of 5: its per-category rates are withheld (not "
        "published); add validated items [audit/category-below-minimum]"
    ]
