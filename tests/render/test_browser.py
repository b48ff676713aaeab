"""Frozen pages in a real browser (Debian's headless Chromium through Playwright).

Opened straight from disk: the CSP must admit the inline style (a hash mismatch shows as
a console error), nothing may be requested besides the page itself, hostile text must
run nothing, and on a phone-sized viewport the page must not scroll sideways (wide
tables scroll inside their own containers). Screenshots for review are saved under
``tests/artifacts/render/`` (not tracked).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator import figures
from generator.render import render_volume
from generator.store import Layout
from tests import browser as chromium
from tests.browser import Visit, layout_problems, open_page
from tests.render.hostile import SLUG, VOL, make_hostile

pytestmark = pytest.mark.browser
browser = chromium.browser  # the shared fixture: Debian's Chromium, one per module

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "render"


def visit(browser: Any, page_path: Path, shot: str) -> Visit:
    """Open ``page_path`` on a phone-sized viewport and record everything."""
    seen = Visit()
    page = open_page(browser, page_path, seen, java_script_enabled=True)
    seen.overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    seen.layout = layout_problems(page)
    seen.text = page.inner_text("body")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{shot}.png"), full_page=True)
    page.context.close()
    return seen


@pytest.mark.parametrize(
    "page",
    ["vol-002/leaderboard.html", "vol-001/jury/demo-kestrel-kestrel-chat-3.html"],
)
def test_frozen_page_on_a_phone(browser: Any, rendered: Path, page: str) -> None:
    seen = visit(browser, rendered / "site_src" / "volumes" / page, page.replace("/", "-"))
    assert not seen.console, seen.console  # includes any CSP refusal of the inline style
    assert not seen.requests, seen.requests
    assert seen.overflow <= 0, f"{page} scrolls sideways by {seen.overflow}px on a phone"
    assert seen.layout == []
    assert "Demonstration data" in seen.text


def test_hostile_page_runs_nothing(browser: Any, figured: Path) -> None:
    layout = Layout.at(figured, figured / ".private")
    make_hostile(figured)
    figures.write(layout, VOL)
    render_volume(layout, VOL, pdf=False)
    for page in ("leaderboard.html", f"jury/{SLUG}.html"):
        path = figured / "site_src" / "volumes" / VOL / page
        seen = visit(browser, path, f"hostile-{path.stem}")
        assert not seen.dialogs, seen.dialogs
        assert not seen.requests, seen.requests
        assert not seen.console, seen.console
        assert seen.overflow <= 0, f"{page} scrolls sideways by {seen.overflow}px"
        assert seen.layout == [], page
        assert '<script>alert("n")</script>[U+202E]emaN' in seen.text
