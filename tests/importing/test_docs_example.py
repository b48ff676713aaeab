"""The README's worked example of the records format imports exactly as documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.importing.factories import fill_volume, init, run

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text("utf-8")
SITE_PAGE = (REPO / "site_src" / "publish.md").read_text("utf-8")


def _block(text: str, language: str, after: str) -> str:
    start = text.index(after)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match is not None
    return match.group(1)


def test_the_worked_example_imports(tmp_path: Path) -> None:
    records = _block(README, "csv", "A worked\nexample")
    manifest = _block(README, "yaml", "gives what the rows do not")
    assert records in SITE_PAGE and manifest in SITE_PAGE  # the site page says the same
    root = tmp_path / "root"
    init(root, "facts")
    items = tmp_path / "items.csv"
    items.write_text(
        "id,category,prompt,pass_criterion,status,written_by,written_on,reviewed_by,reviewed_on,"
        "validated_by,validated_on\n"
        "q-001,facts,What is the capital of France?,Names Paris.,validated,"
        "wes,2025-01-03,ann,2025-01-05,val,2025-01-06\n"
        "q-002,facts,Name a prime.,Names a prime.,validated,"
        "wes,2025-01-03,ann,2025-01-05,val,2025-01-06\n",
        "utf-8",
    )
    assert run(root, "import", "items", str(items)).exit_code == 0
    fill_volume(
        root,
        grader=("judge-large", "judgeco"),
        panel=[("panel-a", "a"), ("panel-b", "b"), ("panel-c", "c")],
        candidates=[("acme-chat-2025-01", "Acme Chat")],
        probe="refusal-bait",
    )
    (tmp_path / "records.csv").write_text(records, "utf-8")
    (tmp_path / "manifest.yaml").write_text(manifest, "utf-8")
    result = run(
        root,
        "import",
        "records",
        "vol-001",
        str(tmp_path / "records.csv"),
        "--manifest",
        str(tmp_path / "manifest.yaml"),
        "--pass-label",
        "0",
        "--fail-label",
        "1",
    )
    assert result.exit_code == 0, result.output
    bundle = root / "bundles" / "vol-001" / "acme-chat-2025-01"
    verdicts = [json.loads(x) for x in (bundle / "verdicts.jsonl").read_text().splitlines()]
    assert [v["verdict"] for v in verdicts] == ["pass", "fail"]
    qualification = (bundle / "qualification.jsonl").read_text("utf-8")
    assert '"probe":"refusal-bait"' in qualification
