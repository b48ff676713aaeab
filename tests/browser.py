"""Debian's Chromium through Playwright, shared by the browser tests (never a download)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: Headless, and quiet: without the background-networking flags Chromium tries hosts the
#: closed network refuses.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch() -> Iterator[Any]:
    """Yield a launched browser; skip with the fix when Debian's chromium is absent."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is absent: run `make system-deps` (installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


PHONE = {"width": 375, "height": 812}
"""A phone-sized viewport."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser), one per test module."""
    yield from launch()


@dataclass
class Visit:
    """What happened while a page was open (the last four: what a test measured)."""

    console: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    overflow: int = 0
    layout: list[str] = field(default_factory=list)
    """What a reader would have to scroll sideways for (:data:`LAYOUT_JS`)."""
    text: str = ""


def open_page(browser: Any, path: Path, seen: Visit, **context: Any) -> Any:
    """``path`` open from file:// on a phone-sized viewport, every other request refused
    and recorded in ``seen`` with console errors and dialogs; ``context``: more options
    of the browser context."""
    url = path.resolve().as_uri()
    opened = browser.new_context(viewport=PHONE, **context)

    def guard(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            seen.requests.append(route.request.url)
            route.abort()

    opened.route("**/*", guard)
    page = opened.new_page()
    page.on("console", lambda m: seen.console.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: seen.console.append(str(exc)))
    page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_load_state("load")
    return page


#: Everything on the open page that a reader would have to scroll sideways for, or could
#: not reach: an element reaching past the viewport's right edge outside a scroll box (or
#: cut off by a clipping box), and a scroll box whose table scrolls without its first
#: column held in place (tested by scrolling it to the end, not by reading the CSS).
LAYOUT_JS = """
() => {
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const overflowX = (el) => getComputedStyle(el).overflowX;
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    if (el.classList.length) s += "." + [...el.classList].join(".");
    const section = el.closest("section[id]");
    const text = (el.innerText || el.textContent || "").trim().replace(/\\s+/g, " ");
    return s + (section ? " in #" + section.id : "") + ' "' + text.slice(0, 40) + '"';
  };
  const shown = (el) => {
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return style.visibility !== "hidden" && style.display !== "none" && r.width > 0 && r.height > 0;
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (!shown(el) || (el.closest("svg") && el.tagName.toLowerCase() !== "svg")) continue;
    const right = el.getBoundingClientRect().right;
    if (right <= vw + 1) continue;
    let box = el.parentElement, scroller = null, clipper = null;
    for (; box && box !== document.body; box = box.parentElement) {
      const o = overflowX(box);
      if (o === "auto" || o === "scroll") { scroller = box; break; }
      if ((o === "hidden" || o === "clip") && !clipper) clipper = box;
    }
    if (scroller && !clipper) continue;
    problems.push(
      `${name(el)} reaches ${Math.round(right)} px of ${vw}` +
      (clipper ? `, cut off by ${name(clipper)}` : ", outside any scroll box")
    );
  }
  for (const box of document.body.querySelectorAll("*")) {
    const o = overflowX(box);
    if (!shown(box) || !(o === "auto" || o === "scroll")) continue;
    if (box.scrollWidth <= box.clientWidth + 1) continue;
    const table = box.querySelector("table");
    if (!table) continue;  // preformatted text scrolling in its own box is deliberate
    // First-column cells: the leftmost first cells (a grouped header's second row
    // starts further right).
    const starts = [...table.rows].map((row) => row.cells[0]).filter(Boolean);
    const left = Math.min(...starts.map((cell) => cell.getBoundingClientRect().left));
    const firsts = starts.filter((cell) => cell.getBoundingClientRect().left - left < 2);
    box.scrollLeft = box.scrollWidth;
    const edge = box.getBoundingClientRect().left + box.clientLeft;
    const loose = firsts.filter((cell) => Math.abs(cell.getBoundingClientRect().left - edge) > 4);
    box.scrollLeft = 0;
    if (loose.length) {
      problems.push(`${name(box)} scrolls ${box.scrollWidth - box.clientWidth} px sideways ` +
        `and ${loose.length} of ${firsts.length} first-column cells scroll away with it`);
    }
  }
  return problems;
}
"""


def layout_problems(page: Any) -> list[str]:
    """:data:`LAYOUT_JS` run on the open ``page``."""
    return [str(p) for p in page.evaluate(LAYOUT_JS)]
