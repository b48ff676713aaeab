"""``review apply`` is all or nothing and idempotent, proved by fault injection: a kill
(nothing catches it), an interrupt or an OS error at every filesystem operation of the
write, then the same file applied again.

The file mixes every kind of line: two public sign-offs, a held-out sign-off (a public
climb plus a private note) and a disagreement, so an interruption between the private
notes, the disagreements ledger and the status ledger would show.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.journal import JOURNAL, FileOps
from generator.store.paths import Layout
from tests.test_journal import Faulty, Killed
from tests.test_review_apply import BANK, decision

ON = "2026-12-01"
REVIEWER = "M. Lindqvist"
FILES = ("bank/status.jsonl", "bank/disagreements.jsonl", ".private/review_notes.jsonl")
State = tuple[bytes | None, ...]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, example_vol002_src: Path) -> Path:
    """The example's bank as of vol-002 with one held-out item at 'reviewed', and a review
    file; vol-001 and vol-002 are the published volumes."""
    repo = Path(__file__).resolve().parents[1]
    base = tmp_path_factory.mktemp("review-atomic") / "root"
    shutil.copytree(example_vol002_src / "bank", base / "bank")
    (base / "figures").mkdir(parents=True)
    frozen = json.loads((repo / "figures" / "fingerprints.json").read_text("utf-8"))
    frozen["files"] = {
        k: v for k, v in frozen["files"].items() if v["volume"] in ("vol-001", "vol-002")
    }
    (base / "figures" / "fingerprints.json").write_text(json.dumps(frozen), "utf-8")
    for volume in ("vol-001", "vol-002"):
        (base / "bundles" / volume).mkdir(parents=True)
        shutil.copy(repo / "bundles" / volume / "volume.yaml", base / "bundles" / volume)
    (base / ".private").mkdir()
    index = base / "bank" / "heldout_index.jsonl"
    lines = index.read_text("utf-8").splitlines()
    held = json.loads(lines[0])
    held["status"], held["validation"] = "reviewed", held["validation"][:2]
    index.write_text("\n".join([json.dumps(held), *lines[1:]]) + "\n", "utf-8")
    decisions = [
        decision("live-003", "reviewed", comment="criterion is clear"),
        decision("prov-003", "reviewed", "disagree", comment="the source is wrong"),
        decision(held["id"], "reviewed", comment="a private remark on the held-out text"),
        decision("premise-004", "draft"),
    ]
    doc = {"bank": BANK, "bank_version": "v1.2", "batch": "v1.2-01", "decisions": decisions}
    (base / "review.json").write_text(json.dumps(doc, indent=1), "utf-8")
    return base


def fresh(baseline: Path, tmp_path: Path, name: str = "root") -> Path:
    dest = tmp_path / name
    shutil.copytree(baseline, dest)
    return dest


def state(root: Path) -> State:
    return tuple((root / f).read_bytes() if (root / f).exists() else None for f in FILES)


def cli_apply(root: Path) -> Result:
    args = ["--root", str(root), "--private", str(root / ".private"), "review", "apply"]
    rest = [str(root / "review.json"), "--reviewer", REVIEWER, "--on", ON]
    return CliRunner().invoke(main, [*args, *rest])


def lib_apply(root: Path, ops: Faulty) -> None:
    from generator.reviewing import apply_review

    layout = Layout.at(root, root / ".private")
    apply_review(layout, root / "review.json", REVIEWER, dt.date.fromisoformat(ON), ops=ops)


@pytest.fixture(scope="module")
def applied(baseline: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[State, int]:
    """The three files after one clean apply, and how many operations it took."""
    root = fresh(baseline, tmp_path_factory.mktemp("clean"))
    ops = Faulty()
    lib_apply(root, ops)
    return state(root), ops.count


def test_a_clean_apply_writes_every_kind_of_line_once(
    baseline: Path, applied: tuple[State, int], tmp_path: Path
) -> None:
    root = fresh(baseline, tmp_path)
    result = cli_apply(root)
    assert result.exit_code == 0, result.output
    assert "3 sign-offs appended to bank/status.jsonl, 1 disagreement recorded" in result.output
    after = state(root)
    assert after == applied[0]
    status, disagreements, notes = (x.decode("utf-8").splitlines() if x else [] for x in after)
    assert (len(status), len(disagreements), len(notes)) == (3, 1, 1)
    again = cli_apply(root)  # the same file once more: nothing is added
    assert again.exit_code == 0, again.output
    assert (
        f"{root / 'review.json'}: 0 sign-offs appended to bank/status.jsonl, 0 disagreements "
        "recorded, 0 items skipped, 4 decisions already applied"
    ) in again.output
    assert state(root) == after


def test_a_kill_at_every_step_then_the_same_file_again_applies_it_exactly_once(
    baseline: Path, applied: tuple[State, int], tmp_path: Path
) -> None:
    reference, steps = applied
    before = state(baseline)
    seen_partial = False
    for k in range(1, steps + 1):
        root = fresh(baseline, tmp_path, f"kill-{k}")
        with pytest.raises(Killed):
            lib_apply(root, Faulty(at=k))
        # Between the writes: the private notes may be ahead of the public ledgers.
        seen_partial |= state(root) not in (before, reference)
        result = cli_apply(root)
        assert result.exit_code == 0, (k, result.output)
        assert state(root) == reference, k
        assert not os.path.lexists(root / JOURNAL), k
        assert not [p for p in root.iterdir() if p.name.startswith(".probepress-") and p.is_dir()]
    assert seen_partial  # the kills did land between the writes


@pytest.mark.parametrize(
    "fault",
    [
        lambda p: KeyboardInterrupt(),
        lambda p: PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(p)),
    ],
    ids=["interrupt", "eacces"],
)
def test_an_interrupt_or_an_os_error_at_every_step_leaves_all_or_nothing(
    baseline: Path,
    applied: tuple[State, int],
    tmp_path: Path,
    fault: Callable[[Path], BaseException],
) -> None:
    reference, steps = applied
    before = state(baseline)
    outcomes = set()
    for k in range(1, steps + 1):
        root = fresh(baseline, tmp_path, f"fault-{k}")
        with contextlib.suppress(KeyboardInterrupt, Exception):
            lib_apply(root, Faulty(at=k, fault=fault))
        now = state(root)
        assert now in (before, reference), k  # never the notes or one ledger alone
        # A journal is left only past its commit point (its clean-up was interrupted).
        assert now == reference or not os.path.lexists(root / JOURNAL), k
        outcomes.add(now == reference)
        result = cli_apply(root)
        assert result.exit_code == 0, (k, result.output)
        assert state(root) == reference, k
    assert outcomes == {False, True}


def test_an_os_error_is_reported_without_a_traceback(
    baseline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fresh(baseline, tmp_path)

    def step(self: FileOps, action: str, path: Path) -> None:
        if action == "copy" and path.parent.name == "bank":  # a ledger into place
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(FileOps, "step", step)
    result = cli_apply(root)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert (
        "review apply could not move the files into place: bank/disagreements.jsonl: "
        "Permission denied [EACCES]; the previous publication was restored\n"
        "bank/disagreements.jsonl: Permission denied [EACCES] [commit]; "
        "fix: make it writable, then review apply again\n"
    ) in result.output
    assert state(root) == state(baseline)  # the private note was taken back too
