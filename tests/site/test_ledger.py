"""The status ledger on the site: a climb after publication is accepted by ``site`` and
the holdout gate while every published download keeps its bytes; an edited published
ledger line is refused by both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.errors import CheckFailed
from generator.site import build_site
from generator.store import Layout
from tests.site.conftest import rendered

BANK = "probepress example bank (demonstration data)"


@pytest.fixture(scope="session")
def rendered_src(example_vol002_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rendered example as of vol-002: live-003 still reviewed, no ledger yet."""
    return rendered(tmp_path_factory, example_vol002_src, "site-rendered-vol-002")


def _run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["--root", str(root), "--private", str(root / ".private"), *args]
    )


def _promote(root: Path, item: str, seen: str, reviewer: str, on: str) -> Result:
    doc = {
        "bank": BANK,
        "bank_version": "v1.2",
        "batch": "v1.2-01",
        "decisions": [{"item": item, "seen_status": seen, "decision": "sign-off"}],
    }
    path = root / "review.json"
    path.write_text(json.dumps(doc), "utf-8")
    return _run(root, "review", "apply", str(path), "--reviewer", reviewer, "--on", on)


def _downloads(root: Path) -> dict[str, bytes]:
    folder = root / "site_src" / "downloads"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("bank_*_public.jsonl"))}


def test_a_climb_after_publication_keeps_every_download(site_copy: Path) -> None:
    layout = Layout.at(site_copy, site_copy / ".private")
    build_site(layout, build=False)
    before = _downloads(site_copy)
    figures_before = (site_copy / "figures" / "figures.json").read_bytes()
    result = _promote(site_copy, "live-003", "reviewed", "M. Lindqvist", "2026-12-01")
    assert result.exit_code == 0, result.output
    build_site(layout, build=False)
    assert _downloads(site_copy) == before
    shipped = site_copy / "site_src" / "downloads" / "bank" / "status.jsonl"
    assert shipped.read_bytes() == (site_copy / "bank" / "status.jsonl").read_bytes()
    registry = json.loads((site_copy / "figures" / "downloads.json").read_text("utf-8"))
    assert registry["ledgers"]["bank/status.jsonl"]["through"] == "2026-11-25"
    page = (site_copy / "site_src" / "downloads" / "changelog.md").read_text("utf-8")
    row = next(x for x in page.splitlines() if x.startswith("| `live-003`"))
    assert "| validated |" in row
    assert "validated: M. Lindqvist, 2026-12-01 (recorded after publication)" in row
    gate = _run(site_copy, "gate", "holdout", "vol-002")
    assert gate.exit_code == 0, gate.output
    assert "download-content" not in gate.output
    # vol-002 counts the status on its publication date: its figures do not move.
    assert _run(site_copy, "figures", "vol-002").exit_code == 0
    assert (site_copy / "figures" / "figures.json").read_bytes() == figures_before


def test_an_edited_published_ledger_line_is_refused(site_copy: Path) -> None:
    layout = Layout.at(site_copy, site_copy / ".private")
    assert _promote(site_copy, "live-003", "reviewed", "M. Lindqvist", "2026-12-01").exit_code == 0
    build_site(layout, build=False)
    ledger = site_copy / "bank" / "status.jsonl"
    ledger.write_text(ledger.read_text("utf-8").replace("M. Lindqvist", "J. Doe"), "utf-8")
    with pytest.raises(CheckFailed) as caught:
        build_site(layout, build=False)
    [problem] = caught.value.problems
    assert (problem.path, problem.rule) == ("bank/status.jsonl", "ledger-changed")
    assert problem.message.startswith("the ledger's published lines (")
    assert problem.message.endswith("were edited, removed or cut: it is append-only")
    gate = _run(site_copy, "gate", "holdout", "vol-002")
    assert gate.exit_code == 1
    assert "error: bank/status.jsonl: the ledger's published lines (" in gate.output
    assert (
        "were edited, removed or cut: it is append-only [holdout/ledger-changed]; fix: the "
        "ledgers only grow: restore the published lines and append after them"
    ) in gate.output


def test_a_line_appended_with_a_date_before_a_published_volume_is_refused(
    site_copy: Path,
) -> None:
    layout = Layout.at(site_copy, site_copy / ".private")
    assert _promote(site_copy, "live-003", "reviewed", "M. Lindqvist", "2026-12-01").exit_code == 0
    build_site(layout, build=False)  # registers the ledger with vol-002's date
    backdated = {
        "bank_version": "v1.2",
        "by": "J. Doe",
        "item": "premise-004",
        "on": "2026-11-20",
        "status": "reviewed",
    }
    with (site_copy / "bank" / "status.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(backdated) + "\n")
    with pytest.raises(CheckFailed) as caught:
        build_site(layout, build=False)
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.rule) == (
        "bank/status.jsonl",
        2,
        "ledger-backdated",
    )
    assert problem.message == (
        "appended after publication but dated 2026-11-20, not after 2026-11-25 (the latest "
        "published volume's date): it would change that volume's figures"
    )
