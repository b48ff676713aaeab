"""The site's results pages show the forest plot (issue 17): in Chromium at 390 px and
1280 px, the axis fitted to the data, text at least 10 px on the phone, no text drawn
over another, nothing wider than the screen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from generator.figures import load_registry
from tests.browser import launch
from tests.forest_checks import check_plot, plotted_rates
from tests.site.conftest import Built
from tests.site.test_browser import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site_url(built: Built) -> Iterator[str]:
    """The built site, served on loopback."""
    with serve(built.site) as url:
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser)."""
    yield from launch()


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_results_page_shows_a_fitted_legible_forest_plot(
    built: Built, site_url: str, chromium: Any, volume: str, width: int
) -> None:
    registry = load_registry(built.layout).figures
    rates = plotted_rates(built.layout.root, volume, registry)
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{site_url}volumes/{volume}/index.html", wait_until="networkidle")
    problems = check_plot(page, rates, phone=width < 500)
    context.close()
    assert not problems, problems
