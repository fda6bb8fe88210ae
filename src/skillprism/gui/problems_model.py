"""Every finding of the skill set as a sortable, filterable table (rows prepared by the engine,
engine/prepare.py: `problem_rows`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QRegularExpression,
    QSortFilterProxyModel,
    Qt,
)

from skillprism.core.diagnostics import Diagnostic
from skillprism.core.vocabulary import FIXABLE_CODES as FIXABLE
from skillprism.engine.rows import RowList, plain_rows
from skillprism.engine.views import (
    FILTER_SEP,
    PLAIN_CODE,
    PLAIN_EFFECT,
    PLAIN_EVIDENCE,
    PLAIN_FILE,
    PLAIN_FILTER,
    PLAIN_HINT,
    PLAIN_KEY,
    PLAIN_LINE,
    PLAIN_LOCATION,
    PLAIN_MESSAGE,
    PLAIN_SEVERITY,
    PLAIN_SKILL,
    PLAIN_SORT,
    ProblemRow,
)
from skillprism.gui.icons import state_icon
from skillprism.gui.table_model import RowsTableModel

SKILL_KEY_ROLE = Qt.ItemDataRole.UserRole + 11
LINE_ROLE = Qt.ItemDataRole.UserRole + 12
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 13
FILTER_ROLE = Qt.ItemDataRole.UserRole + 14  # ProblemRow.filter_text
# The roles `ProblemsModel.data` answers.
_ROLES = frozenset(
    int(role)
    for role in (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.ToolTipRole,
        FILTER_ROLE,
        SKILL_KEY_ROLE,
        LINE_ROLE,
        SEVERITY_ROLE,
    )
)

_ICON = {"error": "error", "warning": "warning", "info": "info"}


class ProblemsModel(RowsTableModel):
    """The rows are kept as plain tuples (engine/rows.py: a window of 10,000 findings must not
    give the garbage collector 20,000 more objects to walk); each cell is read from its tuple,
    and a whole ProblemRow is rebuilt only when one is asked for (`row`)."""

    COLUMNS = ("Severity", "Code", "Message", "Skill", "Location")
    _SHOWN = (PLAIN_SEVERITY, PLAIN_CODE, PLAIN_MESSAGE, PLAIN_SKILL, PLAIN_LOCATION)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: RowList[ProblemRow] = RowList(ProblemRow)
        self._order: tuple[int, Qt.SortOrder] = (0, Qt.SortOrder.AscendingOrder)

    def set_rows(self, rows: Sequence[ProblemRow]) -> None:
        """Show prepared rows (already in the first column's order)."""
        self.beginResetModel()
        # its own list: rows added later never change the caller's
        if isinstance(rows, RowList):
            self._rows = RowList.from_plain(ProblemRow, list(rows.plain))
        else:
            self._rows = RowList(ProblemRow, rows)
        if self._order != (0, Qt.SortOrder.AscendingOrder):
            self._sort_rows(*self._order)
        self.endResetModel()

    def add_rows(self, rows: Sequence[ProblemRow]) -> None:
        """Show more rows (risks as they are scanned) after the rows shown, in the current order
        among themselves: the cost is theirs alone, however many rows are shown (the view with
        every risk, which follows the scan, puts every row in its place)."""
        if not rows:
            return
        column, order = self._order
        added = sorted(
            plain_rows(ProblemRow, rows),
            key=lambda t: t[PLAIN_SORT][column],
            reverse=order == Qt.SortOrder.DescendingOrder,
        )
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(added) - 1)
        self._rows.plain.extend(added)
        self.endInsertRows()

    def _sort_rows(self, column: int, order: Qt.SortOrder) -> None:
        self._rows.plain.sort(
            key=lambda t: t[PLAIN_SORT][column], reverse=order == Qt.SortOrder.DescendingOrder
        )

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by the prepared keys (one Python sort, not a comparison call per pair)."""
        if not 0 <= column < len(self.COLUMNS):
            return
        self._order = (column, order)
        self.layoutAboutToBeChanged.emit()
        self._sort_rows(column, order)
        self.layoutChanged.emit()

    def diagnostic(self, row: int) -> Diagnostic:
        return self._rows[row].diagnostic

    def row(self, row: int) -> ProblemRow:
        return self._rows[row]

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        # (a view asks for several roles this model has nothing for with every cell it paints)
        if role not in _ROLES or not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        t = self._rows.plain[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return t[self._SHOWN[col]]
        if role == FILTER_ROLE:
            return t[PLAIN_FILTER]
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon(_ICON[t[PLAIN_SEVERITY]])
        if role == Qt.ItemDataRole.DecorationRole and col == 1 and t[PLAIN_CODE] in FIXABLE:
            return state_icon("fix")
        if role == Qt.ItemDataRole.ToolTipRole:
            parts = [
                f"{t[PLAIN_CODE]} {t[PLAIN_MESSAGE]}",
                f"At {t[PLAIN_FILE] or t[PLAIN_LOCATION]}",
            ]
            if t[PLAIN_EVIDENCE]:
                parts.append(f"Evidence: {t[PLAIN_EVIDENCE][:300]}")
            if t[PLAIN_EFFECT]:
                parts.append(f"Effect: {t[PLAIN_EFFECT]}")
            if t[PLAIN_HINT]:
                parts.append(f"Fix: {t[PLAIN_HINT]}")
            if t[PLAIN_CODE] in FIXABLE:
                parts.append("A quick fix may be offered: Quick Fix… (Ctrl+.)")
            return "\n".join(parts)
        if role == SKILL_KEY_ROLE:
            return t[PLAIN_KEY]
        if role == LINE_ROLE:
            return t[PLAIN_LINE]
        if role == SEVERITY_ROLE:
            return t[PLAIN_SEVERITY]
        return None


SEVERITY_CHOICES = (
    ("All severities", ()),
    ("Errors", ("error",)),
    ("Errors and warnings", ("error", "warning")),
    ("Warnings", ("warning",)),
    ("Notes", ("info",)),
)  # the severity choice above a findings table: label, severities shown


class ProblemsFilter(QSortFilterProxyModel):
    """Severity set, free text over code, message and skill, and (the Risks view) one skill only.
    Sorting is the source model's own (prepared keys); this proxy only filters, with one regular
    expression that Qt matches against each row's `filter_text`: with no filter set it accepts
    every row without asking the model, so a new set of 10,000 findings costs no call into
    Python per row."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._severities: frozenset[str] = frozenset()
        self._terms: list[str] = []
        self._skill = ""
        self.setFilterRole(FILTER_ROLE)

    def set_severities(self, severities: frozenset[str]) -> None:
        self._severities = severities
        self._apply()

    def set_text(self, text: str) -> None:
        self._terms = text.lower().split()
        self._apply()

    def set_skill(self, key: str) -> None:
        """Only the findings of the skill with this key ("": every skill's)."""
        self._skill = key
        self._apply()

    def pattern(self) -> str:
        """The expression for the filters set ("" when none is)."""
        if not (self._severities or self._terms or self._skill):
            return ""
        esc = QRegularExpression.escape
        key = esc(self._skill) if self._skill else f"[^{FILTER_SEP}]*"
        sev = "|".join(esc(s) for s in sorted(self._severities)) or f"[^{FILTER_SEP}]*"
        terms = "".join(f"(?=.*{esc(t)})" for t in self._terms)
        return f"^{key}{FILTER_SEP}(?:{sev}){FILTER_SEP}{terms}"

    def _apply(self) -> None:
        self.setFilterRegularExpression(
            QRegularExpression(
                self.pattern(), QRegularExpression.PatternOption.DotMatchesEverythingOption
            )
        )

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        source = self.sourceModel()
        if source is not None:
            source.sort(column, order)
