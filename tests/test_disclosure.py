"""``probepress disclose``: open one held-out item, check the opening offline, and refuse
every tampered disclosure with the file, line and rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests import commitment_ref
from tests.conftest import CliRun, tree_state

ITEM = "h-arith-01"


def _disclose(cli: CliRun, root: Path, tmp_path: Path, item: str = ITEM) -> Path:
    out = tmp_path / "disclosure.json"
    result = cli("disclose", item, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    return out


def _public_copy(root: Path, dest: Path) -> Path:
    """What a downstream user has: the published index and bundles, no private store."""
    (dest / "bank").mkdir(parents=True)
    shutil.copy2(root / "bank" / "heldout_index.jsonl", dest / "bank" / "heldout_index.jsonl")
    shutil.copytree(root / "bundles", dest / "bundles")
    return dest


def _rewrite(path: Path, fn: Any) -> None:
    data = json.loads(path.read_text("utf-8"))
    fn(data)
    path.write_text(json.dumps(data), "utf-8")


def test_round_trip_opens_one_item_only(cli: CliRun, root: Path, tmp_path: Path) -> None:
    out = _disclose(cli, root, tmp_path)
    data = json.loads(out.read_text("utf-8"))
    secret = commitment_ref.secret_of(root / ".private")
    assert data["item"] == ITEM and data["scheme"] == "hmac-sha256"
    assert data["item_key"] == commitment_ref.item_key(secret, ITEM).hex()
    text = out.read_text("utf-8")
    assert secret.hex() not in text
    private = [json.loads(line) for line in (root / ".private" / "heldout_items.jsonl").open()]
    others = [i for i in private if i["id"] != ITEM]
    assert not any(i["pass_criterion"] in text for i in others)
    assert not any(commitment_ref.item_key(secret, i["id"]).hex() in text for i in others)
    # Every response to the item in both volumes, and only those.
    published = 0
    for draws in sorted((root / "bundles").glob("vol-*/*/draws.jsonl")):
        for line in draws.read_text("utf-8").splitlines():
            row = json.loads(line)
            published += row["item"] == ITEM and "response_commitment" in row
    assert len(data["responses"]) == published > 100
    public = _public_copy(root, tmp_path / "public")
    result = cli("disclose", "--check", str(out), root_dir=public)
    assert result.exit_code == 0, result.stderr
    assert (
        f"disclosure of {ITEM} matches the published commitments (2 texts, {published} responses)"
    ) in result.stderr


def test_disclosure_to_stdout_writes_nothing(cli: CliRun, root: Path) -> None:
    before = tree_state(root)
    result = cli("disclose", ITEM)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["item"] == ITEM
    assert tree_state(root) == before


def _first_response(data: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = data["responses"][0]
    return first


def _forged_prompt(data: dict[str, Any]) -> None:
    """A new prompt with a commitment recomputed under the right key: self-consistent."""
    data["prompt"] = "Work out 1,778 × 426. Exact answer only."
    key = bytes.fromhex(data["item_key"])
    data["prompt_commitment"] = commitment_ref.commit(key, "probepress/prompt/v1", data["prompt"])


def _forged_key(data: dict[str, Any]) -> None:
    data["item_key"] = "00" * 32


TAMPERED = [
    pytest.param(
        lambda d: _first_response(d).update(text="1,000,000"),
        "{file}: response vol-001/{slug} {half}{draw} does not match its commitment "
        "[disclosure-text]",
        id="response-text",
    ),
    pytest.param(
        lambda d: d.update(pass_criterion="Anything goes."),
        "{file}: criterion_commitment does not match the disclosed text [disclosure-text]",
        id="criterion",
    ),
    pytest.param(
        _forged_prompt,
        "{file}: prompt_commitment differs from the published index [disclosure-index]",
        id="forged-prompt",
    ),
    pytest.param(
        _forged_key,
        "{file}: prompt_commitment does not match the disclosed text [disclosure-text]",
        id="forged-key",
    ),
    pytest.param(
        lambda d: d["responses"].pop(0),
        "bundles/vol-001/{slug}/draws.jsonl:{line}: response to h-arith-01 {half}{draw} is "
        "not in the disclosure [disclosure-missing]",
        id="dropped-response",
    ),
    pytest.param(
        lambda d: _first_response(d).update(half="C"),
        "{file}: response vol-001/{slug} C{draw} does not match its commitment [disclosure-text]",
        id="moved-response",
    ),
]


def _draw_line(root: Path, slug: str, half: str, draw: int) -> int:
    path = root / "bundles" / "vol-001" / slug / "draws.jsonl"
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        row = json.loads(line)
        if (row["item"], row["half"], row["draw"]) == (ITEM, half, draw):
            return number
    raise AssertionError("draw not found")


@pytest.mark.parametrize(("tamper", "expected"), TAMPERED)
def test_a_tampered_disclosure_fails(
    cli: CliRun, root: Path, tmp_path: Path, tamper: Any, expected: str
) -> None:
    out = _disclose(cli, root, tmp_path)
    first = _first_response(json.loads(out.read_text("utf-8")))
    _rewrite(out, tamper)
    public = _public_copy(root, tmp_path / "public")
    result = cli("disclose", "--check", str(out), root_dir=public)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert f"disclosure of {ITEM} does not match:" in result.stderr
    slug, half, draw = first["candidate"], first["half"], first["draw"]
    line = _draw_line(root, slug, half, draw)
    message = expected.format(file=out, slug=slug, half=half, draw=draw, line=line)
    assert message in result.stderr, result.stderr


def test_a_changed_published_draw_is_named(cli: CliRun, root: Path, tmp_path: Path) -> None:
    out = _disclose(cli, root, tmp_path)
    first = _first_response(json.loads(out.read_text("utf-8")))
    slug, half, draw = first["candidate"], first["half"], first["draw"]
    public = _public_copy(root, tmp_path / "public")
    path = public / "bundles" / "vol-001" / slug / "draws.jsonl"
    line = _draw_line(root, slug, half, draw)
    rows = path.read_text("utf-8").splitlines()
    row = json.loads(rows[line - 1])
    row["response_commitment"] = "hmac-sha256:" + "ab" * 32
    rows[line - 1] = json.dumps(row)
    path.write_text("\n".join(rows) + "\n", "utf-8")
    result = cli("disclose", "--check", str(out), root_dir=public)
    assert result.exit_code == 1
    assert (
        f"bundles/vol-001/{slug}/draws.jsonl:{line}: response vol-001/{slug} {half}{draw} "
        "differs from the draw [disclosure-draws]"
    ) in result.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("disclose",), "give ITEM [--out FILE] to disclose, or --check FILE to check"),
        (("disclose", "arith-001"), "arith-001 is a public item: its text is published already"),
        (("disclose", "h-nope-99"), "no held-out item 'h-nope-99' in bank/heldout_index.jsonl"),
    ],
)
def test_usage_errors_exit_2(cli: CliRun, root: Path, args: tuple[str, ...], expected: str) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert expected in result.stderr


def test_an_unreadable_disclosure_exits_2(cli: CliRun, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"item": "h-arith-01"}', "utf-8")
    result = cli("disclose", "--check", str(bad))
    assert result.exit_code == 2
    assert "cannot read the disclosure:" in result.stderr
    assert f"{bad}:1: item_key: Field required [schema]" in result.stderr


def test_nothing_is_disclosed_from_a_store_that_does_not_match(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    responses = sorted((root / ".private" / "responses" / "vol-001").glob("*.jsonl"))[0]
    rows = [json.loads(line) for line in responses.read_text("utf-8").splitlines()]
    number = next(n for n, r in enumerate(rows, start=1) if r["item"] == ITEM)
    rows[number - 1]["text"] += " (edited)"
    responses.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    out = tmp_path / "disclosure.json"
    result = cli("disclose", ITEM, "--out", str(out))
    assert result.exit_code == 2
    assert not out.exists()
    draws = f"bundles/vol-001/{responses.stem}/draws.jsonl"
    line = _draw_line(root, responses.stem, rows[number - 1]["half"], rows[number - 1]["draw"])
    assert (
        f"{responses.resolve()}:{number}: response to {ITEM} {rows[number - 1]['half']}"
        f"{rows[number - 1]['draw']} does not match the response_commitment of {draws}:{line} "
        "under the bank secret [private-commitment]"
    ) in result.stderr
