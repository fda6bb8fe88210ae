"""The source -> skill -> file tree, from the rows the engine prepared (engine/views.py).

A hand-written QAbstractItemModel: nodes sit behind `internalPointer`, custom roles are named
constants, a skill's files are asked of the engine when the skill is opened (fetchMore) and come
back boundedly. A tree of another shape swaps the rows; one of the same shape updates only the
rows of skills that changed (the view keeps selection and expansion by stable key, see
MainWindow).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import QApplication

from skillprism.core.display import home_relative
from skillprism.engine.views import FileList, RootRow, SkillRow, TreeView
from skillprism.gui.icons import STATE_TEXT, state_icon

KEY_ROLE = Qt.ItemDataRole.UserRole + 1  # stable key: skill path as found, or "root:<path>"
KIND_ROLE = Qt.ItemDataRole.UserRole + 2  # "root" | "skill" | "file"
STATE_ROLE = Qt.ItemDataRole.UserRole + 3  # skill state (docs/architecture.md)
PATH_ROLE = Qt.ItemDataRole.UserRole + 4  # file system path of the item

FILE_LIMIT = 500
_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_ANY_INDEX = QModelIndex | QPersistentModelIndex


class _Node:
    """One row. Its parent is held weakly: a tree is then free of reference cycles and goes away
    by reference counting when replaced."""

    __slots__ = (
        "__weakref__",
        "_parent",
        "children",
        "kind",
        "loaded",
        "loading",
        "path",
        "root",
        "row",
        "skill",
        "text",
    )

    def __init__(self, kind: str, parent: _Node | None, row: int) -> None:
        self.kind = kind
        self._parent = None if parent is None else weakref.ref(parent)
        self.row = row
        self.children: list[_Node] = []
        self.root: RootRow | None = None
        self.skill: SkillRow | None = None
        self.path = ""
        self.text = ""
        self.loaded = kind != "skill"
        self.loading = False  # its files were asked of the engine

    @property
    def parent(self) -> _Node | None:
        return None if self._parent is None else self._parent()

    @parent.setter
    def parent(self, node: _Node | None) -> None:
        self._parent = None if node is None else weakref.ref(node)


def _nodes(
    view: TreeView, roots: Sequence[RootRow], skills: Sequence[SkillRow]
) -> tuple[_Node, dict[str, tuple[int, int]]]:
    """The rows of a prepared tree (roots and skills in display order; files come later), and
    where each key is."""
    top = _Node("invisible", None, 0)
    positions: dict[str, tuple[int, int]] = {}
    for root_index, text, shown in view.groups:
        node = _Node("root", top, len(top.children))
        info = roots[root_index]
        node.root, node.path, node.text = info, info.path, text
        positions[f"root:{info.path}"] = (node.row, -1)
        top.children.append(node)
        children = node.children
        for index in shown:
            row = skills[index]
            child = _Node("skill", node, len(children))
            child.skill, child.path = row, row.path
            positions[row.key] = (node.row, child.row)
            children.append(child)
    return top, positions


class SkillTreeModel(QAbstractItemModel):
    COLUMNS = ("Skill", "State")

    sig_files_wanted = Signal(str)
    """A skill was opened: its files are wanted (the skill's key)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._root = _Node("invisible", None, 0)
        self._keep: frozenset[str] | None = None
        self._serial = 0  # the engine's number of the tree shown
        self._positions: dict[str, tuple[int, int]] = {}

    # --- content ---------------------------------------------------------------------------------

    def set_tree(
        self, view: TreeView, roots: Sequence[RootRow], skills: Sequence[SkillRow]
    ) -> None:
        """Show a tree the engine prepared. When it shows the same roots and skills in the same
        places as the tree shown now (an edit, a rescan, often another runtime), the rows stay
        and only the changed skills' rows are updated, so the view keeps what is open without
        laying it out again; otherwise the new rows are swapped in with a reset."""
        top, positions = _nodes(view, roots, skills)
        if not (view.same_shape and view.base and view.base == self._serial):
            self.beginResetModel()
            self._root, self._positions, self._serial = top, positions, view.serial
            self._keep = view.keep
            self.endResetModel()
            return
        changed = view.changed
        self._serial, self._keep = view.serial, view.keep
        last = len(self.COLUMNS) - 1
        for old, new in zip(self._root.children, top.children, strict=True):
            if old.text != new.text or old.root != new.root:
                old.root, old.text = new.root, new.text
                self.dataChanged.emit(
                    self.createIndex(old.row, 0, old), self.createIndex(old.row, last, old)
                )
            first = end = -1
            for old_child, new_child in zip(old.children, new.children, strict=True):
                skill = new_child.skill
                assert skill is not None
                same = old_child.skill == skill
                old_child.skill = skill
                if same and (changed is None or skill.key not in changed):
                    continue
                if old_child.loaded and old_child.children:
                    # its files may have changed too: listed again when next opened
                    parent = self.createIndex(old_child.row, 0, old_child)
                    self.beginRemoveRows(parent, 0, len(old_child.children) - 1)
                    old_child.children.clear()
                    self.endRemoveRows()
                old_child.loaded = old_child.loading = False
                first = old_child.row if first < 0 else first
                end = old_child.row
            if first >= 0:
                self.dataChanged.emit(
                    self.createIndex(first, 0, old.children[first]),
                    self.createIndex(end, last, old.children[end]),
                )

    @property
    def filtered(self) -> bool:
        return self._keep is not None

    def add_files(self, files: FileList) -> None:
        """The files of a skill, as the engine listed them (asked by `fetchMore`)."""
        at = self._positions.get(files.key)
        if at is None:
            return
        node = self._root.children[at[0]].children[at[1]]
        if node.loaded or not node.loading:
            return  # listed already, or its skill changed since it was asked
        node.loading = False
        node.loaded = True
        rows = []
        for text, path in files.entries:
            child = _Node("file", node, len(rows))
            child.path, child.text, child.skill = path, text, node.skill
            rows.append(child)
        if files.truncated:
            child = _Node("file", node, len(rows))
            child.text = f"… more than {FILE_LIMIT} files (listing cut)"
            rows.append(child)
        if not rows:
            return
        self.beginInsertRows(self.createIndex(node.row, 0, node), 0, len(rows) - 1)
        node.children = rows
        self.endInsertRows()

    # --- navigation ---------------------------------------------------------------------------------

    def _node(self, index: _ANY_INDEX) -> _Node:
        return index.internalPointer() if index.isValid() else self._root  # type: ignore[return-value]

    def index(self, row: int, column: int, parent: _ANY_INDEX = QModelIndex()) -> QModelIndex:
        # Hot: a proxy asks for every row it maps, so the checks are kept to plain comparisons.
        if parent.isValid():
            if parent.column() != 0:
                return QModelIndex()
            children = parent.internalPointer().children  # type: ignore[union-attr]
        else:
            children = self._root.children
        if 0 <= row < len(children) and 0 <= column < 2:
            return self.createIndex(row, column, children[row])
        return QModelIndex()

    def parent(self, index: _ANY_INDEX = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        node: _Node = index.internalPointer()  # type: ignore[assignment]
        parent = node.parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row, 0, parent)

    def rowCount(self, parent: _ANY_INDEX = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: _ANY_INDEX = QModelIndex()) -> int:
        return len(self.COLUMNS)

    def hasChildren(self, parent: _ANY_INDEX = QModelIndex()) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        node = self._node(parent)
        return node.kind == "skill" or bool(node.children)

    def canFetchMore(self, parent: _ANY_INDEX) -> bool:
        if not parent.isValid() or parent.column() != 0:
            return False
        node = self._node(parent)
        return not node.loaded and not node.loading

    def fetchMore(self, parent: _ANY_INDEX) -> None:
        """A skill opened: its files are asked of the engine (`sig_files_wanted`) and come back
        through `add_files`."""
        node = self._node(parent)
        if node.loaded or node.loading or node.skill is None:
            return
        node.loading = True
        self.sig_files_wanted.emit(node.skill.key)

    # --- data -----------------------------------------------------------------------------------------

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section] if 0 <= section < len(self.COLUMNS) else None
        return None

    def flags(self, index: _ANY_INDEX) -> Qt.ItemFlag:
        # asked twice per row whenever the view lays out its rows: the flags are made once
        return _ROW_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: _ANY_INDEX, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node: _Node = index.internalPointer()  # type: ignore[assignment]
        col = index.column()
        if role == KIND_ROLE:
            return node.kind
        if role == PATH_ROLE:
            return node.path
        if role == KEY_ROLE:
            if node.kind == "root":
                return f"root:{node.path}"
            if node.kind == "file":
                return f"file:{node.path}"
            return node.path
        skill = node.skill
        if role == STATE_ROLE:
            return skill.status if skill is not None and node.kind == "skill" else ""
        if node.kind == "root":
            return self._root_data(node, col, role)
        if node.kind == "skill" and skill is not None:
            return self._skill_data(skill, col, role)
        if node.kind == "file":
            if role == Qt.ItemDataRole.DisplayRole and col == 0:
                return node.text
            if role == Qt.ItemDataRole.DecorationRole and col == 0:
                return state_icon("file")
            if role == Qt.ItemDataRole.ToolTipRole:
                return node.path
        return None

    def _root_data(self, node: _Node, col: int, role: int) -> Any:
        info = node.root
        assert info is not None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return info.label if info.scope == "path" else f"{info.scope} · {info.label}"
            return node.text
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon("root")
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{info.scope} root, layout {info.layout}\n{info.path}"
        return None

    def _skill_data(self, skill: SkillRow, col: int, role: int) -> Any:
        state = skill.status
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return skill.name
            text = STATE_TEXT.get(state, state)
            if state == "shadowed" and skill.shadowed_by:
                return f"{text} by {home_relative(skill.shadowed_by)}"
            if state in ("skipped", "not-discovered") and skill.reason:
                return f"{text}: {skill.reason}"
            return text
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon(state)
        if role == Qt.ItemDataRole.ForegroundRole and state in (
            "shadowed",
            "not-discovered",
            "skipped",
        ):
            return QBrush(
                QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
            )
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [skill.path, f"state: {STATE_TEXT.get(state, state)}"]
            if skill.shadowed_by:
                lines.append(f"shadowed by the copy at {skill.shadowed_by}")
            if skill.reason:
                lines.append(skill.reason)
            if skill.description:
                lines.append(skill.description)
            return "\n".join(lines)
        return None

    def index_for_key(self, key: str) -> QModelIndex:
        """The index of the root or skill with stable `key` (invalid if absent)."""
        at = self._positions.get(key)
        if at is None:
            return QModelIndex()
        root = self._root.children[at[0]]
        node = root if at[1] < 0 else root.children[at[1]]
        return self.createIndex(node.row, 0, node)


def _shape(top: _Node) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Which roots and skills a tree shows, in order (a skill's files left out)."""
    return tuple(
        (root.path, tuple(c.path for c in root.children if c.kind == "skill"))
        for root in top.children
    )
