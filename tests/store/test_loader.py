"""Every loader failure: exact message (file, line, rule), exit code 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliRun, tree_state
from tests.factories import bundle_dir, edit_bytes, edit_json, edit_line, first_slug


def _fails(cli: CliRun, root: Path, expected: str, *args: str) -> str:
    before = tree_state(root)
    result = cli(*args, "show", "vol-001")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert expected in result.stderr, result.stderr
    assert tree_state(root) == before
    return result.stderr


def test_show_reads_the_example(cli: CliRun) -> None:
    result = cli("show", "vol-001", "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["bank_version"] == "v1"
    assert summary["items"] == {
        "total": 63,
        "core": 63,
        "public": 35,
        "held_out": 28,
        "tier0": 15,
        "validated": 63,
    }
    # 6 candidates and 2 baselines, each drawn 10 times on each of the 63 items.
    assert summary["totals"]["draws"] == (6 + 2) * 63 * 10
    assert summary["totals"]["verdicts"] == summary["totals"]["draws"]


def test_truncated_line(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_bytes(d, "draws.jsonl", lambda b: b[:-1])
    lines = (d / "draws.jsonl").read_bytes().count(b"\n") + 1
    _fails(cli, root, f"draws.jsonl:{lines}: line is truncated (no final newline) [truncated-line]")


def test_invalid_utf8(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_bytes(d, "verdicts.jsonl", lambda b: b.replace(b'"item"', b'"\xff\xfeitem"', 3))
    byte = (d / "verdicts.jsonl").read_bytes().index(b"\xff") + 1
    _fails(cli, root, f"verdicts.jsonl:1: line is not valid UTF-8 (byte {byte}) [utf-8]")


def test_invalid_json(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_bytes(d, "panel.jsonl", lambda b: b.replace(b"}\n", b"\n", 2))
    _fails(cli, root, "panel.jsonl:1: invalid JSON: EOF while parsing an object")


def test_unknown_field(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_line(d, "draws.jsonl", 4, lambda r: {**r, "mood": "cheerful"})
    _fails(cli, root, "draws.jsonl:5: mood: Extra inputs are not permitted [schema]")


def test_wrong_type(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_line(d, "draws.jsonl", 9, lambda r: {**r, "draw": "three"})
    _fails(cli, root, "draws.jsonl:10: draw: Input should be a valid integer")


def test_missing_required_field(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_line(d, "verdicts.jsonl", 0, lambda r: {k: v for k, v in r.items() if k != "verdict"})
    _fails(cli, root, "verdicts.jsonl:1: verdict: Field required [schema]")


def test_bad_value_names_the_field(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_line(d, "draws.jsonl", 16, lambda r: {**r, "half": "c"})
    _fails(cli, root, "draws.jsonl:17: half: String should match pattern '^[A-Z]$'")


def test_over_long_line(cli: CliRun, root: Path) -> None:
    _fails(
        cli,
        root,
        "bank/public.jsonl:1: line is longer than the 300-byte bound [line-too-long]",
        "--limit",
        "max_line_bytes=300",
    )


def test_oversized_file(cli: CliRun, root: Path) -> None:
    slug = first_slug(root)
    size = (bundle_dir(root, slug) / "draws.jsonl").stat().st_size
    _fails(
        cli,
        root,
        f"bundles/vol-001/{slug}/draws.jsonl: file is {size} bytes, over the 120000-byte bound",
        "--limit",
        "max_file_bytes=120000",
    )


def test_too_many_records(cli: CliRun, root: Path) -> None:
    _fails(cli, root, "bank/public.jsonl:11: more than 10 records", "--limit", "max_records=10")


def test_missing_file(cli: CliRun, root: Path) -> None:
    slug = first_slug(root)
    (bundle_dir(root, slug) / "panel.jsonl").unlink()
    _fails(cli, root, f"bundles/vol-001/{slug}/panel.jsonl: file is missing [file-missing]")


def test_missing_bundle(cli: CliRun, root: Path) -> None:
    import shutil

    slug = first_slug(root)
    shutil.rmtree(bundle_dir(root, slug))
    _fails(cli, root, f"bundles/vol-001/{slug}: bundle directory is missing [bundle-missing]")


def test_hash_mismatch(cli: CliRun, root: Path) -> None:
    slug = first_slug(root)
    d = bundle_dir(root, slug)
    edit_bytes(d, "verdicts.jsonl", lambda b: b.replace(b'"pass"', b'"fail"', 1), seal=False)
    _fails(
        cli,
        root,
        f"bundles/vol-001/{slug}/verdicts.jsonl: SHA-256/size do not match bundle.json",
    )


def test_symlink(cli: CliRun, root: Path, tmp_path: Path) -> None:
    slug = first_slug(root)
    d = bundle_dir(root, slug)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes((d / "qualification.jsonl").read_bytes())
    (d / "qualification.jsonl").unlink()
    (d / "qualification.jsonl").symlink_to(outside)
    _fails(
        cli,
        root,
        f"bundles/vol-001/{slug}/qualification.jsonl: is a symbolic link; bundles hold real files "
        "[no-symlinks]",
    )


def test_path_escaping_the_bundle(cli: CliRun, root: Path) -> None:
    slug = first_slug(root)
    d = bundle_dir(root, slug)
    edit_json(
        d / "bundle.json",
        lambda m: m["files"].update({"../volume.yaml": m["files"]["panel.jsonl"]}),
    )
    _fails(
        cli,
        root,
        f"bundles/vol-001/{slug}/bundle.json: files lists '../volume.yaml', a path outside the "
        "bundle directory [path-escape]",
    )


def test_newer_schema_version(cli: CliRun, root: Path) -> None:
    d = bundle_dir(root, first_slug(root))
    edit_line(d, "draws.jsonl", 2, lambda r: {**r, "schema_version": 4})
    _fails(
        cli,
        root,
        "draws.jsonl:3: schema_version: schema_version 4 is newer than this probepress reads (3); "
        "upgrade probepress",
    )


def test_yaml_error_has_a_line(cli: CliRun, root: Path) -> None:
    path = root / "bundles" / "vol-001" / "volume.yaml"
    text = path.read_text("utf-8").replace("draws_per_half: 5", "draws_per_half: five")
    path.write_text(text, "utf-8")
    line = text.splitlines().index("  draws_per_half: five") + 1
    _fails(
        cli,
        root,
        f"bundles/vol-001/volume.yaml:{line}: protocol.draws_per_half: "
        "Input should be a valid integer",
    )


def test_missing_private_store(cli: CliRun, root: Path) -> None:
    import shutil

    shutil.rmtree(root / ".private")
    _fails(cli, root, "held-out items are not in the private store [private-store]")


def test_unknown_volume(cli: CliRun, root: Path) -> None:
    result = cli("show", "vol-404")
    assert result.exit_code == 2
    assert "no volume 'vol-404' under bundles/ (known: vol-001, vol-002, vol-003)" in result.stderr


@pytest.mark.parametrize("limit", ["max_line_bytes=0", "nonsense=3", "max_records"])
def test_bad_limit_is_a_usage_error(cli: CliRun, limit: str) -> None:
    result = cli("--limit", limit, "show", "vol-001")
    assert result.exit_code == 2
    assert "--limit" in result.stderr
