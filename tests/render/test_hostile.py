"""Hostile text in responses, evidence, prompts and names renders inert and legible."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pypdf import PdfReader

from generator import figures
from generator.models.records import MAX_RESPONSE
from generator.render import render_volume
from generator.render.environment import PACKAGE_TEMPLATES, make_environment
from generator.render.pdf import PdfJob, render_pdfs
from generator.render.text import RESPONSE_LIMIT, clip, neutralise
from generator.store import Layout
from tests.render.hostile import GATEWAY, NAME, PAYLOAD, RUNNER, SLUG, VOL, make_hostile
from tests.render.inert import external, inspect


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_hostile_text_is_inert_and_legible_in_html_and_pdf(figured: Path) -> None:
    layout = Layout.at(figured, figured / ".private")
    long_key = make_hostile(figured)
    figures.write(layout, VOL)
    render_volume(layout, VOL, pdf=False)
    volume_dir = figured / "site_src" / "volumes" / VOL
    card = volume_dir / "jury" / f"{SLUG}.html"
    board = volume_dir / "leaderboard.html"
    for page, svgs in ((card, 0), (board, 1)):
        raw = page.read_bytes()
        found = inspect(raw)
        assert found.count("script") == 0 and found.count("img") == 0, page.name
        assert found.count("style") == 1 and found.count("svg") == svgs, page.name
        assert not found.handlers and not found.comments, page.name
        assert all(not external(url) for _, _, url in found.urls), found.urls
        text = "".join(found.text)
        # Legible: the name is printed as text, bidi controls made visible, never raw.
        assert neutralise(NAME) in text
        assert "[U+202E]" in text and "\u202e" not in raw.decode("utf-8")
        assert "<bdi>&lt;script&gt;alert(&#34;n&#34;)&lt;/script&gt;[U+202E]emaN" in raw.decode()
    card_text = "".join(inspect(card.read_bytes()).text)
    assert neutralise(PAYLOAD) in card_text
    assert GATEWAY in card_text and RUNNER in "".join(inspect(board.read_bytes()).text)
    note = f"the first {RESPONSE_LIMIT} of {MAX_RESPONSE} characters are shown"
    assert note in card_text
    assert card.stat().st_size < 200_000, "a long response is clipped, not copied whole"
    assert f'id="d-{long_key.item}-{long_key.half}-{long_key.draw}"' in card.read_text()

    jobs = [
        PdfJob(p.stem, p.read_bytes(), hashlib.sha256(p.read_bytes()).hexdigest(), 0, False)
        for p in (card, board)
    ]
    pdfs = render_pdfs(jobs, workers=2)
    for name, data in pdfs.items():
        pdf_path = figured / f"{name}.pdf"
        pdf_path.write_bytes(data)
        reader = PdfReader(pdf_path)
        text = "\n".join(page.extract_text() for page in reader.pages)
        assert "\u202e" not in text and "[U+202E]" in text, name
        assert _squash('<script>alert("n")</script>[U+202E]emaN') in _squash(text), name
        if name == card.stem:
            assert _squash(neutralise(PAYLOAD)) in _squash(text)
            assert _squash(note) in _squash(text)
            # The 2,000-character run wraps inside the page instead of running off it.
            longest = max(len(line) for line in text.splitlines())
            assert longest < 200, longest
            assert "A" * 100 in _squash(text)


def test_a_megabyte_line_is_clipped_and_wraps() -> None:
    env = make_environment(PACKAGE_TEMPLATES)
    line = "x" * 1_000_000
    html = env.from_string(
        '{% import "macros.html" as m %}{{ m.text_block(t, "Response") }}'
    ).render(t=clip(line))
    assert len(html) < RESPONSE_LIMIT + 1_000
    assert f"the first {RESPONSE_LIMIT} of 1000000 characters are shown" in html
    css = (PACKAGE_TEMPLATES / "page.css").read_text("utf-8")
    rule = re.search(r"^\.text \{[^}]*\}", css, re.MULTILINE)
    assert rule is not None and "overflow-wrap: anywhere" in rule.group(0)
    assert "white-space: pre-wrap" in rule.group(0)
