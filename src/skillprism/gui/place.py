"""Where the user is in the skill tree, kept across new trees: which rows are open and how far
the tree is scrolled. A rescan, another runtime or a restarted engine brings a new tree; the
window restores what was open (following renamed folders) instead of closing everything."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtWidgets import QTreeView

from skillprism.gui.tree_model import KEY_ROLE, SkillTreeModel

AUTO_EXPAND_MAX = 300  # skills shown in the roots opened at first sight (a screen holds ~40)


@dataclass(frozen=True)
class Place:
    open_keys: frozenset[str]
    scroll: int


class TreePlace:
    """Follows what the user opens and closes in `tree` (by key: asking the view row by row
    would cost a call per skill shown)."""

    def __init__(self, tree: QTreeView, model: SkillTreeModel) -> None:
        self.tree, self.model = tree, model
        self._open: set[str] = set()
        tree.expanded.connect(lambda index: self._open.add(index.data(KEY_ROLE)))
        tree.collapsed.connect(lambda index: self._open.discard(index.data(KEY_ROLE)))
        model.modelReset.connect(self._open.clear)  # the view closed them all

    def capture(self) -> Place:
        return Place(frozenset(self._open), self.tree.verticalScrollBar().value())

    def restore(self, place: Place, moved: Mapping[str, str]) -> None:
        """Open again what was open (a moved skill where it is now) and scroll back."""
        for key in place.open_keys:
            index = self.model.index_for_key(moved.get(key, key))
            if index.isValid():
                self.tree.expand(index)
        self.tree.verticalScrollBar().setValue(place.scroll)

    def open_first_roots(self) -> None:
        """Open roots in order while the skills shown stay few enough to lay out at once; the
        rest stay closed until the user opens them."""
        shown = 0
        for row in range(self.model.rowCount()):
            index = self.model.index(row, 0)
            shown += self.model.rowCount(index)
            if shown > AUTO_EXPAND_MAX:
                break
            self.tree.expand(index)
