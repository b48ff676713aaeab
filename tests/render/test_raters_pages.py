"""Pages of a real benchmark's shape: human raters shown by id and affiliation with no
family, "qualification not run" with its reason, an all-public bank said to be one,
declared per-candidate conditions beside the candidate, and unknown run dates shown as
unknown — on the frozen leaderboard, the jury cards and the generated results pages."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner
from markupsafe import escape

from generator import figures
from generator.cli import main
from generator.figures import load_registry
from generator.models.volume import Volume
from generator.site.jury import jury_page
from generator.site.markup import text
from generator.site.published import PublishedVolume
from generator.site.results import results_page
from generator.store import Layout
from tests.factories import (
    NOT_RUN,
    add_adjudication,
    bundle_dir,
    declare_conditions,
    edit_json,
    forget_run_dates,
    human_panel,
)

VOL = "vol-001"
AURORA = "demo-aurora-aurora-7b-chat"


def _render(root: Path) -> None:
    figures.write(Layout.at(root, root / ".private"), VOL)
    result = CliRunner().invoke(
        main, ["--root", str(root), "render", VOL, "--no-pdf"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output


def _published(root: Path) -> PublishedVolume:
    layout = Layout.at(root, root / ".private")
    volume = Volume.model_validate(
        yaml.safe_load((root / "bundles" / VOL / "volume.yaml").read_text("utf-8"))
    )
    registry = load_registry(layout)
    mine = {k: v for k, v in registry.figures.items() if k.startswith(f"{VOL}/")}
    return PublishedVolume(volume, mine, {})


def test_human_raters_not_run_and_unknown_dates_on_every_page(figured: Path) -> None:
    human_panel(figured)
    add_adjudication(figured)
    forget_run_dates(figured, AURORA)
    own = {"temperature": "0.3"}
    declare_conditions(figured, AURORA, own)
    edit_json(bundle_dir(figured, AURORA) / "bundle.json", lambda m: m["conditions"].update(own))
    _render(figured)
    pages = figured / "site_src" / "volumes" / VOL
    board = (pages / "leaderboard.html").read_text("utf-8")
    card = (pages / "jury" / f"{AURORA}.html").read_text("utf-8")
    statement = f"Qualification not run: {escape(NOT_RUN)}."
    for html in (board, card):
        assert statement in html
        assert (
            '<bdi>annotator-1</bdi> <span class="tag">human</span> (<bdi>Example University</bdi>)'
            in html
        )
        assert "<bdi>adjudicator</bdi>" in html
    assert "unknown to unknown" in board and "unknown to unknown" in card
    assert "<td>none (human)</td>" in card
    assert "declared for this candidate" in board
    assert "<bdi>Aurora 7B Chat</bdi> (temperature 0.3)" in board
    site = results_page(_published(figured)) + jury_page(_published(figured))
    assert '!!! note "Qualification not run"' in site
    assert text(NOT_RUN) in site
    assert "annotator-1 (Example University) (human) | none (human) | not run" in site
    assert "| Aurora 7B Chat | `demo-aurora/aurora-7b-chat` | temperature 0.3 |" in site
    assert "| unknown |" in site


def test_an_all_public_bank_is_said_to_be_one(figured: Path) -> None:
    from tests.factories import all_public

    all_public(figured)
    layout = Layout.at(figured, figured / ".private")
    figures.write(layout, VOL)
    site = results_page(_published(figured))
    assert "This bank has no held-out items: every item is public." in site
    _render(figured)
    board = (figured / "site_src" / "volumes" / VOL / "leaderboard.html").read_text("utf-8")
    assert "0 held out (this bank has no held-out items: every item is public)" in board
