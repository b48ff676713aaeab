"""The built site as a reader gets it: every internal link resolves, nothing held out."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from generator.gates import GateContext
from generator.gates.holdout import ignored, secrets
from generator.leaks import LeakIndex, scan_paths
from generator.store import load_volume
from generator.store.jsonl import Problems
from tests.site.conftest import Built

LINK_ATTRS = {"href", "src"}


class _Links(HTMLParser):
    """Collects every href and src, and every id, of one HTML file."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in LINK_ATTRS and value is not None:
                self.links.append(value)
            if name == "id" and value:
                self.ids.add(value)


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text("utf-8"))
    return parser


def broken_links(site: Path) -> list[str]:
    """``page: link`` for every internal link that does not resolve (and every external one)."""
    parsed = {p.resolve(): _parse(p) for p in sorted(site.rglob("*.html"))}
    broken = []
    site = site.resolve()
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme in ("mailto", "data") or link.startswith("javascript:"):
                continue
            if parts.scheme or parts.netloc:
                broken.append(f"{page.relative_to(site)}: external {link}")
                continue
            path = unquote(parts.path)
            # Root-relative links (only 404.html has them: it is served at any depth).
            base = site if path.startswith("/") else page.parent
            target = (base / path.lstrip("/")).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site.resolve() not in target.parents:
                broken.append(f"{page.relative_to(site)}: {link}")
            elif (
                parts.fragment
                and target in parsed
                and unquote(parts.fragment) not in parsed[target].ids
            ):
                broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return broken


def test_every_internal_link_resolves(built: Built) -> None:
    pages = list(built.site.rglob("*.html"))
    assert len(pages) >= 13 + 16  # the site's pages and the frozen leaderboards and cards
    assert broken_links(built.site) == []


def test_the_link_check_finds_a_broken_link(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<a href="missing.html">x</a><a href="#nope">y</a><img src="https://example.org/i.png">',
        encoding="utf-8",
    )
    assert broken_links(site) == [
        "index.html: missing.html",
        "index.html: #nope (no such anchor)",
        "index.html: external https://example.org/i.png",
    ]


@dataclass(frozen=True)
class Secrets:
    """vol-002 as the holdout gate reads it, and the leak index of its held-out text."""

    ctx: GateContext
    index: LeakIndex


@pytest.fixture(scope="module")
def held_out(built: Built) -> Secrets:
    """Read vol-002 and index its secrets once for the module's two scans."""
    ctx = GateContext(load_volume(built.layout, "vol-002"))
    unreadable = Problems()
    # The gate's rule (``holdout.ignored``): public items' texts are never secrets, nor is
    # a held-out response's text that public items' draws in the bundles publish as well.
    index = LeakIndex.build(secrets(ctx, unreadable), ignore=ignored(ctx))
    assert ctx.data.bank.private, "the example's private store was not read"
    assert not unreadable.items, unreadable.items
    return Secrets(ctx, index)


def test_no_held_out_text_appears_in_the_built_site(built: Built, held_out: Secrets) -> None:
    leaks = scan_paths(held_out.index, [built.site], root=built.root)
    assert [f"{leak.source}: {leak.secret_key}" for leak in leaks] == []


def test_the_scan_would_find_held_out_text(held_out: Secrets, tmp_path: Path) -> None:
    item = sorted(held_out.ctx.data.bank.private.values(), key=lambda i: i.id)[0]
    prompt = item.prompt if isinstance(item.prompt, str) else item.prompt[-1].content
    leaked = tmp_path / "site" / "page.html"
    leaked.parent.mkdir()
    leaked.write_text(f"<p>{prompt}</p>", encoding="utf-8")
    assert [leak.secret_key for leak in scan_paths(held_out.index, [leaked.parent])] == [
        f"item:{item.id}"
    ]
