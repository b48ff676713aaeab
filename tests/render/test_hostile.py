"""Hostile text in responses, evidence, prompts and names renders inert and legible."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import yaml
from pypdf import PdfReader

from generator import figures
from generator.figures.tally import panel_majority
from generator.models.records import MAX_RESPONSE
from generator.render import render_volume
from generator.render.environment import PACKAGE_TEMPLATES, make_environment
from generator.render.pdf import PdfJob, render_pdfs
from generator.render.text import RESPONSE_LIMIT, clip, neutralise
from generator.store import Layout, load_volume
from generator.store.bank import item_text_sha256
from generator.store.bundle import DrawKey
from tests.factories import edit_json, edit_lines
from tests.render.inert import external, inspect

SLUG = "demo-aurora-aurora-7b-chat"
VOL = "vol-001"
PAYLOAD = (
    '<script>alert("r")</script></style><img src=x onerror=alert(1)>'
    '<a href="javascript:alert(2)">click</a>'
    '<svg onload=alert(3)><circle r="9" onclick="alert(4)"/></svg>'
    "<!-- hidden --><style>body{background:url(https://evil.example/x.png)}</style>"
    " left\u202eright\u202c and \u2066isolate\u2069 end 漢字 😀"
)
NAME = '<script>alert("n")</script>\u202eemaN evil'
GATEWAY = '"><img src=x onerror=alert(5)>'
RUNNER = "javascript:alert(6)//<b>"


def _public_disagreements(root: Path) -> list[DrawKey]:
    data = load_volume(Layout.at(root, root / ".private"), VOL, private=False)
    bundle = data.bundles[SLUG]
    verdicts = {v.key: v.verdict for v in bundle.verdicts}
    return sorted(
        k
        for k, m in panel_majority(bundle).items()
        if m is not None
        and verdicts.get(k) in ("pass", "fail")
        and verdicts[k] != m
        and not data.bank.is_heldout(k.item)
    )


def _make_hostile(root: Path) -> DrawKey:
    """Plant hostile text everywhere a page shows untrusted text; return the long draw."""
    keys = _public_disagreements(root)
    assert keys, "the example needs a public disagreement"
    long_key = keys[0]
    directory = root / "bundles" / VOL / SLUG
    wanted = {(k.item, k.half, k.draw) for k in keys}

    def draws(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        for row in rows:
            key = (row["item"], row["half"], row["draw"])
            if key in wanted and row.get("response") is not None:
                row["response"] = PAYLOAD
                if key == tuple(long_key):
                    row["response"] = (PAYLOAD + "A" * MAX_RESPONSE)[:MAX_RESPONSE]
        return rows

    def verdicts(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        for row in rows:
            if (row["item"], row["half"], row["draw"]) in wanted:
                row["evidence"] = PAYLOAD[:300]
        return rows

    edit_lines(directory, "draws.jsonl", draws)
    edit_lines(directory, "verdicts.jsonl", verdicts)

    def manifest(data: dict[str, object]) -> None:
        data["candidate"]["display_name"] = NAME  # type: ignore[index]
        data["endpoint"]["gateway"] = GATEWAY  # type: ignore[index]
        data["runner"]["name"] = RUNNER  # type: ignore[index]

    edit_json(directory / "bundle.json", manifest)
    volume_file = root / "bundles" / VOL / "volume.yaml"
    volume = yaml.safe_load(volume_file.read_text("utf-8"))
    for ref in volume["candidates"]:
        if ref["api"] == "demo-aurora/aurora-7b-chat":
            ref["display_name"] = NAME
    volume_file.write_text(yaml.safe_dump(volume, allow_unicode=True, sort_keys=False), "utf-8")
    public = root / "bank" / "public.jsonl"
    items = [json.loads(line) for line in public.read_text("utf-8").splitlines()]
    for item in items:
        if item["id"] == long_key.item:
            item["prompt"] = "Prompt " + PAYLOAD
            item["text_sha256"] = item_text_sha256(
                item["prompt"], item["pass_criterion"], item.get("check")
            )
    public.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), "utf-8")
    return long_key


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_hostile_text_is_inert_and_legible_in_html_and_pdf(figured: Path) -> None:
    layout = Layout.at(figured, figured / ".private")
    long_key = _make_hostile(figured)
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
