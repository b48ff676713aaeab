"""The anchor probe on the pages: an anchor's jury card and the site's jury page show when,
liveness, latency and reasoning burn from the registered figure; untrusted text in a
probe stays text; an anchor without a probe says so."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from generator import figures
from generator.anchors import shown_time, summarise
from generator.cli import main
from generator.figures import load_registry
from generator.models.anchors import AnchorProbe
from generator.models.volume import Volume
from generator.site.jury import jury_page
from generator.site.published import PublishedVolume
from generator.store import Layout

VOL = "vol-002"
PROBES = f"bundles/{VOL}/anchor_probes.jsonl"
HOSTILE = '<script>alert("probe")</script>'


def _render(root: Path) -> Path:
    figures.write(Layout.at(root, root / ".private"), VOL)
    result = CliRunner().invoke(
        main, ["--root", str(root), "render", VOL, "--no-pdf"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return root / "site_src" / "volumes" / VOL / "jury"


def _site(root: Path) -> str:
    volume = Volume.model_validate(
        yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))
    )
    registry = load_registry(Layout.at(root, root / ".private")).figures
    mine = {k: v for k, v in registry.items() if k.startswith(f"{VOL}/")}
    return jury_page(PublishedVolume(volume, mine, {}))


def _section(html: str) -> str:
    return html.split('<section id="anchor-probe">', 1)[1].split("</section>", 1)[0]


def test_each_anchor_card_shows_its_probe(figured: Path) -> None:
    lines = (figured / PROBES).read_text("utf-8").splitlines()
    probes = {p.anchor: p for p in (AnchorProbe.model_validate_json(x) for x in lines)}
    harrow = probes["demo-harrow/harrow-ref-2"]
    rows = [json.loads(x) for x in lines]
    for row in rows:
        if row["anchor"] == harrow.anchor:
            row["ran_by"] = HOSTILE
    (figured / PROBES).write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    cards = _render(figured)
    for slug, api in (
        ("demo-fjord-fjord-ref-1", "demo-fjord/fjord-ref-1"),
        ("demo-harrow-harrow-ref-2", harrow.anchor),
    ):
        s = summarise(probes[api])
        section = _section((cards / f"{slug}.html").read_text("utf-8"))
        assert f"<dt>When</dt><dd>{shown_time(probes[api].probed_at)}, run by" in section
        assert f"<dt>Liveness</dt><dd><strong>live</strong>: {s.answered_text()}</dd>" in section
        assert f"<dt>Latency</dt><dd>{s.latency_text()} over the answered calls</dd>" in section
        assert f"<dt>Reasoning burn</dt><dd>{s.reasoning_text()}</dd>" in section
        assert "Demonstration data" in section
    fjord = _section((cards / "demo-fjord-fjord-ref-1.html").read_text("utf-8"))
    assert "<dd>not reported by provider</dd>" in fjord
    harrow_card = (cards / "demo-harrow-harrow-ref-2.html").read_text("utf-8")
    assert "<script" not in harrow_card
    assert "<bdi>&lt;script&gt;alert(&#34;probe&#34;)&lt;/script&gt;</bdi>" in harrow_card
    # A candidate's card has no anchor probe.
    assert 'id="anchor-probe"' not in (cards / "demo-aurora-aurora-7b-chat.html").read_text()
    site = _site(figured)
    assert "## Anchor probes" in site and "<script" not in site
    table = site.split("## Anchor probes", 1)[1].split("## Agreement", 1)[0]
    rows_shown = [r for r in table.splitlines() if r.startswith("| `")]
    assert [r.split(" | ")[:2] for r in rows_shown] == [
        ["| `demo-fjord/fjord-ref-1`", "anchor"],
        ["| `demo-harrow/harrow-ref-2`", "anchor"],
        ["| `demo-ibis/ibis-ref-0`", "not chosen"],
    ]
    assert "not live: 0 of 5 calls answered" in rows_shown[2]


def test_an_anchor_without_a_probe_says_so(figured: Path) -> None:
    (figured / PROBES).unlink()
    cards = _render(figured)
    card = (cards / "demo-fjord-fjord-ref-1.html").read_text("utf-8")
    assert "<strong>No probe is recorded for this anchor</strong>" in _section(card)
    # The registry declares the figure absent and the page states why.
    assert (
        "No probe taken before their runs is recorded for anchors demo-fjord/fjord-ref-1, "
        "demo-harrow/harrow-ref-2: nothing shows they were live when they were chosen."
    ) in card
    site = _site(figured)
    assert "| `demo-fjord/fjord-ref-1` | anchor | no probe recorded |" in site
