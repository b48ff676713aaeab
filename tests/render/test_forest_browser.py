"""The frozen leaderboard's forest plot in Chromium at 390 px and 1280 px (issue 17):
the axis fitted to the data, every text at least 10 px on the phone, no label drawn over
another, nothing wider than the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.figures import load_registry
from generator.render import render_volume
from generator.store import Layout
from tests.browser import launch
from tests.forest_checks import check_plot, plotted_rates

pytestmark = pytest.mark.browser

VOL = "vol-002"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser)."""
    yield from launch()


@pytest.mark.parametrize("width", [390, 1280])
def test_forest_plot_is_fitted_and_legible(browser: Any, figured: Path, width: int) -> None:
    layout = Layout.at(figured, figured / ".private")
    render_volume(layout, VOL, pdf=False)
    registry = load_registry(layout).figures
    rates = plotted_rates(figured, VOL, registry)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto((figured / "site_src" / "volumes" / VOL / "leaderboard.html").as_uri())
    page.wait_for_load_state("load")
    problems = check_plot(page, rates, phone=width < 500)
    caption = page.inner_text("#forest figcaption")
    context.close()
    assert not problems, problems
    assert "The axis spans " in caption and "fitted to the data" in caption
