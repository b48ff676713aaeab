"""``json_validator`` accepts exactly the lines its model accepts, into equal records."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaValidator

from generator.models.bank import BankItem, HeldOutEntry
from generator.models.base import json_validator
from generator.models.records import Draw, PanelVote, PrivateResponse, Qualification, Verdict

SOURCES: list[tuple[str, type[BaseModel]]] = [
    ("bundles/vol-001/*/draws.jsonl", Draw),
    ("bundles/vol-001/*/verdicts.jsonl", Verdict),
    ("bundles/vol-001/*/panel.jsonl", PanelVote),
    ("bundles/vol-001/*/qualification.jsonl", Qualification),
    (".private/responses/vol-001/*.jsonl", PrivateResponse),
    ("bank/public.jsonl", BankItem),
    ("bank/heldout_index.jsonl", HeldOutEntry),
]


def _both(model: type[BaseModel], line: bytes) -> tuple[Any, Any]:
    """(fast, model) outcomes of one line: the record, or None when refused."""
    outcomes = []
    for validate in (json_validator(model).validate_json, model.model_validate_json):
        try:
            outcomes.append(validate(line))
        except ValidationError:
            outcomes.append(None)
    return outcomes[0], outcomes[1]


@cache
def _first_lines(root: Path) -> list[tuple[type[BaseModel], bytes]]:
    out = []
    for pattern, model in SOURCES:
        path = sorted(root.glob(pattern))[0]
        out.append((model, path.read_bytes().split(b"\n")[0]))
    return out


def test_every_example_line_reads_the_same(example_src: Path) -> None:
    for pattern, model in SOURCES:
        paths = sorted(example_src.glob(pattern))
        assert paths, pattern
        for path in paths:
            for line in path.read_bytes().splitlines():
                fast, slow = _both(model, line)
                assert fast is not None and fast == slow
                assert type(fast) is model


VERSIONS: list[Any] = [1, 2, 3, 4, 0, -1, 2**70, "1", "2", "3", 1.0, 2.0, 3.0, 1.5, True]
VERSIONS += [False, None, "x"]
LAX_INTS: list[tuple[Any, int]] = [
    (1, 1),
    ("1", 1),
    (1.0, 1),
    (True, 1),
    (2, 2),
    ("2", 2),
    (2.0, 2),
    (3, 3),
    ("3", 3),
    (3.0, 3),
]


def _lax_int(value: Any) -> int | None:
    """The version JSON's lax int makes of ``value`` among those the models accept."""
    return next((n for v, n in LAX_INTS if type(v) is type(value) and v == value), None)


@pytest.mark.parametrize("version", VERSIONS)
def test_schema_version_bound_is_the_models(example_src: Path, version: Any) -> None:
    for model, line in _first_lines(example_src):
        record = json.loads(line)
        record.pop("reference", None)  # content of a later version: the bound is tested here
        record.pop("canary", None)  # likewise (schema version 3)
        record["schema_version"] = version
        fast, slow = _both(model, json.dumps(record).encode())
        assert fast == slow
        accepted = range(model.oldest_schema_version, model.supported_schema_version + 1)  # type: ignore[attr-defined]
        as_int = _lax_int(version)
        assert (fast is not None) == (as_int in accepted), (model, version)


def test_a_newer_version_is_still_explained_by_the_model() -> None:
    line = (
        b'{"schema_version":2,"judge":"j","family":"f","probe":"p","expected":"pass","got":"pass"}'
    )
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        json_validator(Qualification).validate_json(line)
    with pytest.raises(ValidationError, match="schema_version 2 is newer than this probepress"):
        Qualification.model_validate_json(line)


def test_an_older_version_is_refused_by_both_and_explained_by_the_model() -> None:
    line = _first_draw_of_version(1)
    with pytest.raises(ValidationError, match="greater than or equal to 2"):
        json_validator(Draw).validate_json(line)
    with pytest.raises(ValidationError, match="schema_version 1 is an old format"):
        Draw.model_validate_json(line)


def _first_draw_of_version(version: int) -> bytes:
    return (
        b'{"attempts":[{"latency_ms":9,"status":"ok"}],"draw":1,"half":"A","item":"h-x",'
        b'"latency_ms":9,"schema_version":%d}' % version
    )


def test_the_models_schema_is_untouched() -> None:
    before = Draw.model_json_schema()
    json_validator(Draw)
    assert Draw.model_json_schema() == before
    assert "maximum" not in before["properties"]["schema_version"]


JUNK = [b"", b" ", b"\xff", b"\xc3", b"\xed\xa0\x80", b"{", b"}", b",", b'"', b"\\u", b"0", b"2"]
JUNK += [b"null", b'"x":1,', b'"schema_version":2,', b'"response":"a",', b'"tier":0,']


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(0, len(SOURCES) - 1),
    edits=st.lists(
        st.tuples(st.integers(0, 600), st.integers(0, 3), st.sampled_from(JUNK)), max_size=3
    ),
)
def test_damaged_lines_read_the_same(
    example_src: Path, index: int, edits: list[tuple[int, int, bytes]]
) -> None:
    model, line = _first_lines(example_src)[index]
    damaged = bytearray(line)
    for at, cut, insert in edits:
        damaged[at : at + cut] = insert
    fast, slow = _both(model, bytes(damaged))
    assert fast == slow


class _WithoutPrebuiltFlag(type):
    """A ``SchemaValidator`` as pydantic-core had it before ``_use_prebuilt``."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, SchemaValidator)

    def __call__(cls, schema: Any, config: Any = None, **flags: Any) -> SchemaValidator:
        if flags:
            raise TypeError(f"unexpected keyword arguments {sorted(flags)}")
        return SchemaValidator(schema, config)


class _OldSchemaValidator(metaclass=_WithoutPrebuiltFlag):
    pass


def test_an_older_pydantic_core_without_the_prebuilt_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.models import base

    monkeypatch.setattr(base, "SchemaValidator", _OldSchemaValidator)
    validate = base.json_validator.__wrapped__(Qualification).validate_json
    line = b'{"judge":"j","family":"f","probe":"p","expected":"pass","got":"pass"}'
    assert validate(line) == Qualification.model_validate_json(line)
    newer = line.replace(b"{", b'{"schema_version":2,')
    with pytest.raises(ValidationError):
        validate(newer)


def test_a_model_not_yet_built_still_gets_the_bounds() -> None:
    """defer_build leaves a stand-in validator until first use; the bounds must not depend
    on whether something in the same process validated the model before (a 60-digit
    integer was once accepted by `show` in a fresh process)."""
    from generator.models import base

    class Fresh(base.Record):
        count: int

    assert not Fresh.__pydantic_complete__
    validate = base.json_validator.__wrapped__(Fresh).validate_json
    assert validate(b'{"count":3}') == Fresh(count=3)
    with pytest.raises(ValidationError, match="less than or equal to 9223372036854775807"):
        validate(b'{"count":%d}' % 10**59)
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        validate(b'{"schema_version":2,"count":3}')
