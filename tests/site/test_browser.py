"""The built site in a real browser: Debian's headless Chromium driven by Playwright.

The site is served from a thread on 127.0.0.1; every request the browser makes is
routed through a check that aborts (and records) anything bound for another host.
Screenshots for review are saved under ``tests/artifacts/site/`` (not tracked).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from generator.store import load_volume
from tests.browser import launch
from tests.site.conftest import REPO, Built

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "tests" / "artifacts" / "site"
LOCAL_SCHEMES = {"data", "blob", "about", "file"}
SHOTS = {
    "home": "index.html",
    "methodology": "methodology.html",
    "results-vol-002": "volumes/vol-002/index.html",
    "jury-vol-002": "volumes/vol-002/jury.html",
    "archive": "volumes/archive.html",
    "downloads": "downloads/index.html",
    "changelog": "downloads/changelog.html",
    "frozen-leaderboard-vol-002": "volumes/vol-002/leaderboard.html",
}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output clean."""


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on an ephemeral loopback port from a thread."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def base_url(built: Built) -> Iterator[str]:
    """The built site, served on loopback."""
    with serve(built.site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright (never a downloaded browser)."""
    yield from launch()


@dataclass
class Watch:
    """Everything that went wrong in one browser context."""

    console_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    off_host: list[str] = field(default_factory=list)
    aborted: list[str] = field(default_factory=list)
    """URLs whose request was cut off by the next navigation (``net::ERR_ABORTED``: a slow
    machine leaves the search worker loading when the test moves on)."""

    def problems(self, context: Any | None = None) -> list[str]:
        """What went wrong; with ``context``, an aborted request is fetched again and is a
        problem unless it now answers 200."""
        refetched = [] if context is None else self._refetched(context)
        return [*self.console_errors, *self.failed, *self.off_host, *refetched]

    def _refetched(self, context: Any) -> list[str]:
        out = []
        for url in sorted(set(self.aborted)):
            status = context.request.get(url).status if url.startswith("http") else None
            if status != 200:
                out.append(f"aborted, and HTTP {status} on fetching again: {url}")
        return out

    def request_failed(self, request: Any) -> None:
        if request.failure == "net::ERR_ABORTED":
            self.aborted.append(request.url)
        else:
            self.failed.append(f"failed: {request.url} {request.failure}")


@pytest.fixture
def watched(browser: Any) -> Iterator[tuple[Any, Watch]]:
    """A fresh context whose requests may only reach the loopback server or local data."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    watch = Watch()

    def guard(route: Any) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in LOCAL_SCHEMES or parts.hostname == "127.0.0.1":
            route.continue_()
        else:
            watch.off_host.append(f"request off the machine: {url}")
            route.abort()

    def on_console(message: Any) -> None:
        if message.type == "error":
            watch.console_errors.append(f"console error on {message.location}: {message.text}")

    def on_page(page: Any) -> None:
        page.on("console", on_console)
        page.on("pageerror", lambda exc: watch.console_errors.append(f"page error: {exc}"))

    context.route("**/*", guard)
    context.on("page", on_page)
    context.on("requestfailed", watch.request_failed)
    context.on(
        "response",
        lambda r: watch.failed.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
    )
    try:
        yield context, watch
    finally:
        context.close()


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def _load_all(context: Any, base_url: str, pages: list[str], tabs: int = 8) -> dict[str, Any]:
    """The HTTP status of every page, each loaded in its own tab until its network is idle
    (``tabs`` at a time: the half-second idle waits run side by side, not one after
    another); a tab is closed only once idle, so nothing it loads is cut off."""
    statuses = {}
    for start in range(0, len(pages), tabs):
        opened = []
        for rel in pages[start : start + tabs]:
            page = context.new_page()
            opened.append((rel, page, page.goto(base_url + rel, wait_until="commit")))
        for rel, page, response in opened:
            page.wait_for_load_state("networkidle")
            statuses[rel] = response.status if response is not None else None
            page.close()
    return statuses


def test_every_page_loads_cleanly(built: Built, base_url: str, watched: tuple[Any, Watch]) -> None:
    context, watch = watched
    pages = _pages(built.site)
    assert len(pages) >= 29
    statuses = _load_all(context, base_url, pages)
    assert {rel: s for rel, s in statuses.items() if s != 200} == {}
    assert watch.problems(context) == []
    page = context.new_page()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, rel in SHOTS.items():
        page.goto(base_url + rel, wait_until="networkidle")
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    assert watch.problems(context) == []


def test_the_demonstration_banner_is_visible(base_url: str, watched: tuple[Any, Watch]) -> None:
    context, watch = watched
    page = context.new_page()
    for rel in ("index.html", "volumes/vol-001/jury.html", "downloads/index.html"):
        page.goto(base_url + rel, wait_until="networkidle")
        banner = page.locator(".md-banner")
        assert banner.is_visible()
        assert "Demonstration data" in banner.inner_text()
    assert watch.problems(context) == []


def test_the_leaderboards_show_every_candidate(
    built: Built, base_url: str, watched: tuple[Any, Watch]
) -> None:
    context, watch = watched
    page = context.new_page()
    for volume in ("vol-001", "vol-002"):
        declared = load_volume(built.layout, volume, private=False).volume
        # The ranked models in the leaderboard; the 2 baselines in their own table.
        expected, baselines = len(declared.ranked()), len(declared.baselines())
        assert baselines == 2
        page.goto(f"{base_url}volumes/{volume}/index.html", wait_until="networkidle")
        table = page.locator(".pp-leaderboard table")
        assert table.is_visible()
        assert table.locator("tbody tr").count() == expected
        page.goto(f"{base_url}volumes/{volume}/leaderboard.html", wait_until="networkidle")
        frozen = page.locator("#results table.results")
        assert frozen.is_visible()
        assert frozen.locator("tbody tr").count() == expected
        apart = page.locator("#baselines table.results")
        assert apart.is_visible()
        assert apart.locator("tbody tr").count() == baselines
    assert watch.problems(context) == []


def _search(page: Any, words: str) -> list[str]:
    page.click("input.md-search__input")
    page.locator("input.md-search__input").press_sequentially(words, delay=20)
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    return [str(a.get_attribute("href")) for a in page.locator(".md-search-result__item a").all()]


def test_search_finds_the_methodology(base_url: str, watched: tuple[Any, Watch]) -> None:
    context, watch = watched
    page = context.new_page()
    page.goto(base_url + "index.html", wait_until="networkidle")
    hits = _search(page, "recusal")
    assert any(urlsplit(h).path == "/methodology.html" for h in hits), hits
    page.screenshot(path=str(ARTIFACTS / "search.png"))
    assert watch.problems(context) == []


def test_search_works_from_the_file_system(built: Built, watched: tuple[Any, Watch]) -> None:
    context, watch = watched
    page = context.new_page()
    page.goto((built.site / "index.html").as_uri(), wait_until="load")
    hits = _search(page, "recusal")
    site_path = (built.site / "methodology.html").as_uri().removeprefix("file://")
    assert any(urlsplit(h).path == site_path for h in hits), hits
    assert watch.problems(context) == []


def test_download_links_match_sha256sums(base_url: str, watched: tuple[Any, Watch]) -> None:
    context, watch = watched
    page = context.new_page()
    page.goto(base_url + "downloads/index.html", wait_until="networkidle")
    links = {
        str(a.get_attribute("href"))
        for a in page.locator("article a[href]").all()
        if not str(a.get_attribute("href")).startswith("#")
    }
    files = {h for h in links if not h.endswith(".html")}
    sums_response = context.request.get(base_url + "downloads/SHA256SUMS")
    assert sums_response.status == 200
    listed = {line[66:]: line[:64] for line in sums_response.text().splitlines() if line.strip()}
    assert files == {*listed, "SHA256SUMS"}
    for name, digest in sorted(listed.items()):
        response = context.request.get(base_url + "downloads/" + name)
        assert response.status == 200, name
        assert hashlib.sha256(response.body()).hexdigest() == digest, name
    assert watch.problems(context) == []


def test_the_watch_catches_what_it_must(tmp_path: Path, watched: tuple[Any, Watch]) -> None:
    (tmp_path / "bad.html").write_text(
        "<!DOCTYPE html><title>bad</title>"
        '<img src="http://192.0.2.1/pixel.png"><img src="missing.png">'
        '<img src="cut.png"><img src="gone.png">'
        '<script>console.error("boom")</script>',
        encoding="utf-8",
    )
    (tmp_path / "cut.png").write_bytes(b"")
    context, watch = watched
    page = context.new_page()
    # Cut off like a request the next navigation aborts: one whose file is there (no
    # problem once fetched again) and one whose file is not.
    page.route("**/cut.png", lambda route: route.abort("aborted"))
    page.route("**/gone.png", lambda route: route.abort("aborted"))
    with serve(tmp_path) as url:
        page.goto(url + "bad.html", wait_until="load")
        page.wait_for_timeout(500)
        problems = "\n".join(watch.problems(context))
    assert f"aborted, and HTTP 404 on fetching again: {url}gone.png" in problems
    assert "cut.png" not in problems
    assert "request off the machine: http://192.0.2.1/pixel.png" in problems
    assert "HTTP 404" in problems and "missing.png" in problems
    assert "boom" in problems
