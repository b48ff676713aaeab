"""Debian's Chromium through Playwright, shared by the browser tests (never a download)."""

from __future__ import annotations

from collections.abc import Iterator
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
