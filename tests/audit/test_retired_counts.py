"""Retired items and the pre-registered minimums (DESIGN §14, issue 18).

The core is permanent: a retired core item stays in the core rate and keeps being run;
retirement only takes an item out of the active full bank. The per-category minimum
(audit balance, figures) and the volume minimum (publishing gate) count the active full
bank, so the three agree with each other and with the full-bank rate's item count.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import CliRun
from tests.factories import edit_volume

VOL = "vol-002"  # runs bank v1.2: core items (v1) and later ones


def _items(root: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for name in ("public.jsonl", "heldout_index.jsonl")
        for line in (root / "bank" / name).read_text("utf-8").splitlines()
    ]


def _retire_two(root: Path, category: str) -> tuple[str, str]:
    """Retire one core and one non-core validated item of ``category`` from v1.2 on."""
    rows = [r for r in _items(root) if r["category"] == category and r["status"] == "validated"]
    core = sorted(r["id"] for r in rows if r["core"])[0]
    later = sorted(r["id"] for r in rows if not r["core"])[0]
    manifest = root / "bank" / "bank.yaml"
    doc = yaml.safe_load(manifest.read_text("utf-8"))
    version = next(v for v in doc["versions"] if v["id"] == "v1.2")
    version["retired"] = [core, later]
    manifest.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    return core, later


def _thresholds(root: Path, **values: int) -> None:
    edit_volume(root, lambda doc: doc["thresholds"].update(values), VOL)


def _figures(root: Path) -> dict[str, Any]:
    return json.loads((root / "figures" / "figures.json").read_text("utf-8"))["figures"]  # type: ignore[no-any-return]


def test_a_retired_core_item_is_not_counted_toward_the_category_minimum(
    root: Path, cli: CliRun
) -> None:
    before = Counter(r["category"] for r in _items(root) if r["status"] == "validated")
    assert before["arithmetic"] == 8  # 7 core + 1 added in v1.1
    assert before["multi-part-instructions"] == 7
    _retire_two(root, "arithmetic")
    _thresholds(root, min_category_items=7)
    assert cli("figures", VOL).exit_code == 0
    found = _figures(root)
    withheld = found[f"{VOL}/category/arithmetic/withheld"]
    assert withheld["value"] == "6"  # neither retired item counts in the full bank
    assert f"{VOL}/category/multi-part-instructions/withheld" not in found
    result = cli("audit", VOL)
    assert result.exit_code == 1
    assert (
        f"FAIL: balance: bundles/{VOL}/volume.yaml: category arithmetic has 6 validated "
        "items, below the pre-registered minimum of 7: its per-category rates are "
        "withheld (not published); add validated items [audit/category-below-minimum]"
    ) in result.stderr
    assert "category multi-part-instructions has" not in result.stderr  # 7: not below


def test_a_retired_core_item_is_not_counted_toward_the_volume_minimum(
    root: Path, cli: CliRun
) -> None:
    retired = _retire_two(root, "arithmetic")
    # Every version of the example bank is up to v1.2, which vol-002 runs.
    validated = {r["id"] for r in _items(root) if r["status"] == "validated"}
    count = len(validated - set(retired))  # the active full bank: neither retired item
    assert cli("figures", VOL).exit_code == 0
    core = {
        f["detail"]["items"]
        for k, f in _figures(root).items()
        if k.startswith(VOL) and k.endswith("/core_rate")
    }
    assert core == {63}  # the retired core item stays in the core rate
    _thresholds(root, min_volume_items=count + 1)
    result = cli("gate", "publishing", VOL)
    assert result.exit_code == 1
    assert (
        f"bundles/{VOL}/volume.yaml: bank v1.2 has {count} validated items, below the "
        f"pre-registered minimum of {count + 1} for publishing a volume "
        "(thresholds.min_volume_items); 1 retired core item not counted (retired items "
        "leave the full bank; core ones stay in the core rate only) "
        "[publishing/volume-below-minimum]"
    ) in result.stderr
    _thresholds(root, min_volume_items=count)
    assert "volume-below-minimum" not in cli("gate", "publishing", VOL).stderr
