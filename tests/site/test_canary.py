"""The bank's canary GUID (issue 18): declared in bank.yaml, carried by every public bank
file, and a site (so a publication) that would write one without it is refused through
the CLI with the file, line, rule and fix, and nothing is written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from click.testing import CliRunner, Result

from generator import bank_downloads, canary
from generator.cli import main
from generator.demo.spec import EXAMPLE
from generator.site import build_site
from generator.store import Layout
from tests.conftest import tree_state
from tests.site.conftest import Built

GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _site(root: Path) -> Result:
    runner = CliRunner()
    return runner.invoke(main, ["--root", str(root), "site", "--no-build"], catch_exceptions=False)


def _declared(root: Path) -> str:
    return str(yaml.safe_load((root / "bank" / "bank.yaml").read_text("utf-8"))["canary"])


def test_the_example_declares_a_canary_derived_from_the_demo_seed(built: Built) -> None:
    guid = _declared(built.root)
    assert GUID.match(guid)
    assert guid == canary.demo_canary(EXAMPLE.seed)
    assert canary.demo_canary(EXAMPLE.seed + 1) != guid


def test_every_public_bank_file_carries_it(built: Built) -> None:
    guid = _declared(built.root)
    downloads = built.root / "site_src" / "downloads"
    jsonl = [downloads / bank_downloads.public_jsonl_name(v) for v in ("v1", "v1.1", "v1.2")]
    jsonl += [downloads / "bank" / "public.jsonl", built.root / "bank" / "public.jsonl"]
    for path in jsonl:
        lines = path.read_text("utf-8").splitlines()
        assert lines and all(json.loads(line)["canary"] == guid for line in lines), path
    assert f"canary: {guid}" in (downloads / "bank" / "bank.yaml").read_text("utf-8")
    page = (downloads / "changelog.md").read_text("utf-8")
    assert f"`{guid}`" in page and "search your training data for this string" in page
    # The built site's bank page shows it too.
    assert guid in (built.site / "downloads" / "changelog.html").read_text("utf-8")
    # No held-out text and no canary in the index: it holds ids and commitments only.
    assert guid not in (downloads / "bank" / "heldout_index.jsonl").read_text("utf-8")


def test_a_bank_without_a_canary_publishes_nothing(site_copy: Path) -> None:
    manifest = site_copy / "bank" / "bank.yaml"
    guid = _declared(site_copy)
    manifest.write_text(manifest.read_text("utf-8").replace(f"canary: {guid}\n", ""), "utf-8")
    before = tree_state(site_copy / "site_src")
    result = _site(site_copy)
    assert result.exit_code == 1
    assert (
        "bank/bank.yaml: the bank declares no canary GUID, which every public bank "
        "file must carry [canary-missing]; fix: add `canary: <uuid>` to bank/bank.yaml once "
        'and never change it (python -c "import uuid; print(uuid.uuid4())"), then add the '
        'same `"canary"` and `"schema_version": 3` to every line of bank/public.jsonl'
    ) in result.stderr
    assert tree_state(site_copy / "site_src") == before


def _edit_line(path: Path, number: int, fn: object) -> None:
    lines = path.read_text("utf-8").splitlines()
    data = json.loads(lines[number - 1])
    fn(data)  # type: ignore[operator]
    lines[number - 1] = json.dumps(data, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n", "utf-8")


def test_a_public_line_without_the_canary_is_refused_at_its_line(site_copy: Path) -> None:
    public = site_copy / "bank" / "public.jsonl"
    guid = _declared(site_copy)
    _edit_line(public, 4, lambda d: d.pop("canary"))
    _edit_line(public, 9, lambda d: d.update(canary="00000000-0000-4000-8000-000000000000"))
    before = tree_state(site_copy / "site_src")
    result = _site(site_copy)
    assert result.exit_code == 1
    fix = f'fix: add "canary": "{guid}" and "schema_version": 3 to the line'
    assert (
        f"bank/public.jsonl:4: carries no canary; every public bank line carries the "
        f"bank's canary '{guid}' [canary-missing]; {fix}"
    ) in result.stderr
    assert (
        "bank/public.jsonl:9: carries canary '00000000-0000-4000-8000-000000000000'; "
        f"every public bank line carries the bank's canary '{guid}' [canary-missing]"
    ) in result.stderr
    assert "downloads/bank_v1" not in result.stderr  # the root cause, not its copies
    assert tree_state(site_copy / "site_src") == before


def test_a_planned_file_without_it_is_refused() -> None:
    """The planned files are checked too (a download made some other way)."""
    from generator.models.bank import BankManifest

    manifest = BankManifest.model_validate(
        {
            "name": "b",
            "categories": [{"id": "c", "title": "C"}],
            "versions": [{"id": "v1", "released": "2026-01-01"}],
            "canary": "5b92f4b2-8fcd-4398-80c3-78268d9d9840",
        }
    )
    good = b'{"canary":"5b92f4b2-8fcd-4398-80c3-78268d9d9840","id":"x"}\n'
    files = [
        canary.PublicFile("site_src/downloads/bank_v1_public.jsonl", good + b'{"id":"y"}\n', True),
        canary.PublicFile("site_src/downloads/changelog.md", b"# Bank changelog\n", False),
    ]
    found = canary.refusals(manifest, good, files)
    assert [(p.path, p.line, p.rule) for p in found] == [
        ("site_src/downloads/bank_v1_public.jsonl", 2, "canary-missing"),
        ("site_src/downloads/changelog.md", None, "canary-missing"),
    ]


def test_items_carry_their_publication_date(built: Built) -> None:
    manifest = yaml.safe_load((built.root / "bank" / "bank.yaml").read_text("utf-8"))
    released = {v["id"]: v["released"] for v in manifest["versions"]}
    downloads = built.root / "site_src" / "downloads"
    for version in released:
        path = downloads / bank_downloads.public_jsonl_name(version)
        for line in path.read_text("utf-8").splitlines():
            item = json.loads(line)
            assert item["published"] == released[item["added_in"]]
            assert item["schema_version"] == 3
    source = (built.root / "bank" / "public.jsonl").read_text("utf-8")
    assert '"published"' not in source  # the manifest gives it
    page = (downloads / "changelog.md").read_text("utf-8")
    index = built.root / "bank" / "heldout_index.jsonl"
    for line in index.read_text("utf-8").splitlines():
        held = json.loads(line)
        row = f"| `{held['id']}` | {held['category']} | held out | {held['added_in']} | "
        assert row + f"{released[held['added_in']]} |" in page


def test_a_new_root_gets_its_own_canary(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for target in (first, second):
        runner = CliRunner()
        done = runner.invoke(
            main,
            ["init", str(target), "--name", "A bank", "--category", "c"],
            catch_exceptions=False,
        )
        assert done.exit_code == 0, done.output
    assert GUID.match(_declared(first)) and _declared(first) != _declared(second)


def test_build_site_refuses_from_python_too(site_copy: Path) -> None:
    from generator.errors import CheckFailed

    manifest = site_copy / "bank" / "bank.yaml"
    guid = _declared(site_copy)
    manifest.write_text(manifest.read_text("utf-8").replace(f"canary: {guid}\n", ""), "utf-8")
    try:
        build_site(Layout.at(site_copy, site_copy / ".private"), build=False)
    except CheckFailed as exc:
        assert [p.rule for p in exc.problems] == ["canary-missing"]
    else:
        raise AssertionError("a bank without a canary built its site")


def test_the_calibration_corpus_quotes_public_items_with_the_canary(built: Built) -> None:
    guid = _declared(built.root)
    path = (
        built.root / "site_src" / "downloads" / "calibration" / "vol-002_calibration_corpus.jsonl"
    )
    units = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    public = [u for u in units if not u["held_out"]]
    assert public and all(u["canary"] == guid and u["schema_version"] == 2 for u in public)
    assert all("canary" not in u for u in units if u["held_out"])
