"""Runtime comparison: skills x profiles. Each cell is the skill's state under that runtime, or for
an active skill its tier-1 outcome, by icon and text, with the reason on hover. Clicking a cell
selects that skill under that runtime. The engine builds the matrix (engine/prepare.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from skillprism.engine.views import MatrixData, RuntimeEntry
from skillprism.gui.icons import state_icon
from skillprism.gui.runtimes import LEVEL_BADGES, LEVEL_GROUPS

_ICON = {
    "full": "ok", "shortened": "warning", "name-only": "warning", "omitted": "error",
    "excluded": "not-discovered", "shadowed": "shadowed", "error": "error", "skipped": "skipped",
    "not-discovered": "not-discovered",
}  # fmt: skip


class MatrixModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.matrix: MatrixData | None = None
        self.entries: dict[str, RuntimeEntry] = {}  # runtime name -> its entry (level, ...)

    def set_matrix(self, matrix: MatrixData | None) -> None:
        self.beginResetModel()
        self.matrix = matrix
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() or self.matrix is None else len(self.matrix.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() or self.matrix is None else 1 + len(self.matrix.profiles)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if self.matrix is None or orientation != Qt.Orientation.Horizontal:
            return None
        entry = None
        if section > 0:
            entry = self.entries.get(self.matrix.profiles[section - 1])
        if role == Qt.ItemDataRole.DisplayRole:
            if section == 0:
                return "Skill"
            badge = LEVEL_BADGES.get(entry.level, "") if entry is not None else ""
            title = self.matrix.titles[section - 1]
            return f"{title}\n({badge})" if badge else title
        if role == Qt.ItemDataRole.ToolTipRole and section > 0:
            name = self.matrix.profiles[section - 1]
            return f"{name}: {entry.provenance}" if entry is not None else name
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if self.matrix is None or not index.isValid():
            return None
        row = self.matrix.rows[index.row()]
        if index.column() == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return self.matrix.labels[index.row()]
            if role == Qt.ItemDataRole.ToolTipRole:
                return row.key
            return None
        cell = row.cells[index.column() - 1]
        warned = cell.warned
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.DecorationRole:
            if warned:
                return state_icon("warning" if cell.state == "warning" else "error")
            return state_icon(_ICON.get(cell.value, "info"))
        if role == Qt.ItemDataRole.ToolTipRole:
            title = self.matrix.titles[index.column() - 1]
            note = f" (listed, with {cell.state}s: see Problems)" if warned else ""
            return f"{row.name} under {title}: {cell.value}{note}\n{cell.reason}".strip()
        return None


DEFAULT_SET = ("agentskills", "claude-code", "codex", "gemini-cli")


class MatrixView(QWidget):
    """Skills x runtimes. The window builds the matrix in the background (the controller, with
    the Prompt Budget view's settings) when this view asks (`sig_compare_requested`), and hands
    it to `show_matrix`; a new catalog makes a shown matrix stale and asks again."""

    sig_select = Signal(str, str)
    """The user clicked a cell: (skill key, profile name)."""
    sig_compare_requested = Signal(list)
    """Compare these runtimes (profile names), with the budget settings of the budget view."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.profiles = QListWidget()
        self.profiles.setMaximumWidth(300)
        self._wanted: list[str] = list(DEFAULT_SET)  # checked once the runtimes are known
        self.search = QLineEdit(placeholderText="Find a runtime")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter_runtimes)
        self.all_button = QPushButton("All")
        self.all_button.clicked.connect(lambda: self.set_chosen(self._runtime_names()))
        self.none_button = QPushButton("None")
        self.none_button.clicked.connect(lambda: self.set_chosen([]))
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(self.compare)
        self.status = QLabel("Pick runtimes and press Compare.")
        self.model = MatrixModel(self)
        # Skills filtered by name as you type (a fixed string on the skill column, in C++).
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(0)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.skill_filter = QLineEdit(placeholderText="Filter skills")
        self.skill_filter.setClearButtonEnabled(True)
        self._filter_timer = QTimer(self, singleShot=True, interval=120)
        self._filter_timer.timeout.connect(
            lambda: self.proxy.setFilterFixedString(self.skill_filter.text().strip())
        )
        self.skill_filter.textChanged.connect(lambda _t: self._filter_timer.start())
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.clicked.connect(self._on_clicked)
        # The skill column stays while the runtimes scroll sideways: a second view over the same
        # rows shows only it, beside the table, scrolled with it.
        self.frozen = QTableView()
        self.frozen.setModel(self.proxy)
        self.frozen.setSelectionModel(self.table.selectionModel())
        self.frozen.verticalHeader().hide()
        self.frozen.setAlternatingRowColors(True)
        self.frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.frozen.clicked.connect(self._on_clicked)
        self.table.verticalScrollBar().valueChanged.connect(
            self.frozen.verticalScrollBar().setValue
        )
        self.frozen.verticalScrollBar().valueChanged.connect(
            self.table.verticalScrollBar().setValue
        )
        self.proxy.modelReset.connect(self._split_columns)
        self.proxy.layoutChanged.connect(self._split_columns)
        grid = QWidget()
        gl = QVBoxLayout(grid)
        gl.setContentsMargins(0, 0, 0, 0)
        gl.addWidget(self.skill_filter)
        tables = QSplitter()
        tables.addWidget(self.frozen)
        tables.addWidget(self.table)
        tables.setStretchFactor(1, 1)
        tables.setSizes([220, 800])
        gl.addWidget(tables, 1)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(QLabel("Runtimes:"))
        lv.addWidget(self.search)
        lv.addWidget(self.profiles, 1)
        picks = QHBoxLayout()
        picks.addWidget(self.all_button)
        picks.addWidget(self.none_button)
        lv.addLayout(picks)
        lv.addWidget(self.compare_button)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(grid)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        layout.addLayout(row)
        layout.addWidget(split, 1)
        self._stale = False

    def set_runtimes(self, entries: Sequence[RuntimeEntry]) -> None:
        """The runtimes to pick from (the engine lists them), grouped by level."""
        chosen = self.chosen() if self.profiles.count() else self._wanted
        self.profiles.clear()
        self.model.entries = {e.name: e for e in entries}
        group = ""
        for entry in entries:
            if entry.broken:
                continue
            if entry.level != group:
                group = entry.level
                # short in this narrow list; the long wording is the tooltip
                header = QListWidgetItem(LEVEL_BADGES.get(group, group).capitalize())
                header.setToolTip(LEVEL_GROUPS.get(group, group))
                header.setFlags(Qt.ItemFlag.NoItemFlags)
                font = header.font()
                font.setBold(True)
                header.setFont(font)
                self.profiles.addItem(header)
            item = QListWidgetItem(f"{entry.title}  ({LEVEL_BADGES.get(entry.level, '')})")
            item.setData(Qt.ItemDataRole.UserRole, entry.name)
            item.setToolTip(entry.provenance)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if entry.name in chosen else Qt.CheckState.Unchecked
            )
            self.profiles.addItem(item)
        self._filter_runtimes(self.search.text())

    def set_catalog(self, _catalog: object, *, wanted: bool = False) -> None:
        """The skill set changed: a matrix on screen is compared again when next seen (`wanted`:
        even before one was made, as on a start after the user had compared runtimes)."""
        if self.model.matrix is not None or wanted:
            self._stale = True
            if self.isVisible():
                self.compare()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self.compare()

    def _runtime_names(self) -> list[str]:
        return [
            self.profiles.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.profiles.count())
            if self.profiles.item(i).data(Qt.ItemDataRole.UserRole)
        ]

    def set_chosen(self, names: list[str]) -> None:
        """Check exactly these runtimes (a remembered set)."""
        self._wanted = list(names)
        wanted = set(names)
        for i in range(self.profiles.count()):
            item = self.profiles.item(i)
            name = item.data(Qt.ItemDataRole.UserRole)
            if name:
                item.setCheckState(
                    Qt.CheckState.Checked if name in wanted else Qt.CheckState.Unchecked
                )

    def _filter_runtimes(self, text: str) -> None:
        terms = text.lower().split()
        for i in range(self.profiles.count()):
            item = self.profiles.item(i)
            if not item.data(Qt.ItemDataRole.UserRole):
                item.setHidden(bool(terms))  # group headings show when not searching
                continue
            hay = f"{item.text()} {item.data(Qt.ItemDataRole.UserRole)}".lower()
            item.setHidden(not all(t in hay for t in terms))

    def chosen(self) -> list[str]:
        out = []
        for i in range(self.profiles.count()):
            item = self.profiles.item(i)
            if item.data(Qt.ItemDataRole.UserRole) and item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(Qt.ItemDataRole.UserRole))
        return out

    def compare(self) -> None:
        profiles = self.chosen()
        if not profiles:
            self.status.setText("Pick at least one runtime.")
            return
        self._stale = False
        self.status.setText(f"Comparing {len(profiles)} runtimes…")
        self.sig_compare_requested.emit(profiles)

    def _split_columns(self) -> None:
        """The skill column in the frozen view only, the runtimes in the table only."""
        columns = self.proxy.columnCount()
        for column in range(columns):
            self.frozen.setColumnHidden(column, column != 0)
            self.table.setColumnHidden(column, column == 0)
        self.frozen.horizontalHeader().setStretchLastSection(True)

    def show_matrix(self, matrix: MatrixData) -> None:
        """Show `matrix` (its skill labels and each column's distinct texts come with it)."""
        self.model.set_matrix(matrix)
        self._split_columns()
        # Each runtime's column as wide as its header or its widest text: measured from the few
        # distinct texts, not by asking the model for thousands of cells.
        header = self.table.horizontalHeader()
        metrics = self.table.fontMetrics()
        extra = self.table.iconSize().width() + 4 * self.table.style().pixelMetric(
            QStyle.PixelMetric.PM_FocusFrameHMargin
        )
        for column, values in enumerate(matrix.texts):
            widest = max((metrics.horizontalAdvance(t) for t in values[:8]), default=0)
            self.table.setColumnWidth(
                column + 1,
                max(header.sectionSizeFromContents(column + 1).width(), widest + extra + 16),
            )
        # the runtimes' headers take two lines: the skill column's header matches their height,
        # so its rows line up with the table's
        self.frozen.horizontalHeader().setFixedHeight(
            self.table.horizontalHeader().sizeHint().height()
        )
        self.status.setText(
            f"{len(matrix.rows)} skill files under {len(matrix.profiles)} runtimes. "
            "Click a cell to see that skill under that runtime."
        )

    def show_failure(self, message: str) -> None:
        self.status.setText(message)

    def _on_clicked(self, index: QModelIndex) -> None:
        matrix = self.model.matrix
        if matrix is None or not index.isValid():
            return
        if index.model() is self.proxy:
            index = self.proxy.mapToSource(index)
        key = matrix.rows[index.row()].key
        profile = matrix.profiles[index.column() - 1] if index.column() > 0 else ""
        self.sig_select.emit(key, profile)
