"""Filtering the skill tree by a set of matching skill keys, prepared in the background."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel

from skillprism.gui.tree_model import KEY_ROLE, KIND_ROLE


def change_filter(proxy: QSortFilterProxyModel, apply: Any) -> None:
    """Run `apply()` (which changes what the filter accepts) and re-filter the rows: with
    begin/endFilterChange on Qt >= 6.10, invalidateFilter on older Qt."""
    if hasattr(proxy, "endFilterChange"):
        proxy.beginFilterChange()
        apply()
        proxy.endFilterChange(QSortFilterProxyModel.Direction.Rows)
    else:  # pragma: no cover - Qt < 6.10
        apply()
        proxy.invalidateFilter()


class SkillFilterProxy(QSortFilterProxyModel):
    """Shows the skills whose keys the worker found matching (app/filter_index.py): recursive,
    so a root stays while any of its skills matches; a skill's files follow the skill. The GUI
    thread only looks keys up in a set."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._matches: frozenset[str] | None = None
        self.setRecursiveFilteringEnabled(True)

    def set_matches(self, keys: frozenset[str] | None) -> None:
        """Show only the skills with these keys (None = every skill)."""
        if keys == self._matches:
            return
        change_filter(self, lambda: setattr(self, "_matches", keys))

    @property
    def active(self) -> bool:
        return self._matches is not None

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        matches = self._matches
        if matches is None:  # checked first: called for every row the view lays out
            return True
        model = self.sourceModel()
        index = model.index(source_row, 0, source_parent)
        kind = index.data(KIND_ROLE)
        if kind == "skill":
            return index.data(KEY_ROLE) in matches
        if kind == "file":
            return source_parent.data(KEY_ROLE) in matches
        return False  # a root shows through its matching skills (recursive filtering)
