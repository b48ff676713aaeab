""" "What it gets wrong" and the rubric lines on the jury cards, linked from the
leaderboard's "What models get wrong": public texts shown and escaped, held-out items by
id only, and the leak scan reads them."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.render.run import render_volume
from generator.store import Layout
from tests.conftest import CliRun
from tests.factories import bundle_dir, edit_lines, git_commit_all

VOL = "vol-002"


def _render(root: Path) -> Path:
    render_volume(Layout.at(root, root / ".private"), VOL, pdf=False, draft=True)
    return root / "site_src" / "volumes" / VOL


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def _section(page: Path, name: str) -> str:
    text = page.read_text("utf-8")
    start = text.index(f'<section id="{name}"')
    return text[start : text.index("</section>", start)]


def _public_responses(root: Path) -> set[str]:
    """The responses the volume's bundles publish: those of draws of public items."""
    public = {r["id"] for r in _jsonl(root / "bank" / "public.jsonl")}
    return {
        row["response"]
        for path in (root / "bundles" / VOL).glob("*/draws.jsonl")
        for row in _jsonl(path)
        if row["item"] in public and row.get("response")
    }


def _heldout_texts(root: Path) -> list[str]:
    """Every held-out prompt, criterion, rubric line and response of the volume, except a
    held-out response whose whole text is also a public item's response in one of the
    volume's bundles (the always-refuse baseline's one refusal): published verbatim
    anyway, it tells an outsider nothing about the held-out item. The holdout gate's
    leak scan ignores such a response likewise (``generator.leaks.public``)."""
    texts = []
    for item in _jsonl(root / ".private" / "heldout_items.jsonl"):
        prompt = item["prompt"]
        texts += [prompt] if isinstance(prompt, str) else [m["content"] for m in prompt]
        texts.append(item["pass_criterion"])
        texts += [line["text"] for line in (item.get("rubric") or {}).get("lines", [])]
    published = _public_responses(root)
    for path in (root / ".private" / "responses" / VOL).glob("*.jsonl"):
        texts += [r["text"] for r in _jsonl(path) if r["text"] not in published]
    return [t for t in texts if len(t.strip()) >= 12]


def _ranked(root: Path) -> set[str]:
    """Slugs of the volume's ranked bundles (candidates and anchors, not baselines)."""
    slugs = set()
    for path in (root / "bundles" / VOL).glob("*/bundle.json"):
        if json.loads(path.read_text("utf-8"))["candidate"]["role"] != "baseline":
            slugs.add(path.parent.name)
    return slugs


def _figures(root: Path) -> dict[str, dict[str, Any]]:
    figures: dict[str, dict[str, Any]] = json.loads(
        (root / "figures" / "figures.json").read_text("utf-8")
    )["figures"]
    return figures


def test_the_leaderboard_links_each_ranked_model_to_its_failures(root: Path) -> None:
    """One line per ranked model, linking to its jury card's section; no failure figure
    and no response excerpt on the leaderboard itself (its size is bounded by a line a
    candidate, not by ten rows of excerpts)."""
    pages = _render(root)
    wrong = _section(pages / "leaderboard.html", "wrong")
    ranked = _ranked(root)
    links = re.findall(r'<li><a href="jury/([^"#]+)\.html#wrong">', wrong)
    assert sorted(links) == sorted(ranked) and len(links) == len(set(links))
    assert wrong.count("<li>") == len(ranked)
    assert "<table" not in wrong and 'class="text"' not in wrong
    failed = {
        f["detail"]["item"]
        for fid, f in _figures(root).items()
        if fid.startswith(f"{VOL}/") and "/wrong/" in fid
    }
    assert failed and not {item for item in failed if item in wrong}


def test_public_failures_show_criterion_and_excerpt_held_out_ones_only_ids(root: Path) -> None:
    pages = _render(root)
    figures = _figures(root)
    ranked = _ranked(root)
    slugs = {p.name for p in (root / "bundles" / VOL).iterdir() if p.is_dir()}
    assert ranked and slugs - ranked  # the example has ranked models and baselines
    public = {r["id"]: r for r in _jsonl(root / "bank" / "public.jsonl")}
    heldout = set()
    for slug in sorted(slugs):
        card = (pages / "jury" / f"{slug}.html").read_text("utf-8")
        # Baselines are never ranked or compared: their cards list no failures.
        assert ('<section id="wrong"' in card) == (slug in ranked), slug
        if slug not in ranked:
            continue
        wrong = _section(pages / "jury" / f"{slug}.html", "wrong")
        listed = [f for fid, f in figures.items() if fid.startswith(f"{VOL}/{slug}/wrong/")]
        assert listed, slug
        shown = html.unescape(wrong)
        for f in listed:
            assert f["display"] in shown and f["detail"]["item"] in shown
            heldout |= {f["detail"]["item"]} if f["detail"]["heldout"] else set()
            item = public.get(f["detail"]["item"])
            if item is not None and "line" not in f["detail"]:
                assert item["pass_criterion"] in shown
    assert heldout  # held-out failures are listed too
    cards = "".join(p.read_text("utf-8") for p in (pages / "jury").glob("*.html"))
    assert "Held-out item: its criterion and responses are not published." in cards
    assert "Held-out item: its rubric and responses are not published." in cards


def test_no_held_out_text_reaches_the_leaderboard_or_a_jury_card(root: Path) -> None:
    pages = _render(root)
    secrets = _heldout_texts(root)
    assert secrets
    for page in [pages / "leaderboard.html", *sorted((pages / "jury").glob("*.html"))]:
        shown = html.unescape(page.read_text("utf-8"))
        leaked = [s[:40] for s in secrets if s in shown]
        assert not leaked, (page.name, leaked)


def test_jury_cards_list_each_rubric_line_with_its_met_rate(root: Path) -> None:
    pages = _render(root)
    figures = _figures(root)
    public = {r["id"]: r for r in _jsonl(root / "bank" / "public.jsonl")}
    for card in sorted((pages / "jury").glob("*.html")):
        section = html.unescape(_section(card, "rubric-lines"))
        prefix = f"{VOL}/{card.stem}/rubric/line/"
        ours = [f for fid, f in figures.items() if fid.startswith(prefix)]
        assert ours
        for f in ours:
            item, line = f["detail"]["item"], f["detail"]["line"]
            row = re.search(
                rf"<tr><td[^>]*>{re.escape(item)}.*?<td class=\"mono\">{re.escape(line)}</td>"
                r"(.*?)</tr>",
                section,
                re.S,
            )
            assert row is not None, (card.name, item, line)
            assert f["display"] in row.group(1)
            if item in public:
                text = next(x["text"] for x in public[item]["rubric"]["lines"] if x["id"] == line)
                assert text in row.group(1)
            else:
                assert "held out: not published" in row.group(1)


def _first_public_example(root: Path) -> tuple[str, str, int, str]:
    """(slug, item, half, draw) of a public failing draw the page quotes."""
    ranked = _ranked(root)  # a baseline's failures are not on the page
    for fid, f in sorted(_figures(root).items()):
        parts = fid.split("/")
        slug = parts[1] if len(parts) > 1 else ""
        wrong = fid.startswith(f"{VOL}/{slug}/wrong/item/") and slug in ranked
        if wrong and "example" in f["detail"]:
            example = f["detail"]["example"]
            return slug, f["detail"]["item"], example[0], int(example[1:])
    raise AssertionError("no public failing draw in the example")


def test_a_hostile_failing_response_is_shown_as_text(root: Path, cli: CliRun) -> None:
    slug, item, half, draw = _first_public_example(root)
    hostile = '<script>alert("owned")</script><img src=x onerror=alert(1)> \u202egnp.exe'

    def poison(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in rows:
            if (row["item"], row["half"], row["draw"]) == (item, half, draw):
                row["response"] = hostile
        return rows

    edit_lines(bundle_dir(root, slug, VOL), "draws.jsonl", poison)
    assert cli("figures", VOL).exit_code == 0
    wrong = _section(_render(root) / "jury" / f"{slug}.html", "wrong")
    assert "<script" not in wrong and "<img" not in wrong
    assert "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;" in wrong
    assert "[U+202E]gnp.exe" in wrong and "\u202e" not in wrong


@pytest.mark.parametrize("planted", [False, True])
def test_the_leak_scan_reads_the_section(root: Path, cli: CliRun, planted: bool) -> None:
    slug = _first_public_example(root)[0]
    page = _render(root) / "jury" / f"{slug}.html"
    secret = max(_heldout_texts(root), key=len)
    if planted:  # as a bug that quoted a held-out response in the section would
        text = page.read_text("utf-8")
        marker = '<section id="wrong" class="wide">'
        page.write_text(text.replace(marker, f"{marker}<p>{html.escape(secret)}</p>"), "utf-8")
    git_commit_all(root, "rendered")
    result = cli("--no-cache", "gate", "holdout", VOL, "--json")
    report = json.loads(result.stdout)
    gate = next(g for g in report["gates"] if g["gate"] == "holdout")
    on_page = [f for f in gate["findings"] if f["path"].endswith(f"{VOL}/jury/{slug}.html")]
    assert bool(on_page) == planted, on_page
    if planted:
        assert on_page[0]["rule"].startswith("leak-")
