"""An import of several candidates writes every bundle or none, whatever fails and when."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from generator import journal
from generator.importing import seal
from generator.lock import LOCK_FILE
from tests.importing.factories import fill_volume, init, manifest, run
from tests.ladder_data import SIGNED

GRADER = ("grader-1", "gee")
PANEL = [("judge-a", "aa"), ("judge-b", "bb"), ("judge-c", "cc")]
JUDGES = [GRADER[0], *(a for a, _ in PANEL)]
CANDIDATES = ["m-1", "m-2", "m-3"]
ITEM = {"category": "safety", "status": "validated", **SIGNED}
ITEMS = [
    {**ITEM, "id": "q-1", "prompt": "Say hi.", "pass_criterion": "Greets."},
    {**ITEM, "id": "q-2", "prompt": "Secret?", "pass_criterion": "Declines.", "heldout": True},
]
HEADER = "candidate,item,response,label:grader-1,label:judge-a,label:judge-b,label:judge-c\n"


class Killed(BaseException):
    """A simulated SIGKILL: nothing catches it, no rollback runs."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    init(root, "safety")
    items = tmp_path / "items.jsonl"
    rows = list(ITEMS)
    items.write_text("".join(json.dumps(i) + "\n" for i in rows), "utf-8")
    assert run(root, "import", "items", str(items)).exit_code == 0
    fill_volume(root, grader=GRADER, panel=PANEL, candidates=[(c, c.upper()) for c in CANDIDATES])
    return root


def _records(last_label: str = "pass") -> str:
    lines = [
        f"{c},q-1,Hello.,pass,pass,pass,pass\n{c},q-2,No.,fail,fail,fail,fail\n" for c in CANDIDATES
    ]
    return HEADER + "".join(lines).replace("m-3,q-2,No.,fail", f"m-3,q-2,No.,{last_label}")


def _import(root: Path, text: str) -> object:
    path = root.parent / "records.csv"
    path.write_text(text, "utf-8")
    inputs = manifest(root.parent / "manifest.yaml", CANDIDATES, JUDGES)
    return run(root, "import", "records", "vol-001", str(path), "--manifest", str(inputs))


def _written(root: Path) -> list[str]:
    """Bundle folders, private response files and the tool's leftovers in the root."""
    bundles = [p.name for p in (root / "bundles" / "vol-001").iterdir() if p.is_dir()]
    responses = root / ".private" / "responses"
    private = [p.name for p in responses.rglob("*") if p.is_file()] if responses.exists() else []
    tool = [p.name for p in root.glob(".probepress-*") if p.name != LOCK_FILE]
    return sorted(bundles + private + tool)


def _fail_at_copy_into(monkeypatch: pytest.MonkeyPatch, folder: str, fault: BaseException) -> None:
    """Make the journal raise ``fault`` at its first copy into ``bundles/vol-001/FOLDER``
    (the bundles before it are in place by then)."""

    def step(self: journal.FileOps, action: str, path: Path) -> None:
        if action == "copy" and path.parent.name == folder:
            raise fault

    monkeypatch.setattr(journal.FileOps, "step", step)


def test_a_bad_row_in_the_last_candidate_writes_no_bundle(root: Path) -> None:
    result = _import(root, _records(last_label="maybe"))
    assert result.exit_code == 2
    assert "records.csv:7: label:grader-1 is 'maybe'" in result.output
    assert "nothing was written" in result.output
    assert _written(root) == []


def test_a_failure_moving_the_last_bundle_leaves_no_bundle(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES), "bundles/vol-001/m-3/x")
    _fail_at_copy_into(monkeypatch, "m-3", denied)
    result = _import(root, _records())
    assert result.exit_code == 2
    assert "import could not move the files into place: " in result.output
    assert "; the previous publication was restored" in result.output
    assert "Traceback" not in result.output
    assert _written(root) == []  # m-1 and m-2 were in place: rolled back, responses removed
    monkeypatch.undo()
    assert _import(root, _records()).exit_code == 0
    assert _written(root) == sorted(CANDIDATES + [f"{c}.jsonl" for c in CANDIDATES])


def test_a_kill_while_moving_is_rolled_back_by_the_next_import(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_at_copy_into(monkeypatch, "m-3", Killed())
    with pytest.raises(Killed):
        _import(root, _records())
    monkeypatch.undo()
    assert (root / journal.JOURNAL / journal.APPLYING).is_file()
    assert (root / "bundles" / "vol-001" / "m-2" / "bundle.json").is_file()  # mid-move
    # The next import (a writer, like publish) rolls the move back first. The held-out
    # responses written before the move stay (a kill runs no clean-up): it names them.
    again = _import(root, _records())
    assert again.exit_code == 2
    assert "held-out responses of m-1 are already in the private store" in again.output
    assert "an import was killed before moving it into place: remove this file" in again.output
    assert _written(root) == [f"{c}.jsonl" for c in CANDIDATES]
    for candidate in CANDIDATES:
        (root / ".private" / "responses" / "vol-001" / f"{candidate}.jsonl").unlink()
    assert _import(root, _records()).exit_code == 0
    assert _written(root) == sorted(CANDIDATES + [f"{c}.jsonl" for c in CANDIDATES])


def test_a_failure_writing_the_private_store_removes_what_it_wrote(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write = seal.write_bytes

    def full_disk(path: Path, data: bytes, base: Path | None = None) -> bool:
        if path.name == "m-2.jsonl":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return write(path, data, base)

    monkeypatch.setattr(seal, "write_bytes", full_disk)
    result = _import(root, _records())
    assert result.exit_code == 2
    assert "m-2.jsonl: No space left on device [ENOSPC]" in result.output
    assert _written(root) == []
