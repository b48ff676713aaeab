"""The fingerprint registry: published bytes never change; unchanged PDFs are reused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from generator import fingerprints, hashing
from generator.cli import main
from generator.errors import CheckFailed
from generator.hashing import sha256_file
from generator.render import render_volume
from generator.render import run as render_run
from generator.render.environment import PACKAGE_TEMPLATES
from generator.store import Layout
from tests.conftest import tree_state

VOL = "vol-001"


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private")


def _cli(root: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["--root", str(root), *args], catch_exceptions=False)


def test_registry_lists_every_frozen_file_with_kind_and_volume(rendered: Path) -> None:
    entries = fingerprints.load_frozen(_layout(rendered))
    on_disk = sorted(
        p.relative_to(rendered).as_posix()
        for p in (rendered / "site_src" / "volumes").rglob("*")
        if p.is_file()
    )
    assert sorted(entries) == on_disk
    assert {e.kind for e in entries.values()} == {"html", "pdf"}
    assert {e.volume for e in entries.values()} == {"vol-001", "vol-002"}
    # The older reader still understands the registry (the gates use it).
    frozen = fingerprints.load_frozen(_layout(rendered))
    recorded = ((rel, entry.sha256) for rel, entry in frozen.items())
    assert not hashing.drift(recorded, hashing.on_disk(_layout(rendered).root))
    text = (rendered / "figures" / "fingerprints.json").read_text("utf-8")
    assert text == fingerprints.registry_text(entries)


def test_changed_output_of_a_published_volume_is_refused_and_nothing_written(
    rendered_copy: Path,
) -> None:
    # The root's own templates/ take precedence: change the stylesheet there.
    shutil.copytree(PACKAGE_TEMPLATES, rendered_copy / "templates")
    css = rendered_copy / "templates" / "page.css"
    css.write_text(css.read_text("utf-8").replace("#1f5fa8", "#1f5fa9"), "utf-8")
    before = tree_state(rendered_copy)
    result = _cli(rendered_copy, "render", VOL)
    assert result.exit_code == 1, result.output
    message = result.stderr
    assert "vol-001 is published and re-rendering would change 9 frozen files" in message
    assert "published files never change (an erratum is a new volume)" in message
    for name in ("leaderboard.html", "jury/demo-kestrel-kestrel-chat-3.html"):
        assert f"site_src/volumes/vol-001/{name}: renders to sha256" in message
    assert "Traceback" not in result.output
    assert tree_state(rendered_copy) == before


def test_a_registered_page_no_longer_rendered_is_refused(rendered_copy: Path) -> None:
    registry = rendered_copy / "figures" / "fingerprints.json"
    data = json.loads(registry.read_text("utf-8"))
    data["files"]["site_src/volumes/vol-001/jury/demo-gone.html"] = {
        "kind": "html",
        "sha256": "0" * 64,
        "volume": VOL,
    }
    registry.write_text(json.dumps(data), "utf-8")
    with pytest.raises(CheckFailed) as caught:
        render_volume(_layout(rendered_copy), VOL, pdf=False)
    assert "demo-gone.html: is registered but no longer rendered" in caught.value.render()


def test_unchanged_pdfs_are_reused_and_a_missing_one_is_rebuilt_identically(
    rendered_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _layout(rendered_copy)
    registered = fingerprints.load_frozen(layout)
    calls: list[list[str]] = []
    real = render_run.render_pdfs

    def counting(jobs: Any, workers: int, progress: Any = None) -> dict[str, bytes]:
        calls.append([job.path for job in jobs])
        return real(jobs, workers, progress)

    monkeypatch.setattr(render_run, "render_pdfs", counting)
    before = tree_state(rendered_copy)
    result = render_volume(layout, VOL, jobs=1)
    assert calls == [[]], "no PDF is re-rendered when no HTML changed"
    assert {f.action for f in result.files if f.kind == "pdf"} == {"reused"}
    assert {f.action for f in result.files if f.kind == "html"} == {"unchanged"}
    assert not result.registry_changed
    assert tree_state(rendered_copy) == before

    card = "site_src/volumes/vol-001/jury/demo-ember-ember-mini.pdf"
    (rendered_copy / card).unlink()
    tampered = "site_src/volumes/vol-001/leaderboard.pdf"
    (rendered_copy / tampered).write_bytes(b"%PDF-1.7 not the published file")
    calls.clear()
    result = render_volume(layout, VOL, jobs=1)
    assert calls == [sorted([card, tampered])]
    actions = {f.path: f.action for f in result.files}
    assert actions[card] == actions[tampered] == "written"
    for path in (card, tampered):
        assert sha256_file(rendered_copy / path) == registered[path].sha256


def test_render_needs_the_volumes_figures(figured: Path) -> None:
    (figured / "figures" / "figures.json").unlink()
    result = _cli(figured, "render", VOL, "--no-pdf")
    assert result.exit_code == 2
    assert "no figures of vol-001 in figures/figures.json; run `probepress figures vol-001`" in (
        result.stderr
    )
    assert not (figured / "site_src").exists()


def test_an_unknown_figure_id_fails_loudly_naming_page_and_id(figured: Path) -> None:
    registry = figured / "figures" / "figures.json"
    data = json.loads(registry.read_text("utf-8"))
    del data["figures"]["vol-001/demo-ember-ember-mini/lost_draws"]
    registry.write_text(json.dumps(data), "utf-8")
    result = _cli(figured, "render", VOL, "--no-pdf")
    assert result.exit_code == 2
    line = next(
        n
        for n, text in enumerate(
            (PACKAGE_TEMPLATES / "leaderboard.html").read_text().split("\n"), 1
        )
        if '"/lost_draws"' in text
    )
    assert (
        f"templates/leaderboard.html:{line} (rendering site_src/volumes/vol-001/leaderboard.html): "
        "cites figure 'vol-001/demo-ember-ember-mini/lost_draws', which is not in "
        "figures/figures.json (run `probepress figures vol-001`, or fix the template)"
    ) in result.stderr
    assert not (figured / "site_src").exists()


def test_an_unreadable_volume_exits_2(figured: Path) -> None:
    bundle = figured / "bundles" / VOL / "demo-ember-ember-mini" / "draws.jsonl"
    bundle.write_bytes(bundle.read_bytes()[:-1])
    result = _cli(figured, "render", VOL, "--no-pdf")
    assert result.exit_code == 2
    assert "draws.jsonl" in result.stderr and "Traceback" not in result.output


def test_cli_json_lists_every_file(figured: Path) -> None:
    result = _cli(figured, "render", VOL, "--no-pdf", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["volume"] == VOL and report["registry_changed"] is True
    # The leaderboard and a jury card for each of 6 candidates and 2 baselines.
    assert len(report["files"]) == 1 + 6 + 2
    assert {f["action"] for f in report["files"]} == {"written"}
    assert "vol-001: 9 HTML (9 written)" in result.stderr
    again = json.loads(_cli(figured, "render", VOL, "--no-pdf", "--json").stdout)
    assert {f["action"] for f in again["files"]} == {"unchanged"}
    assert again["registry_changed"] is False
