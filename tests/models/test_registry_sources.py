"""The figures registry writes each distinct source list once (schema version 3) and reads
back exactly the figures it was given; version 2 files, with a list in every figure, still
read; a figure citing a key the table lacks is refused."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from generator.canonical import dumps
from generator.figures import render
from generator.models.base import json_validator
from generator.models.figures import Figure, FiguresRegistry

SOURCES = [{"path": "bank/bank.yaml", "sha256": "a" * 64}, {"path": "b.jsonl", "sha256": "b" * 64}]
OTHER = [{"path": "c.jsonl", "sha256": "c" * 64}]


def _figure(name: str, sources: object) -> dict[str, object]:
    return {
        "id": name,
        "label": "A count",
        "kind": "count",
        "value": "3",
        "precision": 0,
        "display": "3",
        "method": "count",
        "sources": sources,
    }


def _v2() -> dict[str, object]:
    figures = {
        f"vol-001/f{n}": _figure(f"vol-001/f{n}", SOURCES if n < 3 else OTHER) for n in range(4)
    }
    return {"schema_version": 2, "generator": "probepress test", "figures": figures}


def test_each_source_list_is_written_once_and_read_back_into_every_figure() -> None:
    before = FiguresRegistry.model_validate(_v2())
    text = render(before)
    data = json.loads(text)
    assert data["schema_version"] == 3
    assert sorted(data["sources"].values(), key=len) == [OTHER, SOURCES]
    assert {f["sources"] for f in data["figures"].values()} == set(data["sources"])
    for read in (
        FiguresRegistry.model_validate_json,
        json_validator(FiguresRegistry).validate_json,
    ):
        after = read(text)
        assert after.figures == before.figures and after.sources == {}
    assert render(FiguresRegistry.model_validate_json(text)) == text


def test_a_key_missing_from_the_table_is_refused() -> None:
    data = json.loads(render(FiguresRegistry.model_validate(_v2())))
    data["figures"]["vol-001/f1"]["sources"] = "0" * 16
    with pytest.raises(ValidationError, match="figure vol-001/f1: sources '0000000000000000'"):
        FiguresRegistry.model_validate_json(json.dumps(data))


def test_a_version_2_file_still_reads() -> None:
    registry = FiguresRegistry.model_validate_json(json.dumps(_v2()))
    assert registry.figures["vol-001/f3"].sources[0].path == "c.jsonl"


def test_figures_citing_one_list_share_its_sources_and_field_names() -> None:
    """Issue 19: a registry in memory holds one model per source file, not one per
    figure, and one set of field names per shape; a copy with other fields has its own."""
    after = FiguresRegistry.model_validate_json(render(FiguresRegistry.model_validate(_v2())))
    figures = [after.figures[f"vol-001/f{n}"] for n in range(4)]
    assert all(a is b for a, b in zip(figures[0].sources, figures[1].sources, strict=True))
    assert figures[0].sources[0] is figures[2].sources[0]
    assert figures[0].model_fields_set is figures[3].model_fields_set
    one, two = (Figure.model_validate(_figure(f"vol-001/g{n}", OTHER)) for n in range(2))
    assert one.model_fields_set is two.model_fields_set
    copied = one.model_copy(update={"detail": {"n": 1}})
    assert "detail" in copied.model_fields_set
    assert "detail" not in one.model_fields_set | two.model_fields_set


def test_an_invalid_table_list_is_reported_in_every_figure_citing_it() -> None:
    data = json.loads(render(FiguresRegistry.model_validate(_v2())))
    key = next(k for k, v in data["sources"].items() if len(v) == 2)
    data["sources"][key][1]["sha256"] = "x"
    with pytest.raises(ValidationError) as raised:
        FiguresRegistry.model_validate_json(json.dumps(data))
    assert sorted(e["loc"] for e in raised.value.errors()) == [
        ("figures", f"vol-001/f{n}", "sources", 1, "sha256") for n in range(3)
    ]


@pytest.mark.parametrize("count", [0, 1, 4])
def test_the_file_written_a_figure_at_a_time_is_canonical_json(count: int) -> None:
    data = _v2()
    data["figures"] = dict(list(data["figures"].items())[:count])  # type: ignore[attr-defined]
    text = render(FiguresRegistry.model_validate(data))
    assert dumps(json.loads(text)) == text
