"""The source -> skill -> file tree, from the rows the engine prepared (engine/views.py).

A hand-written QAbstractItemModel over the engine's own rows: an index carries its place as an
integer id (kind, root row, skill row, file row), so a tree of 10,000 skills is shown without
making an object per row on the GUI thread. Custom roles are named constants; a skill's files are
asked of the engine when the skill is opened (fetchMore) and come back boundedly. A tree of
another shape swaps the rows; one of the same shape updates only the rows of skills that changed
(the view keeps selection and expansion by stable key, see MainWindow).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import count, repeat
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import QApplication

from skillprism.core.display import home_relative
from skillprism.core.vocabulary import state_and_risk
from skillprism.engine.rows import RowList
from skillprism.engine.views import SKILL_KEY, SKILL_RISK, FileList, RootRow, SkillRow, TreeView
from skillprism.gui.icons import STATE_TEXT, state_icon

KEY_ROLE = Qt.ItemDataRole.UserRole + 1  # stable key: skill path as found, or "root:<path>"
KIND_ROLE = Qt.ItemDataRole.UserRole + 2  # "root" | "skill" | "file"
STATE_ROLE = Qt.ItemDataRole.UserRole + 3  # skill state (docs/architecture.md)
PATH_ROLE = Qt.ItemDataRole.UserRole + 4  # file system path of the item
# The roles `SkillTreeModel.data` answers.
_ROLES = frozenset(
    int(role)
    for role in (
        KEY_ROLE,
        KIND_ROLE,
        STATE_ROLE,
        PATH_ROLE,
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.ToolTipRole,
    )
)

FILE_LIMIT = 500
_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_ANY_INDEX = QModelIndex | QPersistentModelIndex

# An index's id: its kind in the top bits, then the root's row, the skill's row in the root and
# the file's row in the skill (room for 65,536 roots, 16 million skills a root, 262,144 files).
_ROOT, _SKILL, _FILE = 1, 2, 3
_KIND_SHIFT, _ROOT_SHIFT, _SKILL_SHIFT = 58, 42, 18
_ROOT_MASK, _SKILL_MASK, _FILE_MASK = (1 << 16) - 1, (1 << 24) - 1, (1 << 18) - 1
_KINDS = {_ROOT: "root", _SKILL: "skill", _FILE: "file"}


def _root_id(r: int) -> int:
    return _ROOT << _KIND_SHIFT | r << _ROOT_SHIFT


def _skill_id(r: int, s: int) -> int:
    return _SKILL << _KIND_SHIFT | r << _ROOT_SHIFT | s << _SKILL_SHIFT


def _file_id(r: int, s: int, f: int) -> int:
    return _FILE << _KIND_SHIFT | r << _ROOT_SHIFT | s << _SKILL_SHIFT | f


def _decode(ident: int) -> tuple[int, int, int, int]:
    """(kind, root row, skill row, file row) of an index's id."""
    return (
        ident >> _KIND_SHIFT,
        ident >> _ROOT_SHIFT & _ROOT_MASK,
        ident >> _SKILL_SHIFT & _SKILL_MASK,
        ident & _FILE_MASK,
    )


class SkillTreeModel(QAbstractItemModel):
    COLUMNS = ("Skill", "State")

    sig_files_wanted = Signal(str)
    """A skill was opened: its files are wanted (the skill's key)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._roots: Sequence[RootRow] = ()
        self._skills: Sequence[SkillRow] = ()
        self._skill_index: dict[str, int] | None = None  # key -> index in _skills, when asked
        # per root shown: (its row in `_roots`, its summary text, its skills' rows in `_skills`)
        self._groups: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
        self._keep: frozenset[str] | None = None
        self._serial = 0  # the engine's number of the tree shown
        self._positions: dict[str, tuple[int, int]] = {}
        # a skill's files, by its place (root row, skill row): listed, or asked for
        self._files: dict[tuple[int, int], list[tuple[str, str]]] = {}
        self._loading: set[tuple[int, int]] = set()

    # --- content ---------------------------------------------------------------------------------

    def set_tree(
        self, view: TreeView, roots: Sequence[RootRow], skills: Sequence[SkillRow]
    ) -> None:
        """Show a tree the engine prepared. When it shows the same roots and skills in the same
        places as the tree shown now (an edit, a rescan, often another runtime), the rows stay
        and only the changed skills' rows are updated, so the view keeps what is open without
        laying it out again; otherwise the new rows are swapped in with a reset."""
        same = view.same_shape and view.base and view.base == self._serial
        self._skill_index = None
        if not same or view.changed is None:
            self.beginResetModel()
            self._roots, self._skills, self._groups = roots, skills, view.groups
            self._serial, self._keep = view.serial, view.keep
            self._positions = _positions(view.groups, roots, skills)
            self._files.clear()
            self._loading.clear()
            self.endResetModel()
            return
        old_groups, old_skills = self._groups, self._skills
        self._roots, self._skills, self._groups = roots, skills, view.groups
        self._serial, self._keep = view.serial, view.keep
        last = len(self.COLUMNS) - 1
        for r, (old, new) in enumerate(zip(old_groups, view.groups, strict=True)):
            if old[1] != new[1]:  # the root's summary
                self.dataChanged.emit(
                    self.createIndex(r, 0, _root_id(r)), self.createIndex(r, last, _root_id(r))
                )
        # Only the skills the engine says changed (a tree of the same shape always says which):
        # a save of one skill costs one row, not a pass over 10,000. A row whose risk alone
        # changed is updated from the state column on: the name column (which the view asks
        # about children for, row by row) stays as it is.
        rows_changed: dict[int, list[int]] = {}
        risk_only: dict[int, list[int]] = {}
        for key in view.changed or ():
            at = self._positions.get(key)
            if at is None or at[1] < 0:
                continue
            r, s = at
            before, after = old_skills[old_groups[r][2][s]], skills[view.groups[r][2][s]]
            if self._files.get((r, s)) or before._replace(risk=after.risk) != after:
                rows_changed.setdefault(r, []).append(s)  # (its files are listed again)
            elif before.risk != after.risk:
                risk_only.setdefault(r, []).append(s)
        for r, changed_rows in rows_changed.items():
            for s in changed_rows:
                if self._files.get((r, s)):  # its files may have changed too: listed again
                    parent = self.createIndex(s, 0, _skill_id(r, s))
                    self.beginRemoveRows(parent, 0, len(self._files[(r, s)]) - 1)
                    del self._files[(r, s)]
                    self.endRemoveRows()
                self._files.pop((r, s), None)
                self._loading.discard((r, s))
            first, end = min(changed_rows), max(changed_rows)
            self.dataChanged.emit(
                self.createIndex(first, 0, _skill_id(r, first)),
                self.createIndex(end, last, _skill_id(r, end)),
            )
        for r, changed_rows in risk_only.items():
            first, end = min(changed_rows), max(changed_rows)
            self.dataChanged.emit(
                self.createIndex(first, 1, _skill_id(r, first)),
                self.createIndex(end, last, _skill_id(r, end)),
            )

    def set_risks(self, risks: Sequence[tuple[str, str]]) -> None:
        """Skills scanned for risks since the tree was shown: (key, risk) each; their rows
        show it (nothing else of the tree changes)."""
        if not risks:
            return
        if not isinstance(self._skills, (list, RowList)):
            self._skills = list(self._skills)
        skills = self._skills
        if self._skill_index is None:
            if isinstance(skills, RowList):  # (the keys read from the stored tuples)
                keys: Iterable[str] = (t[SKILL_KEY] for t in skills.plain)
            else:
                keys = (row.key for row in skills)
            self._skill_index = {key: i for i, key in enumerate(keys)}
        last = len(self.COLUMNS) - 1
        spans: dict[int, tuple[int, int]] = {}  # per root: the first and last row changed
        for key, risk in risks:
            i = self._skill_index.get(key)
            if i is None:
                continue
            # (a row that shows this risk already is not repainted for it)
            if isinstance(skills, RowList):
                if not skills.set_field(i, SKILL_RISK, risk):
                    continue
            elif skills[i].risk == risk:
                continue
            else:
                skills[i] = skills[i]._replace(risk=risk)
            at = self._positions.get(key)
            if at is not None and at[1] >= 0:
                r, s = at
                low, high = spans.get(r, (s, s))
                spans[r] = (min(low, s), max(high, s))
        # one signal per root, from the state column on (the risk is shown there; the name
        # column, which the view asks about children for row by row, does not change)
        for r, (first, end) in spans.items():
            self.dataChanged.emit(
                self.createIndex(first, 1, _skill_id(r, first)),
                self.createIndex(end, last, _skill_id(r, end)),
            )

    @property
    def filtered(self) -> bool:
        return self._keep is not None

    def add_files(self, files: FileList) -> None:
        """The files of a skill, as the engine listed them (asked by `fetchMore`)."""
        at = self._positions.get(files.key)
        if at is None or at[1] < 0 or at not in self._loading:
            return  # not shown any more, or its skill changed since it was asked
        rows = list(files.entries)
        if files.truncated:
            rows.append((f"… more than {FILE_LIMIT} files (listing cut)", ""))
        r, s = at
        # still "being fetched" while the rows go in: a view asking canFetchMore from inside
        # the insertion must not ask the engine again
        if rows:
            self.beginInsertRows(self.createIndex(s, 0, _skill_id(r, s)), 0, len(rows) - 1)
            self._files[at] = rows
            self.endInsertRows()
        else:
            self._files[at] = []
        self._loading.discard(at)

    # --- navigation ---------------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: _ANY_INDEX = QModelIndex()) -> QModelIndex:
        # Hot: a proxy asks for every row it maps, so the checks are kept to plain comparisons.
        if not 0 <= column < 2 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            if row < len(self._groups):
                return self.createIndex(row, column, _root_id(row))
            return QModelIndex()
        if parent.column() != 0:
            return QModelIndex()
        kind, r, s, _f = _decode(parent.internalId())
        if kind == _ROOT:
            if row < len(self._groups[r][2]):
                return self.createIndex(row, column, _skill_id(r, row))
        elif kind == _SKILL and row < len(self._files.get((r, s), ())):
            return self.createIndex(row, column, _file_id(r, s, row))
        return QModelIndex()

    def parent(self, index: _ANY_INDEX = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        kind, r, s, _f = _decode(index.internalId())
        if kind == _SKILL:
            return self.createIndex(r, 0, _root_id(r))
        if kind == _FILE:
            return self.createIndex(s, 0, _skill_id(r, s))
        return QModelIndex()

    def rowCount(self, parent: _ANY_INDEX = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self._groups)
        if parent.column() != 0:
            return 0
        kind, r, s, _f = _decode(parent.internalId())
        if kind == _ROOT:
            return len(self._groups[r][2])
        if kind == _SKILL:
            return len(self._files.get((r, s), ()))
        return 0

    def columnCount(self, parent: _ANY_INDEX = QModelIndex()) -> int:
        return len(self.COLUMNS)

    def hasChildren(self, parent: _ANY_INDEX = QModelIndex()) -> bool:
        if not parent.isValid():
            return bool(self._groups)
        if parent.column() != 0:
            return False
        kind, r, s, _f = _decode(parent.internalId())
        if kind == _ROOT:
            return bool(self._groups[r][2])
        if kind == _SKILL:
            return (r, s) not in self._files or bool(self._files[(r, s)])
        return False

    def canFetchMore(self, parent: _ANY_INDEX) -> bool:
        if not parent.isValid() or parent.column() != 0:
            return False
        kind, r, s, _f = _decode(parent.internalId())
        return kind == _SKILL and (r, s) not in self._files and (r, s) not in self._loading

    def fetchMore(self, parent: _ANY_INDEX) -> None:
        """A skill opened: its files are asked of the engine (`sig_files_wanted`) and come back
        through `add_files`."""
        if not self.canFetchMore(parent):
            return
        _kind, r, s, _f = _decode(parent.internalId())
        self._loading.add((r, s))
        self.sig_files_wanted.emit(self._skill_at(r, s).key)

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

    def _skill_at(self, r: int, s: int) -> SkillRow:
        return self._skills[self._groups[r][2][s]]

    def data(self, index: _ANY_INDEX, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A view asks for several roles this model has nothing for (font, alignment, check
        # state, background) for every cell it paints: answered before making the row.
        if role not in _ROLES or not index.isValid():
            return None
        kind, r, s, f = _decode(index.internalId())
        col = index.column()
        if role == KIND_ROLE:
            return _KINDS[kind]
        if kind == _ROOT:
            info = self._roots[self._groups[r][0]]
            if role in (PATH_ROLE, KEY_ROLE):
                return info.path if role == PATH_ROLE else f"root:{info.path}"
            if role == STATE_ROLE:
                return ""
            return self._root_data(info, self._groups[r][1], col, role)
        if kind == _SKILL:
            skill = self._skill_at(r, s)
            if role in (PATH_ROLE, KEY_ROLE):
                return skill.path
            if role == STATE_ROLE:
                return skill.status
            return self._skill_data(skill, col, role)
        text, path = self._files[(r, s)][f]
        if role == PATH_ROLE:
            return path
        if role == KEY_ROLE:
            return f"file:{path}"
        if role == STATE_ROLE:
            return ""
        if role == Qt.ItemDataRole.DisplayRole and col == 0:
            return text
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon("file")
        if role == Qt.ItemDataRole.ToolTipRole:
            return path
        return None

    def _root_data(self, info: RootRow, text: str, col: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return info.label if info.scope == "path" else f"{info.scope} · {info.label}"
            return text
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
            # the state, and the risk beside it when it is a warning or worse (never mixed)
            text = state_and_risk(STATE_TEXT.get(state, state), skill.risk)
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
            risk = skill.risk or "not scanned yet"
            lines = [skill.path, f"state: {STATE_TEXT.get(state, state)}", f"risk: {risk}"]
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
        r, s = at
        if s < 0:
            return self.createIndex(r, 0, _root_id(r))
        return self.createIndex(s, 0, _skill_id(r, s))


def _positions(
    groups: Sequence[tuple[int, str, tuple[int, ...]]],
    roots: Sequence[RootRow],
    skills: Sequence[SkillRow],
) -> dict[str, tuple[int, int]]:
    """Where each root ("root:<path>") and skill (its key) is: (root row, skill row or -1)."""
    # The keys straight from the stored tuples of a RowList: building a row for each of 10,000
    # skills only to read its key is most of the time a reset spends here.
    if isinstance(skills, RowList):
        keys = [row[SKILL_KEY] for row in skills.plain]
    else:
        keys = [skill.key for skill in skills]
    positions: dict[str, tuple[int, int]] = {}
    for r, (root, _text, members) in enumerate(groups):
        positions[f"root:{roots[root].path}"] = (r, -1)
        # (key, (r, s)) pairs made by the iterators themselves, not a Python loop per skill
        pairs = zip(repeat(r), count(), strict=False)  # (r, 0), (r, 1), ... without end
        positions.update(zip(map(keys.__getitem__, members), pairs, strict=False))
    return positions
