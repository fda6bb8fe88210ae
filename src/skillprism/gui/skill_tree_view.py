"""The skill tree's view: a QTreeView that repaints a long changed range of the state column
without asking the model about every row of it.

Qt 6 works out the rectangle a `dataChanged` range needs repainted by walking every row of the
range and asking the model for each row's index and parent; the skill tree's model is Python, so
risks filling in over a set of 10,000 skills (one signal per root, from its first changed row to
its last) cost 10,000 rows of Python calls on the GUI thread for the forty or so on screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtWidgets import QTreeView

_ANY_INDEX = QModelIndex | QPersistentModelIndex

# Rows from which a changed range of the columns after the name is repainted whole: below it
# Qt's own walk costs less than repainting the viewport.
WALK_LIMIT = 256


class SkillTreeView(QTreeView):
    """The tree of roots, skills and files (see the module doc)."""

    def dataChanged(
        self, top_left: _ANY_INDEX, bottom_right: _ANY_INDEX, roles: Sequence[int] = ()
    ) -> None:
        if (
            top_left.isValid()
            and bottom_right.isValid()
            and top_left.column() > 0
            and bottom_right.row() - top_left.row() >= WALK_LIMIT
            and top_left.parent() == bottom_right.parent()
        ):
            # The name column is untouched, so no row changes its size or its children: what
            # is on screen is all there is to repaint.
            self.viewport().update()
            return
        super().dataChanged(top_left, bottom_right, list(roles))
