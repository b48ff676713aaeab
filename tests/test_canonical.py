"""The canonical JSON writer is ``json.dumps(indent=2)`` as it was used, byte for byte."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator import canonical
from generator.canonical import dumps, write_bytes


def reference(data: Any) -> str:
    """What ``canonical.dumps`` returned before it had a writer of its own."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


class Level(enum.IntEnum):
    LOW = 1


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats()  # NaN and the infinities too: json writes them, so must the writer
    | st.text()  # any code point, surrogates and controls included
    | st.sampled_from(["", "\u2028", '"\\/', "\x00\x1f\x7f", "é✓𝄞", Level.LOW])
)
# Keys of one type per dict: json sorts the items before it turns keys into text, and
# keys of mixed types do not sort (both then raise the same TypeError, tested below).
keys = st.one_of(st.text(), st.integers(), st.floats(allow_nan=False), st.booleans(), st.just(None))


def _dicts(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[Any, Any]]:
    return keys.flatmap(
        lambda k: st.dictionaries(st.from_type(type(k)) if k is not None else st.none(), children)
    )


documents = st.recursive(
    scalars,
    lambda children: (
        (st.lists(children) | st.lists(children).map(tuple) | st.dictionaries(st.text(), children))
        | _dicts(children)
    ),
    max_leaves=60,
)


@given(documents)
def test_dumps_is_json_dumps_with_indent_two(data: Any) -> None:
    assert dumps(data) == reference(data)


@given(st.dictionaries(keys, scalars, max_size=8))
def test_keys_of_every_kind_sort_and_convert_as_json_does(data: dict[Any, Any]) -> None:
    try:
        expected: str | type[BaseException] = reference(data)
    except TypeError:
        expected = TypeError
    if expected is TypeError:
        with pytest.raises(TypeError):
            dumps(data)
    else:
        assert dumps(data) == expected


def test_the_special_floats_and_subclasses_are_written_as_json_writes_them() -> None:
    data = {
        "nan": math.nan,
        "inf": [math.inf, -math.inf, -0.0, 1e16, 5e-324],
        "enum": Level.LOW,
        "ordered": OrderedDict([("b", 1), ("a", (2, [], {}))]),
        "empty": [[], {}, ()],
        1.5: True,
    }
    with pytest.raises(TypeError):
        reference(data)  # a float key beside str keys does not sort
    del data[1.5]
    assert dumps(data) == reference(data)
    assert dumps({1.5: None, 2.0: 0}) == reference({1.5: None, 2.0: 0})
    assert dumps("text") == reference("text")


@pytest.mark.parametrize("bad", [Decimal("1.0"), {1, 2}, b"bytes", object()])
def test_what_json_refuses_is_refused_with_the_same_error(bad: Any) -> None:
    for data in (bad, [bad], {"a": bad}):
        with pytest.raises(TypeError) as expected:
            reference(data)
        with pytest.raises(TypeError) as got:
            dumps(data)
        assert str(got.value) == str(expected.value)
    with pytest.raises(TypeError) as expected_key:
        reference({(1, 2): 0})
    with pytest.raises(TypeError) as got_key:
        dumps({(1, 2): 0})
    assert str(got_key.value) == str(expected_key.value)


def test_a_cycle_is_refused_as_json_refuses_it() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    with pytest.raises(ValueError, match="Circular reference detected"):
        reference(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps(loop)
    shared = [1, 2]
    assert dumps([shared, {"x": shared}]) == reference([shared, {"x": shared}])


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"", b""),
        (b"abc", b"abc"),
        (b"x" * 5, b"x" * 5),
        (b"x" * 5, b"x" * 4),
        (b"x" * 4, b"x" * 5),
        (b"x" * 4 + b"y", b"x" * 5),
        (b"", b"a"),
        (b"a", b""),
    ],
)
def test_write_bytes_writes_only_what_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: bytes, after: bytes
) -> None:
    """The file is compared a block at a time (blocks of 2 bytes here): unchanged bytes
    are not written, any other bytes are, whatever the length of either (issue 19)."""
    monkeypatch.setattr(canonical, "_COMPARED", 2)
    path = tmp_path / "f.json"
    path.write_bytes(before)
    stamp = path.stat().st_mtime_ns
    assert write_bytes(path, after, tmp_path) is (before != after)
    assert path.read_bytes() == after
    if before == after:
        assert path.stat().st_mtime_ns == stamp
