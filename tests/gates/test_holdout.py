"""The holdout gate on the example: what it scans (every published file, by content),
what it refuses to read (and reports), and held-out texts re-added as public items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from generator.gates import holdout
from generator.gates.base import GateContext
from generator.init import GITIGNORE
from generator.leaks import LeakConfig
from generator.store import Layout
from generator.store.volume import load_volume
from tests.conftest import CliRun
from tests.factories import git_commit_all

VOL = "vol-001"


def _heldout(root: Path) -> dict[str, Any]:
    rows = [
        json.loads(x)
        for x in (root / ".private" / "heldout_items.jsonl").read_text("utf-8").splitlines()
    ]
    return max(rows, key=lambda r: len(r["prompt"]) if isinstance(r["prompt"], str) else 0)


def _gate(cli: CliRun, root: Path) -> tuple[Result, dict[str, Any]]:
    git_commit_all(root, "mutated example")
    result = cli("--no-cache", "gate", "holdout", VOL, "--json")
    assert "Traceback" not in result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return result, report


def _findings(report: dict[str, Any]) -> list[tuple[str, str, int | None, str]]:
    gate = next(g for g in report["gates"] if g["gate"] == "holdout")
    return [(f["rule"], f["path"], f["line"], f["message"]) for f in gate["findings"]]


def test_a_leak_inside_an_egg_info_folder_under_site_src_is_found(cli: CliRun, root: Path) -> None:
    row = _heldout(root)
    folder = root / "site_src" / "extra.egg-info"
    folder.mkdir(parents=True)
    (folder / "PKG-INFO").write_text(f"Summary: {row['prompt']}\n", "utf-8")
    result, report = _gate(cli, root)
    assert result.exit_code == 1
    [(rule, path, line, message)] = _findings(report)
    assert (rule, path, line) == ("leak-prompt", "site_src/extra.egg-info/PKG-INFO", 1)
    assert message.startswith(f"held-out prompt item:{row['id']} appears")


def test_a_tracked_file_in_a_tool_folder_is_scanned(cli: CliRun, root: Path) -> None:
    row = _heldout(root)
    (root / ".cache").mkdir()
    (root / ".cache" / "notes.txt").write_text(f"{row['prompt']}\n", "utf-8")
    result, report = _gate(cli, root)  # commits it: tracked files are published
    assert result.exit_code == 1
    assert [(f[0], f[1], f[2]) for f in _findings(report)] == [
        ("leak-prompt", ".cache/notes.txt", 1)
    ]


def test_a_leak_in_a_git_ignored_copy_among_the_downloads_is_found(cli: CliRun, root: Path) -> None:
    """The downloads' copies of root files are written at build time and git ignores them
    (init's .gitignore, as the repository's): what is published is scanned all the same."""
    (root / ".gitignore").write_text(GITIGNORE, "utf-8")
    row = _heldout(root)
    copy = root / "site_src" / "downloads" / "figures.json"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(json.dumps({"note": row["prompt"]}) + "\n", "utf-8")
    result, report = _gate(cli, root)
    tracked = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--", "site_src/downloads/figures.json"],
        capture_output=True,
        check=True,
    )
    assert tracked.stdout == b""  # committed nothing: ignored, yet published
    assert result.exit_code == 1
    assert [(f[0], f[1]) for f in _findings(report)] == [
        ("leak-prompt", "site_src/downloads/figures.json")
    ]


def test_a_fifo_under_the_root_is_a_finding_not_a_hang(cli: CliRun, root: Path) -> None:
    os.mkfifo(root / "incoming.pipe")
    done: list[tuple[Result, dict[str, Any]]] = []
    worker = threading.Thread(target=lambda: done.append(_gate(cli, root)), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert done, "the holdout gate blocked on a FIFO"
    result, report = done[0]
    assert result.exit_code == 1
    assert _findings(report) == [
        (
            "not-regular",
            "incoming.pipe",
            None,
            "is a FIFO, not a regular file: it cannot be scanned for held-out text",
        )
    ]


def test_a_pdf_symlink_to_dev_zero_is_a_finding(cli: CliRun, root: Path) -> None:
    folder = root / "site_src" / "volumes" / VOL
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "extra.pdf").symlink_to("/dev/zero")
    result, report = _gate(cli, root)
    assert result.exit_code == 1
    assert _findings(report) == [
        (
            "not-regular",
            f"site_src/volumes/{VOL}/extra.pdf",
            None,
            "is a symbolic link, not a regular file: it cannot be scanned for held-out text",
        )
    ]


def test_a_heldout_prompt_readded_as_a_public_item_is_refused(cli: CliRun, root: Path) -> None:
    row = _heldout(root)
    bank = root / "bank" / "public.jsonl"
    lines = bank.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    # Reword the first public item into the held-out prompt, resealing its hash so
    # only the republication itself is wrong.
    from generator.models.bank import BankItem
    from generator.store.bank import text_sha256_of

    item = BankItem.model_validate({**first, "prompt": "Quick one. " + row["prompt"]})
    first = {**first, "prompt": item.prompt, "text_sha256": text_sha256_of(item)}
    lines[0] = json.dumps(first, ensure_ascii=False)
    bank.write_text("\n".join(lines) + "\n", "utf-8")
    result, report = _gate(cli, root)
    assert result.exit_code == 1
    refused = [f for f in _findings(report) if f[0] == "heldout-republished"]
    assert refused == [
        (
            "heldout-republished",
            "bank/public.jsonl",
            1,
            f"public item {first['id']} repeats held-out item {row['id']} (its whole text); "
            "public texts are not scanned for, so it would publish it",
        )
    ]


def test_the_leak_cache_key_depends_on_python_and_unicode_versions(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = Layout.at(root, root / ".private")
    ctx = GateContext(load_volume(layout, VOL, strict=False))
    first = holdout.secrets_key(ctx, LeakConfig())
    assert holdout.secrets_key(ctx, LeakConfig()) == first
    monkeypatch.setattr(unicodedata, "unidata_version", "0.0.0")
    changed_unicode = holdout.secrets_key(ctx, LeakConfig())
    monkeypatch.setattr(sys, "version", "3.99.0 (test)")
    changed_python = holdout.secrets_key(ctx, LeakConfig())
    assert len({first, changed_unicode, changed_python}) == 3
