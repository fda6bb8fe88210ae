"""The source -> skill -> file tree of one Catalog.

A hand-written QAbstractItemModel: nodes sit behind `internalPointer`, custom roles are named
constants, a skill's files are listed lazily (fetchMore) and boundedly. A new Catalog swaps the
whole tree (the view keeps selection and expansion by stable key, see MainWindow).
"""

from __future__ import annotations

import os
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import QApplication

from skillprism.core.catalog import Catalog, RootInfo, SkillEntry
from skillprism.core.resources import list_resources
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
    by reference counting when replaced, never waiting for the cyclic collector (whose passes over
    a large set hold the interpreter lock long enough to stall the window)."""

    __slots__ = (
        "__weakref__",
        "_parent",
        "children",
        "kind",
        "loaded",
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
        self.root: RootInfo | None = None
        self.skill: SkillEntry | None = None
        self.path = ""
        self.text = ""
        self.loaded = kind != "skill"

    @property
    def parent(self) -> _Node | None:
        return None if self._parent is None else self._parent()

    @parent.setter
    def parent(self, node: _Node | None) -> None:
        self._parent = None if node is None else weakref.ref(node)


@dataclass(frozen=True)
class PreparedTree:
    """The nodes of the tree for one catalog and filter, built by `build_tree`. `shape` is which
    roots and skills it shows, in order; `changed` the keys of the skills whose entries differ from
    those of `base` (the catalog shown before), None when not known."""

    catalog: Catalog | None
    keep: frozenset[str] | None
    root: _Node
    labels: dict[str, str]
    shape: tuple[tuple[str, tuple[str, ...]], ...] = ()
    base: Catalog | None = None
    changed: frozenset[str] | None = None
    # key -> (row of the root, row of the skill in it, or -1 for the root itself)
    positions: dict[str, tuple[int, int]] | None = None


def build_tree(
    catalog: Catalog | None, keep: frozenset[str] | None, base: Catalog | None = None
) -> PreparedTree:
    """The roots and skills of `catalog` to show, only the skills with keys in `keep` (None:
    every skill) and the roots they are in; with `base`, which skills changed since that catalog.
    Pure Python: the controller runs it in its worker, so the GUI thread compares nothing."""
    top = _Node("invisible", None, 0)
    labels: dict[str, str] = {}
    if catalog is not None:
        by_root: dict[tuple[str, str], list[SkillEntry]] = {}
        infos: dict[tuple[str, str], RootInfo] = {}
        for root in catalog.roots:
            infos.setdefault((root.path, root.scope), root)
        for skill in catalog.skills:
            key = (skill.root.path, skill.root.scope)
            infos.setdefault(key, skill.root)
            by_root.setdefault(key, []).append(skill)
        ordered = sorted(infos.items(), key=lambda kv: (kv[1].rank, kv[0][0]))
        # Label roots relative to what they share (full paths stay in the tooltip), so
        # ".../skills/project/.claude/skills" reads as "skills/project/.claude/skills".
        paths = [info.path for _key, info in ordered]
        try:
            common = os.path.dirname(os.path.commonpath(paths)) if len(paths) > 1 else ""
        except ValueError:
            common = ""
        labels = {
            p: (os.path.relpath(p, common) if common and common != os.sep else _short(p))
            for p in paths
        }
        for key, info in ordered:
            every = by_root.get(key, [])
            skills = every if keep is None else [s for s in every if s.key in keep]
            if (not skills and not info.exists) or (keep is not None and not skills):
                continue
            node = _Node("root", top, len(top.children))
            node.root, node.path = info, info.path
            counts = Counter(s.status for s in skills)
            summary = ", ".join(f"{n} {STATE_TEXT[s]}" for s, n in counts.most_common())
            shown = f"{len(skills)} of {len(every)}" if keep is not None else f"{len(skills)}"
            node.text = f"{shown} skill{'s' if len(every) != 1 else ''}" + (
                f": {summary}" if summary else ""
            )
            top.children.append(node)
            for skill in sorted(skills, key=lambda s: (s.name or s.directory).lower()):
                child = _Node("skill", node, len(node.children))
                child.skill, child.path = skill, skill.path
                node.children.append(child)
    changed: frozenset[str] | None = None
    if base is not None and catalog is not None:
        before = {s.key: s for s in base.skills}
        changed = frozenset(
            s.key for s in catalog.skills if (b := before.get(s.key)) is not s and b != s
        )
    positions: dict[str, tuple[int, int]] = {}
    for node in top.children:
        positions[f"root:{node.path}"] = (node.row, -1)
        for child in node.children:
            positions[child.path] = (node.row, child.row)
    return PreparedTree(catalog, keep, top, labels, _shape(top), base, changed, positions)


class SkillTreeModel(QAbstractItemModel):
    COLUMNS = ("Skill", "State")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._root = _Node("invisible", None, 0)
        self._catalog: Catalog | None = None
        self._keep: frozenset[str] | None = None
        self._labels: dict[str, str] = {}
        self._shape: tuple[tuple[str, tuple[str, ...]], ...] = ()
        self._positions: dict[str, tuple[int, int]] = {}

    # --- content ---------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog | None:
        return self._catalog

    def set_catalog(self, catalog: Catalog | None) -> None:
        """Show every skill of `catalog` (the tree built here: for tests and small sets)."""
        self.set_tree(build_tree(catalog, None))

    def set_tree(self, tree: PreparedTree) -> None:
        """Show a tree prepared off the GUI thread (`build_tree`). When it has the same roots and
        skills in the same places (an edit, a rescan, often another runtime), the rows stay and
        only their data changes, one signal per root, so the view keeps what is open without
        laying it out again; otherwise the new nodes are swapped in with a reset. Every comparison
        of entries was made in the worker (`PreparedTree.changed`)."""
        if tree.shape != self._shape:
            self.beginResetModel()
            self._catalog, self._keep = tree.catalog, tree.keep
            self._root, self._labels, self._shape = tree.root, tree.labels, tree.shape
            self._positions = tree.positions if tree.positions is not None else {}
            self.endResetModel()
            return
        # `changed` holds against the catalog the worker built before; if this model shows
        # another one (an answer was overtaken), every replaced entry counts as changed.
        changed = tree.changed if tree.base is self._catalog else None
        self._catalog, self._keep, self._labels = tree.catalog, tree.keep, tree.labels
        last = len(self.COLUMNS) - 1
        for old, new in zip(self._root.children, tree.root.children, strict=True):
            if old.text != new.text or old.root is not new.root:
                old.root, old.text = new.root, new.text
                self.dataChanged.emit(
                    self.createIndex(old.row, 0, old), self.createIndex(old.row, last, old)
                )
            first = -1
            end = -1
            for old_child, new_child in zip(old.children, new.children, strict=False):
                skill = new_child.skill
                if old_child.kind != "skill" or old_child.skill is skill:
                    continue  # a refresh keeps the entries of skills it did not touch
                old_child.skill = skill
                if changed is not None and skill is not None and skill.key not in changed:
                    continue  # an equal entry: nothing shown changes
                if old_child.loaded and old_child.children:
                    # its files may have changed too: listed again when next opened
                    parent = self.createIndex(old_child.row, 0, old_child)
                    self.beginRemoveRows(parent, 0, len(old_child.children) - 1)
                    old_child.children.clear()
                    old_child.loaded = False
                    self.endRemoveRows()
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

    def _load_files(self, node: _Node) -> None:
        assert node.skill is not None
        skill_dir = node.skill.directory
        entries = [(os.path.basename(node.skill.path), node.skill.path)]
        listing = list_resources(skill_dir, limit=FILE_LIMIT)
        entries += [
            (r.rel_path, os.path.join(skill_dir, *r.rel_path.split("/"))) for r in listing.items
        ]
        for rel, path in entries:
            child = _Node("file", node, len(node.children))
            child.path, child.text = path, rel
            child.skill = node.skill
            node.children.append(child)
        if listing.truncated:
            child = _Node("file", node, len(node.children))
            child.text = f"… more than {FILE_LIMIT} files (listing cut)"
            node.children.append(child)
        node.loaded = True

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
        return parent.isValid() and parent.column() == 0 and not self._node(parent).loaded

    def fetchMore(self, parent: _ANY_INDEX) -> None:
        node = self._node(parent)
        if node.loaded:
            return
        files: _Node = _Node("skill", None, 0)
        files.skill = node.skill
        self._load_files(files)
        if files.children:
            self.beginInsertRows(parent, 0, len(files.children) - 1)
            for child in files.children:
                child.parent = node
            node.children = files.children
            node.loaded = True
            self.endInsertRows()
        else:
            node.loaded = True

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
                label = self._labels.get(info.path) or _short(info.path)
                return label if info.scope == "path" else f"{info.scope} · {label}"
            return node.text
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon("root")
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{info.scope} root, layout {info.layout}\n{info.path}"
        return None

    def _skill_data(self, skill: SkillEntry, col: int, role: int) -> Any:
        state = skill.status
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return skill.qualified_name or skill.name or os.path.basename(skill.directory)
            text = STATE_TEXT.get(state, state)
            if state == "shadowed" and skill.shadowed_by:
                return f"{text} by {_short(skill.shadowed_by)}"
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
                lines.append(skill.description[:300])
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


def _short(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path
