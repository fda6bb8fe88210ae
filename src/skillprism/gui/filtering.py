"""Re-filtering a table proxy after its filter changed, on every Qt release we support. (The skill
tree filters itself: the worker builds the tree of matching skills, tree_model.build_tree.)"""

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
