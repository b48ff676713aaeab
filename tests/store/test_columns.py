"""Rows kept as columns read back as the named tuples they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.rubric import Mark, Marks
from generator.store import Layout, load_volume
from generator.store.columns import MAYBE_CODES, Builder, Columns, Values
from generator.store.rowtypes import (
    DRAWS,
    PANEL,
    VERDICTS,
    DrawKey,
    DrawRow,
    PanelRow,
    VerdictRow,
)

KEY = DrawKey("adv-001", "A", 1)
MARKS = Marks(True, (Mark("m1", "must_include", True, False),))
DRAW_ROWS = [
    DrawRow(1, KEY, ("ok",), False, True, True),
    DrawRow(2, KEY._replace(draw=2), ("timeout", "timeout"), True, False, None),
    DrawRow(70_000, KEY._replace(half="B"), ("ok",), False, True, False),
]
VERDICT_ROWS = [
    VerdictRow(1, KEY, 1, "g", "pass", False, True, None, MARKS),
    VerdictRow(2, KEY._replace(draw=2), 0, None, "lost", True, False, "x", None),
]
VOTE_ROWS = [PanelRow(3, KEY, "judge-a", "fam", "fail", "stratified", None)]


def _same(found: Columns[DrawRow], rows: list[DrawRow]) -> None:
    assert list(found) == rows and found == rows and len(found) == len(rows)
    assert [type(r) for r in found] == [type(r) for r in rows]
    for got, want in zip(found, rows, strict=True):
        assert [type(x) for x in got] == [type(x) for x in want]  # True stays True, not 1


@pytest.mark.parametrize(
    ("schema", "rows"), [(DRAWS, DRAW_ROWS), (VERDICTS, VERDICT_ROWS), (PANEL, VOTE_ROWS)]
)
def test_rows_read_back_as_they_went_in(schema: object, rows: list[DrawRow]) -> None:
    found = Columns.of(schema, Values(), rows)  # type: ignore[arg-type]
    _same(found, rows)
    assert [found[n] for n in range(len(rows))] == rows
    assert found[-1] == rows[-1] and found[1:] == rows[1:] and found[::-1] == rows[::-1]
    with pytest.raises(IndexError):
        found[len(rows)]


def test_values_are_kept_once_and_keys_stay_draw_keys() -> None:
    values = Values()
    first = Columns.of(DRAWS, values, DRAW_ROWS)
    plain = [(5, ("adv-001", "A", 1), ("ok",), False, True, None)]  # a key as a plain tuple
    second = first.like(plain)
    assert second[0].key is first[0].key and isinstance(second[0].key, DrawKey)
    assert second[0].statuses is first[0].statuses
    assert len(values.items) == 5  # three keys, two status tuples


def test_keep_and_like() -> None:
    rows = Columns.of(DRAWS, Values(), DRAW_ROWS)
    assert rows.keep(lambda r: not r.lost) == [DRAW_ROWS[0], DRAW_ROWS[2]]
    assert rows.keep(lambda r: True) is rows
    assert rows.keep(lambda r: False) == []
    assert rows.like(reversed(DRAW_ROWS)) == DRAW_ROWS[::-1]
    assert rows.like([]) == [] and rows != DRAW_ROWS[:2]


def test_the_builder_gives_the_columns_of_its_rows() -> None:
    values = Values()
    built = Builder(DRAWS, values)
    for r in DRAW_ROWS:
        key = values.made(tuple(r.key), tuple)
        built.add(
            (r.line, key, values.number(r.statuses), r.lost, r.has_text, MAYBE_CODES[r.tier0_pass])
        )
    assert built.done() == DRAW_ROWS


def test_a_value_that_does_not_fit_its_kind_is_refused() -> None:
    with pytest.raises(KeyError):
        Columns.of(DRAWS, Values(), [DRAW_ROWS[0]._replace(lost="yes")])
    with pytest.raises(KeyError):
        Columns.of(DRAWS, Values(), [DRAW_ROWS[0]._replace(tier0_pass=2)])
    with pytest.raises(OverflowError):
        Columns.of(DRAWS, Values(), [DRAW_ROWS[0]._replace(line=2**40)])
    with pytest.raises(TypeError):
        Columns.of(DRAWS, Values(), [DRAW_ROWS[0]._replace(statuses=["ok"])])


def test_a_volume_keeps_one_set_of_values(example_src: Path) -> None:
    data = load_volume(Layout.at(example_src, example_src / ".private", cache=False), "vol-001")
    bundles = list(data.bundles.values())
    assert bundles
    values = bundles[0].draws.values
    for b in bundles:
        assert b.draws.values is b.verdicts.values is b.panel.values is values
    assert len(values.items) < sum(len(b.draws) for b in bundles)
