"""Hostile inputs for the render tests: text planted wherever a page shows untrusted text."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from generator.figures.tally import panel_majority
from generator.models.records import MAX_RESPONSE
from generator.store import Layout, load_volume
from generator.store.bank import item_text_sha256
from generator.store.rowtypes import DrawKey
from tests.factories import edit_json, edit_lines

SLUG = "demo-aurora-aurora-7b-chat"
VOL = "vol-001"
PAYLOAD = (
    '<script>alert("r")</script></style><img src=x onerror=alert(1)>'
    '<a href="javascript:alert(2)">click</a>'
    '<svg onload=alert(3)><circle r="9" onclick="alert(4)"/></svg>'
    "<!-- hidden --><style>body{background:url(https://evil.example/x.png)}</style>"
    " left\u202eright\u202c and \u2066isolate\u2069 end 漢字 😀"
)
NAME = '<script>alert("n")</script>\u202eemaN evil'
GATEWAY = '"><img src=x onerror=alert(5)>'
RUNNER = "javascript:alert(6)//<b>"


def public_disagreements(root: Path) -> list[DrawKey]:
    data = load_volume(Layout.at(root, root / ".private"), VOL, private=False)
    bundle = data.bundles[SLUG]
    verdicts = {v.key: v.verdict for v in bundle.verdicts}
    return sorted(
        k
        for k, m in panel_majority(bundle).items()
        if m is not None
        and verdicts.get(k) in ("pass", "fail")
        and verdicts[k] != m
        and not data.bank.is_heldout(k.item)
    )


def make_hostile(root: Path) -> DrawKey:
    """Plant hostile text everywhere a page shows untrusted text; return the long draw."""
    keys = public_disagreements(root)
    assert keys, "the example needs a public disagreement"
    long_key = keys[0]
    directory = root / "bundles" / VOL / SLUG
    wanted = {(k.item, k.half, k.draw) for k in keys}

    def draws(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        for row in rows:
            key = (row["item"], row["half"], row["draw"])
            if key in wanted and row.get("response") is not None:
                row["response"] = PAYLOAD
                if key == tuple(long_key):
                    row["response"] = (PAYLOAD + "A" * MAX_RESPONSE)[:MAX_RESPONSE]
        return rows

    def verdicts(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        for row in rows:
            if (row["item"], row["half"], row["draw"]) in wanted:
                row["evidence"] = PAYLOAD[:300]
        return rows

    edit_lines(directory, "draws.jsonl", draws)
    edit_lines(directory, "verdicts.jsonl", verdicts)

    def manifest(data: dict[str, object]) -> None:
        data["candidate"]["display_name"] = NAME  # type: ignore[index]
        data["endpoint"]["gateway"] = GATEWAY  # type: ignore[index]
        data["runner"]["name"] = RUNNER  # type: ignore[index]

    edit_json(directory / "bundle.json", manifest)
    volume_file = root / "bundles" / VOL / "volume.yaml"
    volume = yaml.safe_load(volume_file.read_text("utf-8"))
    for ref in volume["candidates"]:
        if ref["api"] == "demo-aurora/aurora-7b-chat":
            ref["display_name"] = NAME
    volume_file.write_text(yaml.safe_dump(volume, allow_unicode=True, sort_keys=False), "utf-8")
    public = root / "bank" / "public.jsonl"
    items = [json.loads(line) for line in public.read_text("utf-8").splitlines()]
    for item in items:
        if item["id"] == long_key.item:
            item["prompt"] = "Prompt " + PAYLOAD
            item["text_sha256"] = item_text_sha256(
                item["prompt"], item["pass_criterion"], item.get("check")
            )
    public.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), "utf-8")
    return long_key
