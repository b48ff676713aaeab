"""Committed JSON Schemas match the models; the command writes and checks them."""

from __future__ import annotations

from pathlib import Path

from generator.schema import drift, schemas
from generator.store.paths import SCHEMAS
from tests.conftest import CliRun

REPO = Path(__file__).resolve().parents[1]


def test_committed_schemas_match_the_models() -> None:
    stale = drift(REPO / SCHEMAS)
    assert not stale, (
        f"JSON Schemas drift from the models: {', '.join(stale)}. "
        "Run `probepress schema` and commit site_src/downloads/schemas/."
    )


def test_every_format_has_a_documented_schema() -> None:
    import json

    for name, text in schemas().items():
        schema = json.loads(text)
        assert schema["additionalProperties"] is False, name
        for field, spec in schema["properties"].items():
            assert spec.get("description"), f"{name}: field {field} has no description"


def test_schema_command_writes_then_checks(cli: CliRun, tmp_path: Path) -> None:
    out = tmp_path / "schemas"
    assert cli("schema", "--check", "--out", str(out)).exit_code == 1
    assert cli("schema", "--out", str(out)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(schemas())
    assert cli("schema", "--check", "--out", str(out)).exit_code == 0
