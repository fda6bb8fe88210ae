"""The runtime comparison matrix as a value: skills x profiles, each cell a state or a tier-1
outcome with its reason. Built by core/compare.py; a value module, so the window (a client of the
engine process) can hold one without loading the pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

CELL_VALUES = (
    "full", "shortened", "name-only", "omitted", "excluded",
    "shadowed", "error", "skipped", "not-discovered",
)  # fmt: skip


class MatrixCell(NamedTuple):
    """One cell: a tuple of strings, cheap to unpickle."""

    value: str  # the state, or the tier-1 outcome for an active skill
    reason: str
    state: str
    outcome: str  # "" unless the skill is active under the profile

    @property
    def warned(self) -> bool:
        """A listed skill that has warnings or errors (its value is its listing outcome)."""
        return self.state in ("warning", "error") and self.value != self.state

    @property
    def text(self) -> str:
        """The cell as shown: a listed skill with warnings or errors says so, not only on hover."""
        if not self.warned:
            return self.value
        return f"{self.value} ⚠" if self.state == "warning" else f"{self.value} ✖"


class MatrixRow(NamedTuple):
    key: str  # the skill file's path as found (the same key the GUI selects by)
    name: str
    cells: tuple[MatrixCell, ...]  # one per runtime

    @classmethod
    def to_plain(cls, row: MatrixRow) -> tuple[str, str, tuple[tuple[str, ...], ...]]:
        """The row as plain tuples, its cells too (as engine/rows.py's RowList keeps it)."""
        return (row.key, row.name, tuple(tuple(c) for c in row.cells))

    @classmethod
    def from_plain(cls, plain: tuple[str, str, tuple[tuple[str, ...], ...]]) -> MatrixRow:
        key, name, cells = plain
        return cls(key, name, tuple(tuple.__new__(MatrixCell, c) for c in cells))


@dataclass(frozen=True, slots=True)
class Matrix:
    profiles: tuple[str, ...]
    titles: tuple[str, ...]
    rows: tuple[MatrixRow, ...]

    def counts(self) -> list[dict[str, int]]:
        """Per profile: how many cells hold each value."""
        out = []
        for i in range(len(self.profiles)):
            c: dict[str, int] = dict.fromkeys(CELL_VALUES, 0)
            for row in self.rows:
                c[row.cells[i].value] += 1
            out.append(c)
        return out
