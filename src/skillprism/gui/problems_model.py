"""Every diagnostic of a Catalog as a sortable, filterable table."""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from skillprism.core.catalog import Catalog
from skillprism.core.diagnostics import Diagnostic
from skillprism.gui.filtering import change_filter
from skillprism.gui.icons import state_icon
from skillprism.gui.table_model import RowsTableModel

SKILL_KEY_ROLE = Qt.ItemDataRole.UserRole + 11
LINE_ROLE = Qt.ItemDataRole.UserRole + 12
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 13
SORT_ROLE = Qt.ItemDataRole.UserRole + 14

_ICON = {"error": "error", "warning": "warning", "info": "info"}
_RANK = {"error": 0, "warning": 1, "info": 2}


class ProblemsModel(RowsTableModel):
    COLUMNS = ("Severity", "Code", "Message", "Skill", "Location")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[Diagnostic, str, str]] = []  # (diagnostic, skill key, skill name)

    def set_catalog(self, catalog: Catalog | None) -> None:
        self.beginResetModel()
        rows: list[tuple[Diagnostic, str, str]] = []
        if catalog is not None:
            for d in catalog.diagnostics:
                rows.append((d, "", ""))
            for s in catalog.skills:
                name = s.qualified_name or s.name or os.path.basename(s.directory)
                rows.extend((d, s.key, name) for d in s.diagnostics)
        self._rows = rows
        self.endResetModel()

    def diagnostic(self, row: int) -> Diagnostic:
        return self._rows[row][0]

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        d, key, name = self._rows[index.row()]
        col = index.column()
        sev = d.severity.value
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return sev
            if col == 1:
                return d.code
            if col == 2:
                return d.message
            if col == 3:
                return name
            where = d.path
            return f"{where}:{d.line}:{d.column}" if d.line else where
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon(_ICON[sev])
        if role == Qt.ItemDataRole.ToolTipRole:
            parts = [f"{d.code} {d.message}"]
            if d.effect:
                parts.append(f"Effect: {d.effect}")
            if d.hint:
                parts.append(f"Fix: {d.hint}")
            return "\n".join(parts)
        if role == SKILL_KEY_ROLE:
            return key
        if role == LINE_ROLE:
            return d.line
        if role == SEVERITY_ROLE:
            return sev
        if role == SORT_ROLE:
            if col == 0:
                return (_RANK[sev], d.code)
            if col == 4:
                return (d.path, d.line, d.column)
            return self.data(index, Qt.ItemDataRole.DisplayRole)
        return None


class ProblemsFilter(QSortFilterProxyModel):
    """Severity set plus free text over code, message and skill."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._severities: frozenset[str] = frozenset()
        self._text = ""
        self.setSortRole(SORT_ROLE)

    def set_severities(self, severities: frozenset[str]) -> None:
        change_filter(self, lambda: setattr(self, "_severities", severities))

    def set_text(self, text: str) -> None:
        change_filter(self, lambda: setattr(self, "_text", text.lower().strip()))

    def lessThan(
        self, left: QModelIndex | QPersistentModelIndex, right: QModelIndex | QPersistentModelIndex
    ) -> bool:
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        try:
            return a < b  # type: ignore[no-any-return]
        except TypeError:
            return str(a) < str(b)

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        m = self.sourceModel()
        if (
            self._severities
            and m.index(source_row, 0, source_parent).data(SEVERITY_ROLE) not in self._severities
        ):
            return False
        if not self._text:
            return True
        hay = " ".join(str(m.index(source_row, c, source_parent).data()) for c in (1, 2, 3)).lower()
        return all(t in hay for t in self._text.split())
