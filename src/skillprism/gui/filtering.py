"""Filtering the skill tree by a set of matching skill keys, prepared in the background."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSortFilterProxyModel


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
    """The tree's view onto the skill tree model. Filtering is the model's own: the worker builds
    the tree of matching skills (tree_model.build_tree) and the model swaps it in, so this proxy
    never calls back into Python per row."""

    def set_tree(self, tree: object) -> None:
        """Show a tree the worker built for the current filter (tree_model.build_tree)."""
        self.sourceModel().set_tree(tree)

    @property
    def active(self) -> bool:
        return bool(self.sourceModel().filtered)
