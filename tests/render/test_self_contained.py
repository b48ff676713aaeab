"""Every frozen page is self-contained, script-free, strictly policed and well formed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.render.environment import PACKAGE_TEMPLATES
from tests.render.inert import LOADING_TAGS, external, inspect

STRICT = {
    "default-src": "'none'",
    "img-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}


def _pages(root: Path) -> list[Path]:
    return sorted((root / "site_src" / "volumes").rglob("*.html"))


def test_pages_are_self_contained_and_policed(rendered: Path) -> None:
    pages = _pages(rendered)
    # Leaderboard + a jury card per bundle (candidates and the 2 baselines).
    assert len(pages) == (1 + 6 + 2) + (1 + 8 + 2)
    for page in pages:
        raw = page.read_bytes()
        found = inspect(raw)
        where = page.relative_to(rendered).as_posix()
        assert found.doctype.lower() == "doctype html", where
        assert not LOADING_TAGS & set(found.tags), (where, LOADING_TAGS & set(found.tags))
        assert found.count("style") == 1, where
        assert not found.handlers, (where, found.handlers)
        assert not found.style_attributes, (where, found.style_attributes)
        assert not found.comments, (where, found.comments)
        for tag, name, url in found.urls:
            assert tag == "a" and name == "href" and not external(url), (where, tag, name, url)
            assert not url.startswith("#") or len(url) > 1
        # Data may mention URLs as text; only markup and CSS could load them.
        assert "url(" not in found.styles[0] and "@import" not in found.styles[0], where
        csp = dict([*part.strip().split(" ", 1), ""][:2] for part in found.csp().split(";") if part)
        for directive, value in STRICT.items():
            assert csp.get(directive) == value, (where, directive, csp)
        # The one style element is admitted by its hash; nothing else is.
        assert csp["style-src"] == f"'{found.style_hash()}'", where
        assert "unsafe" not in found.csp() and "script-src" not in found.csp()
        names = {m.get("name") for m in found.metas}
        assert {"viewport", "dcterms.created", "dcterms.modified", "generator"} <= names
        # The CSP meta comes before anything it must govern.
        assert raw.index(b"Content-Security-Policy") < raw.index(b"<style>")


def test_pages_are_utf8_with_unix_line_ends(rendered: Path) -> None:
    for page in _pages(rendered):
        raw = page.read_bytes()
        raw.decode("utf-8")
        assert b"\r" not in raw and raw.endswith(b"</html>\n")
        assert b"\t" not in raw


def test_every_jury_card_is_linked_from_its_leaderboard(rendered: Path) -> None:
    for volume in ("vol-001", "vol-002"):
        directory = rendered / "site_src" / "volumes" / volume
        found = inspect((directory / "leaderboard.html").read_bytes())
        links = {url for tag, _, url in found.urls if tag == "a"}
        cards = {f"jury/{p.name}" for p in (directory / "jury").glob("*.html")}
        assert cards and cards <= links
        assert "leaderboard.pdf" in links


@pytest.mark.parametrize(
    "pattern",
    [r"\|\s*safe\b", r"autoescape\s+false", r"Markup\(", r"\|\s*e\b", r"style=", r"<script"],
)
def test_templates_never_mark_data_safe(pattern: str) -> None:
    for template in sorted(PACKAGE_TEMPLATES.iterdir()):
        text = template.read_text("utf-8")
        assert not re.search(pattern, text), f"{template.name} matches {pattern!r}"


ARITHMETIC = re.compile(r"[\w)\]]\s*[-+*/%]\s*[\w(]|\|\s*(length|count|sum|round|int|float)\b")


def test_numbers_come_from_figures_not_template_arithmetic() -> None:
    """Templates print figures; they never do arithmetic or count things themselves."""
    for template in sorted(PACKAGE_TEMPLATES.glob("*.html")):
        text = template.read_text("utf-8")
        for match in re.finditer(r"\{\{-?(.*?)-?\}\}|\{%-?(.*?)-?%\}", text, re.DOTALL):
            code = re.sub(r'"[^"]*"|\'[^\']*\'', '""', match.group(1) or match.group(2))
            line = text.count("\n", 0, match.start()) + 1
            assert not ARITHMETIC.search(code), f"{template.name}:{line}: {code.strip()}"
