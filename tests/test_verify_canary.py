"""``verify`` checks the bank's canary in every public bank file (DESIGN §14): a line
without it, or with another GUID, is named with its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from generator.cli import main
from generator.verify_canary import check_canary
from generator.verify_checks import PUBLISHER_FIX, READER_FIX, open_view
from tests.site.downstream import generated_root

DOWNLOADS = "site_src/downloads"
OTHER = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def copy(example_src: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    dest = tmp_path / "root"
    shutil.copytree(generated_root(example_src, tmp_path_factory), dest, symlinks=True)
    return dest


@pytest.fixture
def site(copy: Path, tmp_path: Path) -> Path:
    """A downloaded site's downloads folder (what a reader fetched)."""
    dest = tmp_path / "site"
    shutil.copytree(copy / DOWNLOADS, dest / "downloads")
    return dest


def _canary(root: Path) -> str:
    return str(yaml.safe_load((root / "bank" / "bank.yaml").read_text("utf-8"))["canary"])


def _edit_line(path: Path, number: int, canary: str | None) -> None:
    lines = path.read_text("utf-8").splitlines()
    record = json.loads(lines[number - 1])
    if canary is None:
        del record["canary"]
    else:
        record["canary"] = canary
    lines[number - 1] = json.dumps(record, sort_keys=True)
    path.write_text("\n".join(lines) + "\n", "utf-8")


def _found(path: Path) -> list[str]:
    view = open_view(path)
    check_canary(view)
    return [str(p) for p in view.findings]


def test_an_intact_root_and_site_carry_the_canary_everywhere(copy: Path, site: Path) -> None:
    assert _found(copy) == []
    assert _found(site) == []


def test_a_downloaded_site_whose_bank_lines_lack_or_change_the_canary_fails_verify(
    copy: Path, site: Path
) -> None:
    canary = _canary(copy)
    _edit_line(site / "downloads" / "bank_v1_public.jsonl", 3, None)
    _edit_line(site / "downloads" / "bank" / "public.jsonl", 5, OTHER)
    result = CliRunner().invoke(main, ["verify", str(site)], catch_exceptions=False)
    assert result.exit_code == 1
    promise = (
        f"every public bank file carries the bank's canary {canary!r} (declared in "
        "downloads/bank/bank.yaml), and a training-data search for it would miss this one"
    )
    # Both files also changed after publication (their SHA256SUMS lines say so): the
    # reader's fix, not the publisher's.
    assert (
        f"downloads/bank/public.jsonl:5: carries canary {OTHER!r}, not the bank's; {promise} "
        f"[integrity]; fix: {READER_FIX}"
    ) in result.output
    assert (
        f"downloads/bank_v1_public.jsonl:3: carries no canary; {promise} [integrity]; "
        f"fix: {READER_FIX}"
    ) in result.output
    assert "Traceback" not in result.output


def test_an_intact_file_without_the_canary_is_the_publishers_finding(copy: Path) -> None:
    canary = _canary(copy)
    path = copy / "bank" / "public.jsonl"
    _edit_line(path, 2, None)
    path.write_bytes(path.read_bytes() + b"not json\n")
    count = len(path.read_text("utf-8").splitlines())
    promise = (
        f"every public bank file carries the bank's canary {canary!r} (declared in "
        "bank/bank.yaml), and a training-data search for it would miss this one"
    )
    assert _found(copy) == [
        f"bank/public.jsonl:2: carries no canary; {promise} [integrity]; fix: {PUBLISHER_FIX}",
        f"bank/public.jsonl:{count}: is not a JSON object, so it carries no canary; {promise} "
        f"[integrity]; fix: {PUBLISHER_FIX}",
    ]


def test_a_bank_manifest_copy_with_another_canary_or_none_is_named(copy: Path, site: Path) -> None:
    canary = _canary(copy)
    copied = copy / DOWNLOADS / "bank" / "bank.yaml"
    text = copied.read_text("utf-8")
    number = text.splitlines().index(f"canary: {canary}") + 1
    copied.write_text(text.replace(canary, OTHER), "utf-8")
    found = _found(copy)
    assert found == [
        f"{DOWNLOADS}/bank/bank.yaml:{number}: carries canary {OTHER!r}, not the bank's; "
        f"every public bank file carries the bank's canary {canary!r} (declared in "
        f"bank/bank.yaml), and a training-data search for it would miss this one "
        f"[integrity]; fix: {PUBLISHER_FIX}"
    ]
    manifest = site / "downloads" / "bank" / "bank.yaml"
    manifest.write_text(manifest.read_text("utf-8").replace(f"canary: {canary}\n", ""), "utf-8")
    assert _found(site) == [
        "downloads/bank/bank.yaml: the bank declares no canary GUID, so its public files "
        f"carry none a training-data search could find [integrity]; fix: {PUBLISHER_FIX}"
    ]
