"""Keyed commitments: the scheme as documented, the bank secret, and no plain digest of
held-out text anywhere public."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import stat
import subprocess
import unicodedata
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from generator import commitments
from generator.demo import build as demo_build
from generator.demo.spec import EXAMPLE
from generator.errors import InputError
from generator.store import Layout
from tests import commitment_ref
from tests.conftest import CliRun
from tests.factories import VOL1, bundle_dir, first_slug

REPO = Path(__file__).resolve().parents[1]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_index_commitments_follow_the_documented_scheme(example_src: Path) -> None:
    secret = commitment_ref.secret_of(example_src / ".private")
    items = {i["id"]: i for i in _jsonl(example_src / ".private" / "heldout_items.jsonl")}
    index = _jsonl(example_src / "bank" / "heldout_index.jsonl")
    assert index and {e["id"] for e in index} == set(items)
    for entry in index:
        item = items[entry["id"]]
        key = commitment_ref.item_key(secret, entry["id"])
        criterion = {"check": item.get("check"), "pass_criterion": item["pass_criterion"]}
        if item.get("rubric") is not None:  # the rubric is committed with the criterion
            criterion["rubric"] = item["rubric"]
        assert entry["prompt_commitment"] == commitment_ref.commit(
            key, "probepress/prompt/v1", item["prompt"]
        )
        assert entry["criterion_commitment"] == commitment_ref.commit(
            key, "probepress/criterion/v1", criterion
        )
        assert entry["schema_version"] == 2
        assert not {"text_sha256", "prompt", "pass_criterion", "check"} & set(entry)


def test_response_commitments_bind_the_draw(example_src: Path) -> None:
    secret = commitment_ref.secret_of(example_src / ".private")
    slug = first_slug(example_src)
    private = _jsonl(example_src / ".private" / "responses" / VOL1 / f"{slug}.jsonl")
    texts = {(r["item"], r["half"], r["draw"]): r["text"] for r in private}
    draws = _jsonl(bundle_dir(example_src, slug) / "draws.jsonl")
    committed = [d for d in draws if "response_commitment" in d]
    assert len(committed) == len(texts) > 0
    values = set()
    for d in committed:
        key = commitment_ref.item_key(secret, d["item"])
        text = texts[(d["item"], d["half"], d["draw"])]
        expected = commitment_ref.response(key, VOL1, slug, d["item"], d["half"], d["draw"], text)
        assert d["response_commitment"] == expected
        values.add(expected)
    # Identical answers to one item (Tier 0 answers repeat) still get distinct values.
    assert len(set(texts.values())) < len(texts)
    assert len(values) == len(committed)


def test_item_keys_are_distinct_and_are_not_the_secret() -> None:
    secret = commitments.demo_secret(EXAMPLE.seed)
    keys = {commitments.item_key(secret, f"h-item-{n}") for n in range(50)}
    assert len(keys) == 50 and secret not in keys
    assert commitments.item_key(secret, "h-a") == commitment_ref.item_key(secret, "h-a")


def test_labels_separate_the_domains() -> None:
    key = bytes(32)
    same = "the same text"
    assert commitments.prompt_commitment(key, same) != commitments.commit(
        key, commitments.RESPONSE_LABEL, same
    )


# --- (a) no plain digest of any held-out text in anything public -------------------------

ALGORITHMS = ("sha256", "sha1", "md5", "sha512", "blake2b", "sha3_256")


def _variants(text: str) -> set[str]:
    forms = {text, text.strip()}
    for form in list(forms):
        forms |= {unicodedata.normalize("NFC", form), unicodedata.normalize("NFKC", form)}
    forms |= {f.casefold() for f in forms}
    return {f for f in forms if f}


def _encodings(digest: bytes) -> Iterator[str]:
    yield digest.hex()
    yield digest.hex().upper()
    for b64 in (base64.b64encode(digest), base64.urlsafe_b64encode(digest)):
        yield b64.decode("ascii")
        yield b64.decode("ascii").rstrip("=")


def _needles(texts: set[str]) -> set[str]:
    out = set()
    for text in texts:
        for form in _variants(text):
            data = form.encode("utf-8")
            for name in ALGORITHMS:
                out.update(_encodings(hashlib.new(name, data).digest()))
    return out


def _secret_texts(private: dict[str, bytes]) -> set[str]:
    """Every held-out prompt (whole, joined and per message), criterion, check, response."""
    texts: set[str] = set()
    for line in private["heldout_items.jsonl"].decode("utf-8").splitlines():
        item = json.loads(line)
        prompt = item["prompt"]
        parts = [prompt] if isinstance(prompt, str) else [m["content"] for m in prompt]
        texts |= {*parts, "\n".join(parts), item["pass_criterion"]}
        texts.add(json.dumps(item["prompt"], sort_keys=True, separators=(",", ":")))
        if item.get("check") is not None:
            texts.add(json.dumps(item["check"], sort_keys=True, separators=(",", ":")))
    for name, data in private.items():
        if name.startswith("responses/"):
            texts |= {json.loads(line)["text"] for line in data.decode("utf-8").splitlines()}
    return texts


@cache
def _example_needles() -> frozenset[str]:
    return frozenset(_needles(_secret_texts(demo_build.build().private)))


TOKEN = re.compile(r"[0-9A-Za-z+/=_-]{22,}")
LENGTHS = {len(n) for n in ("0" * 32, "0" * 40, "0" * 64, "0" * 128)} | {22, 24, 27, 28}
LENGTHS |= {43, 44, 86, 88}


def _found(data: bytes, needles: frozenset[str]) -> list[str]:
    """Needles in ``data``: every window of a digest's length inside each token."""
    hits = []
    for match in TOKEN.finditer(data.decode("latin-1")):
        token = match.group()
        for size in LENGTHS:
            for start in range(len(token) - size + 1):
                if token[start : start + size] in needles:
                    hits.append(token[start : start + size])
    return hits


def test_the_needles_find_a_plain_digest() -> None:
    needles = _example_needles()
    text = json.loads(demo_build.build().private["heldout_items.jsonl"].splitlines()[0])
    criterion = text["pass_criterion"]
    planted = hashlib.md5(criterion.strip().casefold().encode()).hexdigest()
    data = b'{"response_sha256":"' + planted.encode() + b'"}'
    assert _found(data, needles) == [planted]
    b64 = base64.b64encode(hashlib.sha3_256(criterion.encode()).digest()).decode()
    assert b64 in _found(f"x {b64} y".encode(), needles)


def test_no_digest_of_heldout_text_in_the_generated_example(example_src: Path) -> None:
    needles = _example_needles()
    files = [p for p in example_src.rglob("*") if p.is_file() and ".private" not in p.parts]
    assert any(p.name == "draws.jsonl" for p in files)
    leaks = {p.relative_to(example_src).as_posix(): _found(p.read_bytes(), needles) for p in files}
    assert not {k: v for k, v in leaks.items() if v}


def test_no_digest_of_heldout_text_in_any_tracked_file() -> None:
    """The committed example, its frozen pages and its published downloads included."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    files = [REPO / name for name in listed.decode("utf-8").split("\0") if name]
    tracked = {p.relative_to(REPO).as_posix() for p in files}
    # Bundles are committed once (bundles/); the downloads' copies are written at build.
    assert any(t.startswith("bundles/") and t.endswith("/draws.jsonl") for t in tracked)
    assert "site_src/downloads/SHA256SUMS" in tracked
    needles = _example_needles()
    leaks = {p.relative_to(REPO).as_posix(): _found(p.read_bytes(), needles) for p in files}
    assert not {k: v for k, v in leaks.items() if v}


# --- the bank secret ---------------------------------------------------------------------


def test_missing_secret_is_a_clear_exit_2(cli: CliRun, root: Path) -> None:
    path = root / ".private" / "bank-secret.key"
    path.unlink()
    result = cli("show", VOL1)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert (
        f"{path.resolve()}: the private store holds no bank secret [bank-secret]; fix: pass "
        "--private DIR (or set PROBEPRESS_PRIVATE) to the private store that holds "
        "bank-secret.key; run `probepress demo` for the example"
    ) in result.stderr


def test_malformed_secret_is_a_clear_exit_2(cli: CliRun, root: Path) -> None:
    path = root / ".private" / "bank-secret.key"
    path.write_text("abc\n", "ascii")
    result = cli("show", VOL1)
    assert result.exit_code == 2
    expected = f"{path.resolve()}:1: the bank secret is not 64 hex digits [bank-secret]"
    assert expected in result.stderr


def test_the_demo_never_replaces_another_secret(cli: CliRun, root: Path) -> None:
    path = root / ".private" / "bank-secret.key"
    path.write_text("11" * 32 + "\n", "ascii")
    before = (root / "bank" / "heldout_index.jsonl").read_bytes()
    result = cli("demo")
    assert result.exit_code == 2
    assert (
        f"{path.resolve()}: the private store already holds another bank secret; it is never "
        "replaced [bank-secret]; fix: use another --private directory"
    ) in result.stderr
    assert path.read_text("ascii") == "11" * 32 + "\n"
    assert (root / "bank" / "heldout_index.jsonl").read_bytes() == before


def test_the_demo_writes_its_secret_private(root: Path) -> None:
    path = root / ".private" / "bank-secret.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert bytes.fromhex(path.read_text("ascii")) == commitments.demo_secret(EXAMPLE.seed)


def test_ensure_secret_creates_a_random_secret_once(tmp_path: Path) -> None:
    first = Layout.at(tmp_path / "a", tmp_path / "a-private")
    second = Layout.at(tmp_path / "b", tmp_path / "b-private")
    secret = commitments.ensure_secret(first)
    assert len(secret) == 32
    assert commitments.ensure_secret(first) == secret
    assert commitments.ensure_secret(second) != secret
    assert stat.S_IMODE((tmp_path / "a-private" / "bank-secret.key").stat().st_mode) == 0o600


def test_a_symlinked_secret_is_refused(tmp_path: Path) -> None:
    layout = Layout.at(tmp_path, tmp_path / "private")
    (tmp_path / "private").mkdir()
    (tmp_path / "elsewhere").write_text("22" * 32 + "\n", "ascii")
    (tmp_path / "private" / "bank-secret.key").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError) as caught:
        commitments.load_secret(layout)
    assert caught.value.problems[0].message == "the private store holds no bank secret"
