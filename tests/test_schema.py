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


def test_labels_scoring_and_the_reference_are_in_the_schemas() -> None:
    import json

    found = {n.removesuffix(".schema.json"): json.loads(t) for n, t in schemas().items()}
    for name in ("verdict", "panel-vote"):
        schema = found[name]
        assert "label" in schema["properties"], name
        assert schema["properties"]["schema_version"]["default"] == 2, name
    volume = found["volume"]
    assert volume["properties"]["schema_version"]["default"] == 4
    assert volume["$defs"]["Baseline"]["additionalProperties"] is False
    scoring = volume["$defs"]["Scoring"]
    assert scoring["additionalProperties"] is False
    assert scoring["properties"]["reference"]["enum"] == [
        "grader",
        "panel-majority",
        "adjudication",
    ]
    rule = volume["$defs"]["ItemGroup"]["properties"]["rule"]
    (outcome,) = rule["patternProperties"].values()
    assert outcome["enum"] == ["pass", "fail", "refused"]
