"""Frozen pages in a real browser (Debian's headless Chromium through Playwright).

Opened straight from disk: the CSP must admit the inline style (a hash mismatch shows as
a console error), nothing may be requested besides the page itself, hostile text must
run nothing, and on a phone-sized viewport the page must not scroll sideways (wide
tables scroll inside their own containers). Screenshots for review are saved under
``tests/artifacts/render/`` (not tracked).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from generator import figures
from generator.render import render_volume
from generator.store import Layout
from tests.browser import launch, layout_problems
from tests.render.hostile import SLUG, VOL, make_hostile

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "render"
PHONE = {"width": 375, "height": 812}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser)."""
    yield from launch()


@dataclass
class Visit:
    """What happened while one page was open."""

    console: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    overflow: int = 0
    layout: list[str] = field(default_factory=list)
    """What a reader would have to scroll sideways for (``tests.browser.LAYOUT_JS``)."""
    text: str = ""


def visit(browser: Any, page_path: Path, shot: str) -> Visit:
    """Open ``page_path`` on a phone-sized viewport and record everything."""
    seen = Visit()
    url = page_path.resolve().as_uri()
    context = browser.new_context(viewport=PHONE, java_script_enabled=True)

    def guard(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            seen.requests.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on("console", lambda m: seen.console.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: seen.console.append(str(exc)))
    page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_load_state("load")
    seen.overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    seen.layout = layout_problems(page)
    seen.text = page.inner_text("body")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{shot}.png"), full_page=True)
    context.close()
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
