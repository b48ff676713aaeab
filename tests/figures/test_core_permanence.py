"""The core is permanent: retiring core items never shrinks the core rate (DESIGN §14).

Retirement only takes an item out of the active full bank; a retired core item keeps
being run and stays in the core rate, and its draws are not "unknown items".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import CliRun


def _figures(root: Path) -> dict[str, Any]:
    data = json.loads((root / "figures" / "figures.json").read_text("utf-8"))
    return data["figures"]  # type: ignore[no-any-return]


def _core_ids(root: Path) -> list[str]:
    lines = [
        json.loads(x)
        for name in ("public.jsonl", "heldout_index.jsonl")
        for x in (root / "bank" / name).read_text("utf-8").splitlines()
    ]
    return sorted(item["id"] for item in lines if item["core"])


def test_retiring_two_core_items_leaves_the_core_rate_unchanged(root: Path, cli: CliRun) -> None:
    before = _figures(root)
    core = _core_ids(root)
    assert len(core) == 63
    manifest = root / "bank" / "bank.yaml"
    doc = yaml.safe_load(manifest.read_text("utf-8"))
    doc["versions"][0]["retired"] = core[:2]  # retired from v1 on: vol-001 runs v1
    manifest.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    result = cli("figures", "vol-001")
    assert result.exit_code == 0, result.output
    after = _figures(root)
    rates = sorted(f for f in before if f.startswith("vol-001/") and f.endswith("/core_rate"))
    assert rates
    for fid in rates:
        assert after[fid]["value"] == before[fid]["value"], fid
        assert after[fid]["detail"]["items"] == 63, fid
        assert after[fid]["detail"]["draws"] == before[fid]["detail"]["draws"], fid
        full = fid.replace("/core_rate", "/full_rate")
        assert after[full]["detail"]["items"] == before[full]["detail"]["items"] - 2, full
    assert cli("gate", "preflight", "vol-001").exit_code == 0  # no "unknown item" draws
