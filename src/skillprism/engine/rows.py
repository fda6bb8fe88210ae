"""Long lists of rows kept as plain tuples, so the window's garbage collector can skip them.

CPython's cyclic garbage collector stops tracking a plain tuple once every item in it is untracked
(strings, numbers, None), but it never stops tracking an instance of a tuple subclass such as a
NamedTuple. A window that keeps 10,000 skill rows as NamedTuples has 10,000 more objects that
every full collection walks, on the GUI thread, at a moment nobody chooses. A `RowList` keeps
plain tuples and hands out a NamedTuple of its kind on each access (short-lived, cheap);
`RowIndex` finds a row by its key without keeping a second copy of the rows.

Rows must hold only strings, numbers, booleans and None (or tuples of those) for the collector
to skip them; a row with a tracked object in it works the same, only it stays tracked. A kind whose
rows hold rows of their own (a matrix row's cells) says how to store and rebuild them with the
class methods `to_plain(row)` and `from_plain(plain)`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, overload

R = TypeVar("R", bound=tuple[Any, ...])


@functools.cache
def _codec(kind: type) -> tuple[Callable[[Any], tuple[Any, ...]], Callable[[Any], Any]]:
    """How rows of `kind` are stored and rebuilt: its own class methods, else tuple()."""
    to_plain = getattr(kind, "to_plain", None) or tuple
    from_plain = getattr(kind, "from_plain", None) or functools.partial(tuple.__new__, kind)
    return to_plain, from_plain


def plain_rows(kind: type[R], rows: Iterable[R]) -> Sequence[tuple[Any, ...]]:
    """`rows` of `kind` as plain tuples: a RowList's own list (not copied), else each row made
    plain; for readers of a few fields of many rows, who need no row made of each."""
    if isinstance(rows, RowList):
        return rows.plain
    to_plain = _codec(kind)[0]
    return [to_plain(row) for row in rows]


class RowList(Sequence[R]):
    """A list of rows of the NamedTuple type `kind`, stored as plain tuples. Indexing and
    iterating give rows of `kind`; `plain` is the stored list (what the engine streams)."""

    __slots__ = ("kind", "plain")

    def __init__(self, kind: type[R], rows: Iterable[R] = ()) -> None:
        self.kind = kind
        to_plain = _codec(kind)[0]
        self.plain: list[tuple[Any, ...]] = [to_plain(row) for row in rows]

    @classmethod
    def from_plain(cls, kind: type[R], plain: list[tuple[Any, ...]]) -> RowList[R]:
        """Rows of `kind` over `plain` (kept, not copied)."""
        out = cls(kind)
        out.plain = plain
        return out

    def __len__(self) -> int:
        return len(self.plain)

    def __bool__(self) -> bool:
        return bool(self.plain)

    @overload
    def __getitem__(self, at: int) -> R: ...

    @overload
    def __getitem__(self, at: slice) -> list[R]: ...

    def __getitem__(self, at: int | slice) -> R | list[R]:
        make = _codec(self.kind)[1]
        if isinstance(at, slice):
            return [make(row) for row in self.plain[at]]
        return make(self.plain[at])  # type: ignore[no-any-return]

    def __setitem__(self, at: int, row: R) -> None:
        self.plain[at] = _codec(self.kind)[0](row)

    def __iter__(self) -> Iterator[R]:
        return map(_codec(self.kind)[1], self.plain)

    def append(self, row: R) -> None:
        self.plain.append(_codec(self.kind)[0](row))

    def set_field(self, at: int, field: int, value: Any) -> bool:
        """Set the field at place `field` of row `at` to `value`, without making a row of it
        (for kinds stored as the tuple itself); False when it held `value` already."""
        assert _codec(self.kind)[0] is tuple, "a kind with its own storage has other places"
        plain = self.plain[at]
        if plain[field] == value:
            return False
        self.plain[at] = (*plain[:field], value, *plain[field + 1 :])
        return True

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowList):
            return self.kind is other.kind and self.plain == other.plain
        if isinstance(other, list):
            return len(other) == len(self.plain) and all(
                type(row) is self.kind and row == mine
                for row, mine in zip(other, self, strict=True)
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"RowList({self.kind.__name__}, {len(self.plain)} rows)"


class RowIndex(Mapping[str, R]):
    """The rows of a `RowList` by the value of their field `field` (the first row wins when two
    share it). The rows stay where they are: a row changed in the list is seen here."""

    def __init__(self, rows: RowList[R], field: str = "key") -> None:
        self.rows = rows
        at = rows.kind._fields.index(field)  # type: ignore[attr-defined]
        self._where: dict[str, int] = {}
        for i, row in enumerate(rows.plain):
            self._where.setdefault(row[at], i)

    def __getitem__(self, key: str) -> R:
        return self.rows[self._where[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def position(self, key: str) -> int | None:
        """Where the row of `key` is in the list (None: no such row)."""
        return self._where.get(key)
