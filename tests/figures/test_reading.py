"""The registry read a figure at a time (issue 19) accepts exactly what ``load_document``
accepts, into equal models, and refuses the rest with the same problems at the same
lines; it drops each figure's part of the parse tree once its model is built."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.figures import load_registry, render
from generator.figures.reading import _figure_at_a_time, read_registry
from generator.hashing import sha256_file
from generator.models.figures import FiguresRegistry
from generator.store import Layout
from generator.store.jsonl import Problems, load_document

SOURCES = [{"path": "bank/bank.yaml", "sha256": "a" * 64}, {"path": "b.jsonl", "sha256": "b" * 64}]
OTHER = [{"path": "c.jsonl", "sha256": "c" * 64}]
MAX = 1 << 20


def _figure(name: str, sources: object) -> dict[str, Any]:
    return {
        "id": name,
        "label": "A rate",
        "kind": "rate",
        "value": "0.25",
        "precision": 2,
        "display": "25%",
        "intervals": {
            "narrow": {
                "lo": "0.10",
                "hi": "0.40",
                "display": "10–40%",
                "method": "wilson",
                "confidence": "0.95",
                "params": {"seed": 7},
            }
        },
        "method": "rate",
        "detail": {"items": ["i1", "i2"], "n": 4},
        "sources": sources,
    }


def _v2() -> dict[str, Any]:
    figures = {
        f"vol-001/f{n}": _figure(f"vol-001/f{n}", SOURCES if n < 3 else OTHER) for n in range(5)
    }
    return {"schema_version": 2, "generator": "probepress test", "figures": figures}


def _v3() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(render(FiguresRegistry.model_validate(_v2())))
    return loaded


def _both(path: Path) -> tuple[Any, list[Any], Any, list[Any]]:
    """What each reader makes of ``path``: result and problems, the careful reader first."""
    careful, light = Problems(), Problems()
    expected = load_document(path, FiguresRegistry, "figures.json", careful, MAX)
    got = read_registry(path, "figures.json", light, MAX)
    return expected, careful.items, got, light.items


@pytest.mark.parametrize("version", [2, 3])
def test_a_valid_registry_reads_into_the_same_models(tmp_path: Path, version: int) -> None:
    path = tmp_path / "figures.json"
    text = json.dumps(_v2()) if version == 2 else render(FiguresRegistry.model_validate(_v2()))
    path.write_text(text, "utf-8")
    expected, careful, got, light = _both(path)
    assert careful == light == [] and got is not None
    registry, digest = got
    assert registry == expected and list(registry.figures) == list(expected.figures)
    assert digest == sha256_file(path)
    if version == 3:  # the figures citing one list share its models, as read carefully
        figures = [registry.figures[f"vol-001/f{n}"] for n in range(3)]
        assert figures[0].sources[1] is figures[2].sources[1]


def _set(*loc: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        place = data
        for part in loc[:-1]:
            place = place[part]
        place[loc[-1]] = value

    return change


def _delete(*loc: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        place = data
        for part in loc[:-1]:
            place = place[part]
        del place[loc[-1]]

    return change


def _first_key(data: dict[str, Any]) -> str:
    return next(k for k, v in data["sources"].items() if len(v) == 2)


CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "a figure's value": _set("figures", "vol-001/f2", "value", value="1e3"),
    "two figures' fields": lambda d: (
        _set("figures", "vol-001/f0", "kind", value="guess")(d),
        _set("figures", "vol-001/f4", "precision", value=40)(d),
    ),
    "an unknown field": _set("figures", "vol-001/f1", "colour", value="red"),
    "a missing field": _delete("figures", "vol-001/f3", "label"),
    "an interval's bound": _set("figures", "vol-001/f1", "intervals", "narrow", "lo", value="low"),
    "a figure not an object": _set("figures", "vol-001/f1", value=[1, 2]),
    "a key not in the table": _set("figures", "vol-001/f1", "sources", value="0" * 16),
    "a key not a string": _set("figures", "vol-001/f1", "sources", value=7),
    "a table list": lambda d: _set("sources", _first_key(d), 1, "sha256", value="x")(d),
    "the table not an object": _set("sources", value=[]),
    "figures not an object": _set("figures", value=[]),
    "a newer schema version": _set("schema_version", value=9),
    "an unknown top-level field": _set("extra", value=1),
    "no generator": _delete("generator"),
    "a receipt": _set("receipts", value={"vol-001": {"scored_by": 3}}),
    "the document not an object": lambda d: d.clear(),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_refused_registry_has_the_careful_readers_problems(tmp_path: Path, change: str) -> None:
    data = _v3()
    CHANGES[change](data)
    path = tmp_path / "figures.json"
    text = json.dumps(data, indent=2) if data else "[]\n"
    path.write_text(text, "utf-8")
    expected, careful, got, light = _both(path)
    assert expected is None and got is None
    assert careful and light == careful
    assert any(p.line is not None for p in light) or change == "the document not an object"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"figures": {}, "figures": {}, "generator": "x"}',
        b'{"figures": {"a": \xff}}',
        b"\xef\xbb\xbf{}",
        b'{"figures": ',
        b"",
    ],
)
def test_an_unparsable_registry_has_the_careful_readers_problems(
    tmp_path: Path, raw: bytes
) -> None:
    path = tmp_path / "figures.json"
    path.write_bytes(raw)
    expected, careful, got, light = _both(path)
    assert expected is None and got is None and careful and light == careful


def test_a_symlinked_or_oversized_registry_is_refused_alike(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text(render(FiguresRegistry.model_validate(_v2())), "utf-8")
    link = tmp_path / "figures.json"
    link.symlink_to(real)
    expected, careful, got, light = _both(link)
    assert expected is None and got is None and careful and light == careful
    careful, light = Problems(), Problems()
    assert load_document(real, FiguresRegistry, "f", careful, 100) is None
    assert read_registry(real, "f", light, 100) is None
    assert careful.items and light.items == careful.items


def test_each_figures_part_of_the_tree_is_dropped_once_built() -> None:
    data = _v3()
    figures = data["figures"]
    registry = _figure_at_a_time(data)
    assert registry is not None and len(registry.figures) == 5
    assert figures == {}  # consumed: the tree shrinks while the models grow


def test_load_registry_keeps_the_read_until_the_file_changes(tmp_path: Path) -> None:
    layout = Layout.at(tmp_path, tmp_path / ".private")
    layout.figures_registry.parent.mkdir(parents=True)
    layout.figures_registry.write_text(render(FiguresRegistry.model_validate(_v2())), "utf-8")
    first = load_registry(layout)
    again = load_registry(layout)
    assert again.figures["vol-001/f0"] is first.figures["vol-001/f0"]
    data = _v2()
    data["figures"]["vol-001/f0"]["value"] = "0.50"
    layout.figures_registry.write_text(render(FiguresRegistry.model_validate(data)), "utf-8")
    changed = load_registry(layout)
    assert changed.figures["vol-001/f0"].value == "0.50"


def test_a_volumes_figures_left_out_are_still_validated(tmp_path: Path) -> None:
    data = _v2()
    data["figures"]["vol-002/g"] = _figure("vol-002/g", OTHER)
    path = tmp_path / "figures.json"
    path.write_text(render(FiguresRegistry.model_validate(data)), "utf-8")
    got = read_registry(path, "figures.json", Problems(), MAX, without="vol-001/")
    assert got is not None and list(got[0].figures) == ["vol-002/g"]
    assert got[0].generator == "probepress test" and got[1] == sha256_file(path)
    bad = _v3()
    bad["figures"]["vol-001/f2"]["value"] = "many"
    path.write_text(json.dumps(bad, indent=2), "utf-8")
    careful, light = Problems(), Problems()
    assert load_document(path, FiguresRegistry, "figures.json", careful, MAX) is None
    assert read_registry(path, "figures.json", light, MAX, without="vol-001/") is None
    assert careful.items and light.items == careful.items


def test_load_registry_without_a_volume_read_or_kept(tmp_path: Path) -> None:
    layout = Layout.at(tmp_path, tmp_path / ".private")
    layout.figures_registry.parent.mkdir(parents=True)
    data = _v2()
    data["figures"]["vol-002/g"] = _figure("vol-002/g", OTHER)
    layout.figures_registry.write_text(render(FiguresRegistry.model_validate(data)), "utf-8")
    read = load_registry(layout, without="vol-002/")  # read from the file: not kept
    assert sorted(read.figures) == [f"vol-001/f{n}" for n in range(5)]
    whole = load_registry(layout)
    assert len(whole.figures) == 6 and whole.figures["vol-001/f0"] is not read.figures["vol-001/f0"]
    kept = load_registry(layout, without="vol-001/")  # from the registry kept by the last
    assert list(kept.figures) == ["vol-002/g"]
    assert kept.figures["vol-002/g"] is whole.figures["vol-002/g"]
    assert len(load_registry(layout).figures) == 6
