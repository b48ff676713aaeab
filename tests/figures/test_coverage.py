"""Coverage beside every rate, and per-category rates withheld below the minimum."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import figures
from generator.figures.coverage import answered_share, coverage_of
from generator.models.figures import Figure
from generator.render.pages import render_pages
from generator.render.provenance import provenance
from generator.site.published import PublishedVolume
from generator.site.results import results_page
from generator.store import Layout, load_volume
from generator.store.rowtypes import new_draw
from tests.conftest import CliRun
from tests.factories import edit_volume

VOL = "vol-001"


@pytest.fixture(scope="module")
def computed(example_src: Path) -> dict[str, Figure]:
    """vol-001's figures, as the example computes them."""
    return figures.compute(Layout.at(example_src, example_src / ".private"), VOL)


def _draws(root: Path, slug: str) -> list[dict[str, Any]]:
    path = root / "bundles" / VOL / slug / "draws.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _schedule(root: Path) -> int:
    """Scheduled draws per candidate, from the files alone: active items × halves × draws."""
    volume = yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))
    ids = set()
    for name in ("public.jsonl", "heldout_index.jsonl"):
        for line in (root / "bank" / name).read_text("utf-8").splitlines():
            item = json.loads(line)
            if item["added_in"] == volume["bank_version"]:
                ids.add(item["id"])
    protocol = volume["protocol"]
    return len(ids) * len(protocol["halves"]) * protocol["draws_per_half"]


def test_coverage_figures_match_a_count_of_the_draw_files(
    example_src: Path, computed: dict[str, Figure]
) -> None:
    scheduled = _schedule(example_src)
    slugs = sorted(p.name for p in (example_src / "bundles" / VOL).iterdir() if p.is_dir())
    retried_somewhere = False
    for slug in slugs:
        draws = _draws(example_src, slug)
        last = [d["attempts"][-1]["status"] for d in draws]
        answered = computed[f"{VOL}/{slug}/coverage/answered"]
        assert answered.kind == "share"
        assert answered.detail["scheduled"] == scheduled
        assert answered.detail["answered"] == last.count("ok")
        assert answered.detail["lost"] == last.count("provider_error") + last.count("timeout")
        assert answered.detail["empty"] == last.count("empty")
        assert abs(Decimal(answered.value) - Decimal(last.count("ok")) / scheduled) < Decimal(
            "0.00005"
        )
        retried = sum(len(d["attempts"]) > 1 for d in draws)
        retried_somewhere |= retried > 0
        assert computed[f"{VOL}/{slug}/coverage/retried"].value == str(retried)
        assert computed[f"{VOL}/{slug}/coverage/refused"].value == str(last.count("content_filter"))
        sources = {s.path for s in answered.sources}
        assert f"bundles/{VOL}/{slug}/draws.jsonl" in sources
    assert retried_somewhere  # the example exercises retries


def test_refusals_are_their_own_category_and_the_schedule_is_the_denominator(
    example_src: Path,
) -> None:
    data = load_volume(Layout.at(example_src, example_src / ".private"), VOL, private=False)
    bundle = next(iter(data.bundles.values()))
    items = {m.id for m in data.bank.active_items(data.volume.bank_version)}
    protocol = data.volume.protocol
    before = coverage_of(bundle, items, protocol)
    first, second, *rest = bundle.draws
    refused = new_draw(
        (first.line, first.key, ("provider_error", "content_filter"), False, True, None)
    )
    changed = replace(bundle, draws=[refused, *rest])  # ``second`` is no longer recorded
    after = coverage_of(changed, items, protocol)
    assert after.scheduled == before.scheduled
    assert after.refused == before.refused + 1
    assert after.unrecorded == before.unrecorded + 1
    assert after.answered == before.answered - sum(r.statuses[-1] == "ok" for r in (first, second))
    assert after.retried == before.retried + 1 - (len(first.statuses) > 1) - (
        len(second.statuses) > 1
    )
    assert answered_share(after) < answered_share(before)
    parts = after.answered + after.refused + after.empty + after.lost + after.unrecorded
    assert parts == after.scheduled


def test_the_leaderboard_and_the_results_page_show_coverage_beside_the_rates(
    example_src: Path, computed: dict[str, Figure]
) -> None:
    layout = Layout.at(example_src, example_src / ".private")
    data = load_volume(layout, VOL, private=False)
    pages = render_pages(data, computed, provenance(data, figures.GENERATOR))
    board = next(p for p in pages if p.path.endswith("leaderboard.html")).html.decode("utf-8")
    results = board.split('<section id="results">', 1)[1].split("</section>", 1)[0]
    assert '<th colspan="3" class="group">Coverage (scheduled draws)</th>' in results
    # The ranked models' table and forest plot; baselines sit in their own table.
    assert data.volume.baselines()
    assert all(ref.api not in results for ref in data.volume.baselines())
    for ref in data.volume.ranked():
        answered = computed[f"{VOL}/{ref.slug}/coverage/answered"].display
        retried = computed[f"{VOL}/{ref.slug}/coverage/retried"].display
        row = results.split(ref.api, 1)[1].split("</tr>", 1)[0]
        assert f'<td class="num">{answered}</td>\n<td class="num">{retried}</td>' in row
    # The forest plot keeps the fitted stacked layout with no answered column (decided at
    # the coverage merge): coverage stays in the tables above.
    forest = board.split('<section id="forest">', 1)[1].split("</section>", 1)[0]
    assert "<svg" in forest and "Answered" not in forest
    figs = {k.removeprefix(f"{VOL}/"): v for k, v in computed.items()}
    page = results_page(PublishedVolume(data.volume, computed, {}))
    assert "| Answered | Retried | Refused |" in page
    minimum = data.volume.thresholds.min_category_items
    assert f"| Minimum validated items per category rate | {minimum} (below it" in page
    assert "Minimum validated items to publish the volume" not in page  # not declared
    slug = data.volume.candidates[0].slug
    assert figs[f"{slug}/coverage/answered"].display in page


def _withheld_root(example_src: Path, tmp_path: Path, minimum: int | None) -> Path:
    root = tmp_path / "root"
    shutil.copytree(example_src, root, symlinks=True)

    def declare(doc: dict[str, Any]) -> None:
        if minimum is None:
            doc["thresholds"].pop("min_category_items", None)
        else:
            doc["thresholds"]["min_category_items"] = minimum

    edit_volume(root, declare)
    return root


def test_a_category_below_the_minimum_is_withheld_on_every_page(
    example_src: Path, tmp_path: Path
) -> None:
    root = _withheld_root(example_src, tmp_path, 5)
    layout = Layout.at(root, root / ".private")
    found = figures.compute(layout, VOL)
    data = load_volume(layout, VOL, private=False)
    slugs = [ref.slug for ref in data.volume.candidates]
    withheld = found[f"{VOL}/category/ambiguity/withheld"]
    assert withheld.value == "4"
    assert withheld.detail["minimum"] == 5
    assert withheld.detail["statement"] == "withheld: 4 validated items, minimum 5"
    assert withheld.detail["absent"] == [f"{VOL}/{s}/category/ambiguity/rate" for s in slugs]
    for slug in slugs:
        assert f"{VOL}/{slug}/category/ambiguity/rate" not in found  # not computed at all
        assert f"{VOL}/{slug}/category/arithmetic/rate" in found  # 5 or more: published
    pages = render_pages(data, found, provenance(data, figures.GENERATOR))
    board = next(p for p in pages if p.path.endswith("leaderboard.html")).html.decode("utf-8")
    section = board.split('<section id="categories">', 1)[1].split("</section>", 1)[0]
    four = [k for k, f in found.items() if k.endswith("/withheld") and f.value == "4"]
    cell = '<td class="cell">withheld: 4 validated items, minimum 5</td>'
    # The category table rows are the ranked models (baselines are withheld above too,
    # but the category table does not list them).
    ranked = data.volume.ranked()
    assert len(ranked) == len(slugs) - 2
    assert section.count(cell) == len(ranked) * len(four)
    assert "fewer than 5 validated items (the pre-registered minimum)" in section


def test_a_volume_declaring_no_minimum_withholds_nothing(example_src: Path, tmp_path: Path) -> None:
    root = _withheld_root(example_src, tmp_path, None)
    found = figures.compute(Layout.at(root, root / ".private"), VOL)
    assert not [k for k in found if k.endswith("/withheld")]
    assert f"{VOL}/demo-ember-ember-mini/category/ambiguity/rate" in found


def _minimum(root: Path, value: int) -> None:
    edit_volume(root, lambda doc: doc["thresholds"].update(min_volume_items=value))


def test_a_volume_below_its_minimum_is_refused_by_the_publishing_gate(
    cli: CliRun, root: Path
) -> None:
    _minimum(root, 64)  # vol-001's bank v1 has 63 validated items
    result = cli("gate", "publishing", VOL)
    assert result.exit_code == 1
    assert (
        f"bundles/{VOL}/volume.yaml: bank v1 has 63 validated items, below the "
        "pre-registered minimum of 64 for publishing a volume (thresholds.min_volume_items) "
        "[publishing/volume-below-minimum]"
    ) in result.stderr
    _minimum(root, 63)
    assert "volume-below-minimum" not in cli("gate", "publishing", VOL).stderr
