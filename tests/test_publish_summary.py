"""What ``publish`` says it wrote: files counted by kind, never a bare number."""

from __future__ import annotations

from generator.publish import PublishResult, written


def test_a_draft_that_changed_only_the_site_says_no_frozen_page_changed() -> None:
    changed = ("site/index.html", "site/search/search_index.json", "figures/figures.json")
    result = PublishResult(("vol-001",), changed, noop=False, draft=True)
    assert result.summary() == (
        "vol-001: draft complete; written: no frozen page, 1 registry, 2 built site files"
    )


def test_pages_pdfs_and_downloads_are_counted_apart_and_removals_named() -> None:
    changed = (
        "site_src/volumes/vol-001/leaderboard.html",
        "site_src/volumes/vol-001/leaderboard.pdf",
        "site_src/volumes/vol-001/jury/a.html",
        "site_src/downloads/SHA256SUMS",
        "site_src/volumes/vol-001/old.pdf",
    )
    result = PublishResult(("vol-001",), changed, noop=False, draft=False, removed=(changed[-1],))
    assert result.summary() == (
        "vol-001: publication complete; written: 2 frozen pages, 1 PDF, 1 download; 1 file removed"
    )
    assert written(()) == "no frozen page"
