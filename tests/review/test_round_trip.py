"""The review round trip end to end, in Chromium: ``review build`` → the page opened
from file:// → decisions filled in → Save → ``review apply`` of the downloaded file →
``site``: the items' status and history on the site change, while every download
published before stays byte-identical (the climbs go to the append-only ledgers)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.models.review import ReviewFile
from generator.site import build_site
from generator.store import Layout
from tests.browser import launch
from tests.review.factories import DRAFT

pytestmark = pytest.mark.browser

REVIEWER = "M. Lindqvist"
ON = "2026-12-01"
"""After vol-002's publication date: a volume counts the ledger up to its own date."""
GROWS = {
    "SHA256SUMS",
    "bank/status.jsonl",
    "bank/disagreements.jsonl",
    "changelog.md",
    "index.md",
}
"""Files of the downloads folder a review may change: the ledgers it appends to, the
checksums, and two generated pages (the downloads list, which lists the ledgers, and
the bank page with each item's status). Every other file keeps its bytes."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser)."""
    yield from launch()


def run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["--root", str(root), "--private", str(root / ".private"), *args]
    )


def downloads(root: Path) -> dict[str, bytes]:
    folder = root / "site_src" / "downloads"
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def save_review(browser: Any, page_path: Path, tmp_path: Path) -> Path:
    """Open the page, sign off live-003 (to validated), disagree on the draft, Save."""
    context = browser.new_context(accept_downloads=True)
    url = page_path.resolve().as_uri()
    refused: list[str] = []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url == url
            else (refused.append(route.request.url), route.abort())
        ),
    )
    page = context.new_page()
    page.goto(url)
    page.check("input[name='decision-live-003'][value='sign-off']")
    page.fill("#comment-live-003", "Fair to a careful answer.")
    page.check(f"input[name='decision-{DRAFT}'][value='disagree']")
    page.fill(f"#comment-{DRAFT}", "Say which country's law the premise is about.")
    with page.expect_download() as download:
        page.click("#save")
    target = tmp_path / download.value.suggested_filename
    download.value.save_as(target)
    context.close()
    assert refused == []
    return target


def bank_row(root: Path, item: str) -> str:
    page = (root / "site_src" / "downloads" / "changelog.md").read_text("utf-8")
    return next(line for line in page.splitlines() if line.startswith(f"| `{item}`"))


def test_build_fill_save_apply_and_the_site_shows_it(
    browser: Any, site_copy: Path, tmp_path: Path
) -> None:
    layout = Layout.at(site_copy, site_copy / ".private")
    build_site(layout, build=False)
    before = downloads(site_copy)
    assert "| reviewed |" in bank_row(site_copy, "live-003")
    assert "| draft |" in bank_row(site_copy, DRAFT)

    assert run(site_copy, "review", "build").exit_code == 0
    page = site_copy / ".private" / "review" / "review-v1.2-01.html"
    saved = save_review(browser, page, tmp_path)
    assert saved.name == "review-v1.2-01.json"
    ReviewFile.model_validate_json(saved.read_bytes())

    result = run(site_copy, "review", "apply", str(saved), "--reviewer", REVIEWER, "--on", ON)
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"{saved}: 1 sign-off appended to bank/status.jsonl, 1 disagreement recorded, "
        "1 item skipped\n"
    )
    build_site(layout, build=False)
    after = downloads(site_copy)
    changed = {name for name in before if after.get(name) != before[name]}
    assert changed <= GROWS, sorted(changed - GROWS)
    assert {"SHA256SUMS", "changelog.md"} <= changed  # the check above can fail
    assert set(after) - set(before) <= GROWS
    for name in ("bank_v1_public.jsonl", "bank_v1_1_public.jsonl", "bank_v1_2_public.jsonl"):
        assert after[name] == before[name], name
    row = bank_row(site_copy, "live-003")
    assert "| validated |" in row
    assert f"validated: {REVIEWER}, {ON} (recorded after publication)" in row
    assert "| draft |" in bank_row(site_copy, DRAFT)  # a disagreement climbs nothing
    assert b"Say which country" in after["bank/disagreements.jsonl"]

    # The next page is built from the new status: live-003 is done, the draft still waits.
    assert run(site_copy, "review", "build").exit_code == 0
    rebuilt = page.read_text("utf-8")
    assert 'data-item="live-003"' not in rebuilt
    assert f'data-item="{DRAFT}" data-seen="draft"' in rebuilt
    assert "disagreement</span> 2026-12-01 by <bdi>M. Lindqvist</bdi>" in rebuilt
