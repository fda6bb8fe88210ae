"""Filtering the skill tree: AND of words over name and description, and a state filter.
Recursive, so a root stays while any of its skills matches; a skill's files follow the skill."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel

from skillprism.gui.tree_model import KIND_ROLE, SEARCH_ROLE, STATE_ROLE


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
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._terms: list[str] = []
        self._states: frozenset[str] = frozenset()
        self.setRecursiveFilteringEnabled(True)

    def set_text(self, text: str) -> None:
        change_filter(self, lambda: setattr(self, "_terms", text.lower().split()))

    def set_states(self, states: frozenset[str]) -> None:
        """Show only skills in `states` (empty = every state)."""
        change_filter(self, lambda: setattr(self, "_states", states))

    @property
    def active(self) -> bool:
        return bool(self._terms or self._states)

    def _skill_matches(self, index: QModelIndex) -> bool:
        if self._states and index.data(STATE_ROLE) not in self._states:
            return False
        text = index.data(SEARCH_ROLE) or ""
        return all(term in text for term in self._terms)

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        if not self.active:  # checked first: called for every row the view lays out
            return True
        model = self.sourceModel()
        index = model.index(source_row, 0, source_parent)
        kind = index.data(KIND_ROLE)
        if kind == "skill":
            return self._skill_matches(index)
        if kind == "file":
            return self._skill_matches(source_parent)  # type: ignore[arg-type]
        return False  # a root shows through its matching skills (recursive filtering)
