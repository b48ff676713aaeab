"""A bundle's rows kept as columns: machine integers, not one object a row.

A volume of 600 candidates has 618,000 draws, as many verdicts and more panel votes. As
named tuples in lists they cost about 360 bytes a draw (225 MB); as columns they cost
about 15 bytes a draw, 30 a verdict and 28 a vote. Each column is an ``array``: integers
(line numbers, tiers), flags (booleans, and booleans or None) as one byte, and every
other value (draw keys, status tuples, names, rubric marks) as the number of its one
copy in the volume's ``Values``.

``Columns`` is a read-only sequence of the same named tuples the rows were: indexing and
iteration build them as they are asked for (in C: ``map`` and ``zip`` over the columns),
so the gates read rows exactly as before and nothing holds them all at once.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import repeat
from operator import eq
from typing import Any, Generic, NamedTuple, TypeVar, overload

R = TypeVar("R", bound=tuple[Any, ...])

NUMBER, FLAG, MAYBE, VALUE, KEY = "n", "f", "m", "v", "k"
"""What a field holds: an integer (32 bits), a boolean, a boolean or None, a value kept in
``Values``, a draw key kept in ``Values`` (made from any tuple of its fields)."""

_FLAGS = (False, True)
_MAYBES = (False, True, None)
_FLAG_CODES = {False: 0, True: 1}
MAYBE_CODES = {False: 0, True: 1, None: 2}
"""A ``MAYBE`` field's code (a ``FLAG`` field's is the boolean itself, 0 or 1)."""
_TYPECODES = {NUMBER: "i", FLAG: "b", MAYBE: "b", VALUE: "i", KEY: "i"}


class Values:
    """One copy of each value the rows of a volume refer to, numbered as first seen.

    Values are found by equality: never booleans (they equal 0 and 1; flags are columns
    of their own), and a draw key is found by the plain tuple of its fields.
    """

    __slots__ = ("_numbers", "items")

    def __init__(self) -> None:
        self.items: list[Any] = []
        """The values, by number (rows decode through it, so it only grows)."""
        self._numbers: dict[Any, int] = {}

    def number(self, value: Any) -> int:
        """The number of ``value`` (added on first sight)."""
        found = self._numbers.get(value)
        if found is None:
            found = self._numbers[value] = len(self.items)
            self.items.append(value)
        return found

    def made(self, fields: Any, make: Callable[[Any], Any]) -> int:
        """The number of the value equal to ``fields``; ``make(fields)`` is kept on first
        sight (a draw key from the plain tuple of its fields)."""
        found = self._numbers.get(fields)
        if found is None:
            found = self.number(make(fields))
        return found

    def numbers(
        self, values: Sequence[Any], make: Callable[[Any], Any] | None = None
    ) -> array[int]:
        """The numbers of ``values`` as a column (``make`` as in ``made``).

        Raises:
            TypeError: A value is not hashable.
        """
        found = array("i", map(self._numbers.get, values, repeat(-1)))
        if -1 in found:  # values not seen before: rare once a volume's first bundle is read
            for n, value in enumerate(values):
                if found[n] < 0:
                    found[n] = self.number(value) if make is None else self.made(value, make)
        return found


class Schema(NamedTuple, Generic[R]):
    """How the fields of one row type are kept (``NUMBER``, ``FLAG`` … a field)."""

    row: type[R]
    kinds: str
    key: Callable[[Any], Any]
    """Makes a draw key from the plain tuple of its fields (``KEY`` fields)."""


def _encoded(
    kind: str, column: Sequence[Any], values: Values, key: Callable[[Any], Any]
) -> array[int]:
    """One field of every row as its column.

    Raises:
        TypeError, KeyError, OverflowError: A value does not fit its kind.
    """
    if kind == NUMBER:
        return array("i", column)
    if kind == FLAG:
        return array("b", map(_FLAG_CODES.__getitem__, column))
    if kind == MAYBE:
        return array("b", map(MAYBE_CODES.__getitem__, column))
    return values.numbers(column, key if kind == KEY else None)


class Columns(Sequence[R]):
    """Rows of one type as columns, read as named tuples (see the module docstring)."""

    __slots__ = ("_columns", "_decoders", "_new", "schema", "values")

    def __init__(self, schema: Schema[R], values: Values, columns: Sequence[array[int]]) -> None:
        if len(columns) != len(schema.kinds) or len({len(c) for c in columns}) > 1:
            raise ValueError("one column a field, all of one length")
        self.schema, self.values = schema, values
        self._columns = tuple(columns)
        self._new = partial(tuple.__new__, schema.row)
        tables = {FLAG: _FLAGS, MAYBE: _MAYBES, VALUE: values.items, KEY: values.items}
        self._decoders: tuple[Sequence[Any] | None, ...] = tuple(
            tables.get(kind) for kind in schema.kinds
        )

    @classmethod
    def of_fields(
        cls, schema: Schema[R], values: Values, fields: Sequence[Sequence[Any]]
    ) -> Columns[R]:
        """Rows from their fields, one sequence of values a field.

        Raises:
            TypeError, KeyError, OverflowError: A value does not fit its field's kind.
        """
        kinds = schema.kinds
        return cls(
            schema,
            values,
            [_encoded(k, f, values, schema.key) for k, f in zip(kinds, fields, strict=True)],
        )

    @classmethod
    def of(cls, schema: Schema[R], values: Values, rows: Iterable[tuple[Any, ...]]) -> Columns[R]:
        """Rows from tuples of their fields (a list of rows, or the rows of a filter)."""
        fields = list(zip(*rows, strict=True)) or [()] * len(schema.kinds)
        return cls.of_fields(schema, values, fields)

    def __len__(self) -> int:
        return len(self._columns[0])

    def __iter__(self) -> Iterator[R]:
        fields = [
            column if table is None else map(table.__getitem__, column)
            for column, table in zip(self._columns, self._decoders, strict=True)
        ]
        return map(self._new, zip(*fields, strict=False))  # columns are of one length

    @overload
    def __getitem__(self, index: int) -> R: ...

    @overload
    def __getitem__(self, index: slice) -> Columns[R]: ...

    def __getitem__(self, index: int | slice) -> R | Columns[R]:
        if isinstance(index, slice):
            return Columns(self.schema, self.values, [c[index] for c in self._columns])
        at = range(len(self))[index]  # IndexError past either end, as a list
        return self._new(
            [
                column[at] if table is None else table[column[at]]
                for column, table in zip(self._columns, self._decoders, strict=True)
            ]
        )

    def like(self, rows: Iterable[R]) -> Columns[R]:
        """Other rows of this type, their values kept with these rows' values."""
        return Columns.of(self.schema, self.values, rows)

    def keep(self, wanted: Callable[[R], bool]) -> Columns[R]:
        """The rows for which ``wanted`` is true, in order (columns copied, not decoded)."""
        kept = [n for n, row in enumerate(self) if wanted(row)]
        if len(kept) == len(self):
            return self
        return Columns(
            self.schema,
            self.values,
            [array(c.typecode, map(c.__getitem__, kept)) for c in self._columns],
        )

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of equal rows (a list of named tuples too)."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(map(eq, self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Columns({self.schema.row.__name__}, {len(self)} rows)"


class Builder(Generic[R]):
    """Columns built while a file streams: ``add`` takes one row's fields, encoded (a
    number as it is, a flag as its boolean, a ``MAYBE`` as its ``MAYBE_CODES``, a value as
    its number in ``values``), and lays them after the rows before in one array; ``done``
    cuts that array into the columns."""

    def __init__(self, schema: Schema[R], values: Values) -> None:
        self.schema, self.values = schema, values
        self._flat = array("i")
        self.add: Callable[[Iterable[int]], None] = self._flat.extend

    def done(self) -> Columns[R]:
        """The rows added, as columns."""
        kinds, flat = self.schema.kinds, self._flat
        width = len(kinds)
        columns = [array(_TYPECODES[k], flat[n::width]) for n, k in enumerate(kinds)]
        return Columns(self.schema, self.values, columns)
