"""One style for numbers and signs on every rendered page (issue 17, defect 10):
"−" for minus beside "+", never the hyphen-minus; no sign on zero."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from generator import figures
from generator.figures import GENERATOR
from generator.numbers import MINUS, reading, signs_misused
from generator.render.pages import render_pages
from generator.render.provenance import provenance
from generator.store import Layout, load_volume


class _Text(HTMLParser):
    """The text a reader sees as the tool's own: no tags, attributes, styles, code
    samples, or quoted material (``div.text``: prompts, responses, evidence are shown as
    they were written, and the guide is not applied to them)."""

    SKIPPED = frozenset({"style", "script", "code", "pre", "title"})

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping: str | None = None  # the tag whose contents are being skipped
        self.depth = 0  # nesting of that tag inside itself

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping is not None:
            self.depth += tag == self.skipping
            return
        classes = (dict(attrs).get("class") or "").split()
        if tag in self.SKIPPED or (tag == "div" and "text" in classes):
            self.skipping, self.depth = tag, 1

    def handle_endtag(self, tag: str) -> None:
        if tag == self.skipping:
            self.depth -= 1
            if not self.depth:
                self.skipping = None

    def handle_data(self, data: str) -> None:
        if self.skipping is None:
            self.parts.append(data)


def _visible(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def test_reading_writes_signs_only() -> None:
    assert reading("-0.5 pts (narrow interval -2.7 pts to +1.2 pts)") == (
        f"{MINUS}0.5 pts (narrow interval {MINUS}2.7 pts to +1.2 pts)"
    )
    for kept in ("vol-001", "2026-01-05", "demo-aurora-7b", "A - B", "x-1"):
        assert reading(kept) == kept
    assert signs_misused("a -3 b") and signs_misused(f"{MINUS}0.0 pts")
    assert not signs_misused(f"{MINUS}0.5 and 10 − 7 and vol-002")


def test_every_frozen_page_writes_minus_as_the_guide_says(root: Path) -> None:
    layout = Layout.at(root, root / ".private")
    registry = figures.load_registry(layout).figures
    negative = 0
    for volume in ("vol-001", "vol-002"):
        data = load_volume(layout, volume, private=False)
        mine = {k: v for k, v in registry.items() if k.startswith(f"{volume}/")}
        negative += sum(re.match(r"-\d", f.display) is not None for f in mine.values())
        for page in render_pages(data, mine, provenance(data, GENERATOR)):
            text = _visible(page.html.decode("utf-8"))
            assert not signs_misused(text), (page.path, signs_misused(text)[:5])
    assert negative > 0  # the example has negative figures: the test sees them printed
