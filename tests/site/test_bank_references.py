"""Reference answers in the downloads: a public item's are public (in the bank sources
download, which the figures cite), no per-version bank file carries any, and a held-out
item's reach no download at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from generator.canonical import dumps_line
from generator.site.downloads import plan
from generator.site.published import load_publication
from generator.store import Layout
from generator.store.bank import load_bank
from generator.store.jsonl import Bounds, Problems

HELD_OUT_ANSWER = "The held-out reference answer is forty-two point seven one nine."


def _lines(data: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def _give_a_held_out_item_a_reference(root: Path) -> None:
    """The private store's first held-out item gains a reference answer."""
    path = root / ".private" / "heldout_items.jsonl"
    items = _lines(path.read_bytes())
    items[0]["reference"] = {"answer": HELD_OUT_ANSWER, "known_wrong": []}
    items[0]["schema_version"] = 2
    path.write_text("".join(dumps_line(i) for i in items), "utf-8")


def test_public_references_are_published_and_held_out_ones_never(
    example_src: Path, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    shutil.copytree(example_src, root, symlinks=True)
    _give_a_held_out_item_a_reference(root)
    layout = Layout.at(root, root / ".private")
    problems = Problems()
    private = load_bank(layout, Bounds(), problems, private=True)
    assert private is not None and not problems.items
    assert any(item.reference for item in private.private.values())  # the mutation took
    public = load_bank(layout, Bounds(), problems, private=False)
    assert public is not None
    files = {f.name: f.data for f in plan(load_publication(layout), public)}

    # Public references are public: the bank sources download is bank/public.jsonl itself,
    # byte for byte (figures cite its SHA-256), references included.
    sources = files["bank/public.jsonl"]
    assert sources == (root / "bank" / "public.jsonl").read_bytes()
    with_reference = {i["id"]: i["reference"] for i in _lines(sources) if "reference" in i}
    assert with_reference
    for item_id, reference in with_reference.items():
        declared = public.public[item_id].reference
        assert declared is not None
        assert reference == declared.model_dump(mode="json")

    # The per-version downloads carry no reference (their bytes predate references).
    versions = [name for name in files if name.startswith("bank_")]
    assert versions
    for name in versions:
        assert all("reference" not in item for item in _lines(files[name]))

    # No held-out reference reaches any download (texts long enough not to occur by chance).
    secret = [t for item in private.private.values() for t in item.reference_texts()]
    secret = [t.encode("utf-8") for t in secret if len(t) >= 40]
    assert HELD_OUT_ANSWER.encode("utf-8") in secret and len(secret) > 1
    for name, data in files.items():
        assert not [t for t in secret if t in data], name
