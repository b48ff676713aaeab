"""Every page of the built site, frozen pages included, at a desktop and a phone width.

Issue 17, defect 4: at 1280 px the run-conditions table was cut off behind a scroll, and
on a phone the results tables showed only the model and its rank (the rates started
off-screen). At both widths no element may reach past the viewport except inside a
scroll box whose table keeps its first column in place. One browser for the module, one
context per width, every page opened from the file system.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import launch, layout_problems
from tests.site.conftest import Built

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
NUMBER = re.compile(r"^[+\-−]?\d+(\.\d+)?( pts|%)$")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser), launched once for the module."""
    yield from launch()


def _open(browser: Any, width: int) -> Any:
    return browser.new_context(viewport={"width": width, "height": 900}).new_page()


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_hides_content_sideways(built: Built, browser: Any, width: int) -> None:
    pages = sorted(built.site.rglob("*.html"))
    assert len(pages) >= 14 + 16  # the site's pages and the frozen leaderboards and cards
    page = _open(browser, width)
    found = {}
    for path in pages:
        page.goto(path.as_uri(), wait_until="load")
        problems = layout_problems(page)
        if problems:
            found[path.relative_to(built.site).as_posix()] = problems
    page.context.close()
    assert found == {}


def test_the_layout_check_finds_what_it_must(browser: Any, tmp_path: Path) -> None:
    rows = "".join(f"<tr><th>row {n}</th><td>{'x' * 200}</td></tr>" for n in range(3))
    (tmp_path / "bad.html").write_text(
        "<!DOCTYPE html><meta name=viewport content='width=device-width'>"
        "<style>.s{overflow-x:auto} .sticky th{position:sticky;left:0;background:#fff}"
        "td{white-space:nowrap}</style>"
        '<div id="wide" style="width:2000px">wide</div>'
        f'<div class="s" id="loose"><table>{rows}</table></div>'
        f'<div class="s" id="held"><table class="sticky">{rows}</table></div>'
        f'<div class="s"><pre>{"y" * 300}</pre></div>',
        encoding="utf-8",
    )
    page = _open(browser, 390)
    page.goto((tmp_path / "bad.html").as_uri(), wait_until="load")
    problems = layout_problems(page)
    page.context.close()
    assert len(problems) == 2, problems
    assert problems[0].startswith('div#wide "wide" reaches 2008 px of 390, outside any scroll box')
    assert problems[1].startswith('div#loose.s "row 0')
    assert problems[1].endswith("and 3 of 3 first-column cells scroll away with it")


@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_split_half_values_are_shown(built: Built, browser: Any, volume: str) -> None:
    """Every cell of the frozen leaderboard's split-half table shows a number or an
    interval, visibly, on a phone (once every one of them printed "—")."""
    page = _open(browser, 390)
    page.goto((built.site / "volumes" / volume / "leaderboard.html").as_uri())
    rows = page.locator("#split-half tbody tr")
    assert rows.count() >= 2
    for n in range(rows.count()):
        cells = rows.nth(n).locator("td")
        assert cells.count() == 6
        texts = [cells.nth(i).inner_text().strip() for i in range(6)]
        assert all(NUMBER.match(t) for t in texts[0::2]), texts
        assert all(" to " in t or "–" in t for t in texts[1::2]), texts
        cells.nth(5).scroll_into_view_if_needed()
        assert cells.nth(5).is_visible()
    page.context.close()


def test_frozen_pages_lead_back_to_the_site(built: Built, browser: Any) -> None:
    """Each frozen page links to the site's home, methodology, the volume's results, the
    archive and the downloads; following each link from the page opens that page."""
    page = _open(browser, 390)
    frozen = sorted((built.site / "volumes").glob("vol-*/**/*.html"))
    frozen = [p for p in frozen if p.name not in {"index.html", "jury.html"}]
    # Per volume its leaderboard and a jury card per candidate, baselines included:
    # vol-001 1 + 6 models + 2 baselines, vol-002 and vol-003 1 + 8 models + 2 baselines.
    assert len(frozen) == 31
    assert sum(p.name.startswith("baseline-") for p in frozen) == 6
    for path in frozen:
        page.goto(path.as_uri())
        links = page.locator("nav.site a")
        labels = [links.nth(i).inner_text() for i in range(links.count())]
        volume = path.relative_to(built.site / "volumes").parts[0]
        assert labels == [
            "Site home",
            "Methodology",
            f"Results of {volume}",
            "Archive",
            "Downloads",
        ]
        assert links.first.is_visible()
    card = next((built.site / "volumes" / "vol-002" / "jury").glob("*.html"))
    targets = {
        "Site home": "index.html",
        "Methodology": "methodology.html",
        "Results of vol-002": "volumes/vol-002/index.html",
        "Archive": "volumes/archive.html",
        "Downloads": "downloads/index.html",
    }
    for start in (built.site / "volumes" / "vol-002" / "leaderboard.html", card):
        for label, target in targets.items():
            page.goto(start.as_uri())
            page.locator("nav.site a", has_text=label).click()
            page.wait_for_load_state("load")
            assert page.url == (built.site / target).as_uri(), (start.name, label)
            assert page.locator("article h1").count() == 1, (start.name, label)
    page.context.close()
