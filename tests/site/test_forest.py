"""The results page's forest plot and rank statement (issue 17), without a site build."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import yaml

from generator.figures import load_registry
from generator.models.volume import Volume
from generator.site.published import PublishedVolume
from generator.site.results import results_page
from generator.store import Layout
from tests.forest_checks import data_range, plotted_rates

VOL = "vol-002"


def _published(root: Path, edit: dict[str, object] | None = None) -> PublishedVolume:
    doc = yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))
    for key, value in (edit or {}).items():
        section, field = key.split(".")
        if value is None:
            doc[section].pop(field, None)
        else:
            doc[section][field] = value
    registry = load_registry(Layout.at(root, root / ".private")).figures
    figures = {k: f for k, f in registry.items() if k.startswith(f"{VOL}/")}
    return PublishedVolume(Volume.model_validate(doc), figures, {})


def test_results_page_draws_the_forest_plot_on_a_fitted_axis(example_src: Path) -> None:
    pv = _published(example_src)
    page = results_page(pv)
    assert '<div class="pp-forest">' in page and page.count('<svg class="forest"') == 1
    rates = plotted_rates(example_src, VOL, pv.figures)
    low, high = data_range(rates)
    ticks = [Decimal(t) / 100 for t in re.findall(r'class="forest-tick"[^>]*>([0-9.]+)%<', page)]
    assert ticks and ticks[0] <= low and ticks[-1] >= high
    assert ticks[-1] - ticks[0] < Decimal("0.7")  # not the 0–100% of before
    axis = f"{ticks[0] * 100:f}%–{ticks[-1] * 100:f}%".replace(".00", "").replace(".0", "")
    assert f"The axis spans {axis}, fitted to the data" in page
    # Every ranked model has a row in each panel; no baseline has one.
    assert page.count('class="forest-label"') == 2 * len(pv.volume.ranked())


def test_results_page_states_the_volume_rank_rule(example_src: Path) -> None:
    paired = results_page(_published(example_src))
    assert "Holm-adjusted" in paired and "There are no tie groups." in paired
    assert "(tie group" not in paired
    overlap = results_page(_published(example_src, {"thresholds.ranking": None}))
    assert "overlapping intervals share a tie group" in overlap and "Holm" not in overlap


def test_names_in_the_plot_stay_inert(example_src: Path) -> None:
    pv = _published(example_src)
    hostile = "<script>{{ x }}"  # short enough to survive the label's cut
    candidates = [c.model_copy(update={"display_name": hostile}) for c in pv.volume.candidates]
    pv = PublishedVolume(pv.volume.model_copy(update={"candidates": candidates}), pv.figures, {})
    section = results_page(pv).split("## Forest plot", 1)[1]
    assert "<script" not in section and "{{" not in section
    assert "&lt;script&gt;&#123;&#123; x &#125;&#125;" in section
