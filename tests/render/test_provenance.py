"""The footer's provenance, and pages that do not depend on git state or on where they
are rendered (the checkout, a copy, publish's staging directory inside the work tree)."""

from __future__ import annotations

import shutil
from pathlib import Path

from generator import fingerprints
from generator.render import render_volume
from generator.render.provenance import inputs_sha256
from generator.store import Layout, load_volume
from tests.factories import git_commit_all, reseal

VOL = "vol-001"
PAGES = Path("site_src/volumes/vol-001")


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private")


def _pages(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / PAGES).rglob("*.html"))
    }


def test_footer_prints_the_inputs_digest_bank_version_and_generator(rendered: Path) -> None:
    page = (rendered / PAGES / "leaderboard.html").read_text("utf-8")
    digest = inputs_sha256(load_volume(_layout(rendered), VOL, private=False))
    assert f"<code>sha256:{digest}</code>" in page
    assert "<dt>Bank version</dt><dd>v1</dd>" in page
    assert "<dt>Generator</dt><dd>probepress 0.1.0</dd>" in page
    assert "release manifest (release.json)" in page


def test_the_inputs_digest_covers_every_bundle_file(figured: Path) -> None:
    before = inputs_sha256(load_volume(_layout(figured), VOL, private=False))
    panel = figured / "bundles" / VOL / "demo-ember-ember-mini" / "panel.jsonl"
    panel.write_bytes(panel.read_bytes().replace(b'"vote":"pass"', b'"vote":"fail"', 1))
    reseal(panel.parent, "panel.jsonl")
    assert inputs_sha256(load_volume(_layout(figured), VOL, private=False)) != before


def test_pages_do_not_depend_on_git_state_or_location(figured: Path, tmp_path: Path) -> None:
    render_volume(_layout(figured), VOL, pdf=False)
    plain = _pages(figured)
    # The same root committed in git, rendered again after committing the outputs.
    git_commit_all(figured, "inputs and outputs")
    again = render_volume(_layout(figured), VOL, pdf=False)
    assert {f.action for f in again.files} == {"unchanged"}
    assert _pages(figured) == plain
    # A copy nested in that work tree, untracked (as publish's staging directory is).
    stage = figured / ".probepress-staging-test"
    shutil.copytree(figured, stage, ignore=shutil.ignore_patterns(".git", "site_src"))
    (stage / "figures" / "fingerprints.json").unlink()
    render_volume(Layout.at(stage, figured / ".private"), VOL, pdf=False)
    assert _pages(stage) == plain


def test_a_draft_says_so_and_registers_nothing(figured: Path) -> None:
    result = render_volume(_layout(figured), VOL, pdf=False, draft=True)
    assert result.draft and not result.registry_changed
    assert "DRAFT" in result.summary() and result.as_json()["draft"] is True
    assert not fingerprints.load_frozen(_layout(figured))
    for page in _pages(figured).values():
        assert b'<p class="draft">DRAFT: built from a working tree' in page
        assert b"<title>DRAFT: " in page
    # The real render afterwards is not blocked by the draft, and has no watermark.
    render_volume(_layout(figured), VOL, pdf=False)
    assert all(b'class="draft"' not in page for page in _pages(figured).values())
    # The leaderboard and a jury card for each of 6 candidates and 2 baselines.
    assert len(fingerprints.load_frozen(_layout(figured))) == 1 + 6 + 2
