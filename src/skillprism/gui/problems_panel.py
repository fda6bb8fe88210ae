"""The Problems dock's contents: every finding of the set in a sortable table, with a text filter,
a severity choice, the selected skill only or every skill, and only skills that have problems.
Activating a row asks the window to show the finding where it is (`sig_show`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from skillprism.core.vocabulary import FIXABLE_CODES as FIXABLE
from skillprism.engine.views import ProblemRow
from skillprism.gui.problems_model import SEVERITY_CHOICES, ProblemsFilter, ProblemsModel
from skillprism.gui.table_view import PlaceholderTableView


class ProblemsPanel(QWidget):
    sig_show = Signal(object)
    """Show this finding where it is (a ProblemRow)."""
    sig_fix = Signal(str, str)
    """Offer the quick fixes of a skill (its key), the selected finding's code first."""
    sig_fix_all = Signal(str)
    """Offer the quick fixes of one code for every skill."""

    def __init__(self, loaded: Callable[[], bool], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loaded = loaded
        self._selected = ""
        self.relaxed = False  # the project's settings switched a check off or held findings back
        self.model = ProblemsModel(self)
        self.proxy = ProblemsFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = PlaceholderTableView(self.placeholder)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        # long paths lose their middle, never the line and column at their end
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 90), (1, 70), (3, 180), (4, 260)):
            self.table.setColumnWidth(column, width)
        self.table.activated.connect(self._on_activated)
        self.table.doubleClicked.connect(self._on_activated)
        self.text = QLineEdit(placeholderText="Filter problems (code, message, skill)")
        self.text.setClearButtonEnabled(True)
        self.text.textChanged.connect(self.proxy.set_text)
        self.only_selected = QCheckBox("Only the selected skill")
        self.only_selected.toggled.connect(self._apply_scope)
        self.severity = QComboBox()
        for label, severities in SEVERITY_CHOICES:
            self.severity.addItem(label, severities)
        self.severity.currentIndexChanged.connect(
            lambda _i: self.proxy.set_severities(frozenset(self.severity.currentData()))
        )
        self.act_fix = QAction("Quick Fix…", self)
        self.act_fix.setShortcut(QKeySequence("Ctrl+."))
        self.act_fix.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_fix.setToolTip("The fixes offered for the selected finding's skill, with a diff")
        self.act_fix.triggered.connect(self._fix)
        self.act_fix_all = QAction("Fix This Kind Everywhere…", self)
        self.act_fix_all.setToolTip(
            "The fixes offered for the selected finding's code, in every skill"
        )
        self.act_fix_all.triggered.connect(self._fix_all)
        self.addAction(self.act_fix)
        self.fix_button = QPushButton("Quick Fix…")
        self.fix_button.clicked.connect(self._fix)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._enable_fix())
        self._enable_fix()
        row = QHBoxLayout()
        row.addWidget(self.text, 1)
        row.addWidget(self.only_selected)
        row.addWidget(self.severity)
        row.addWidget(self.fix_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)

    def placeholder(self) -> str:
        if not self._loaded():
            return "Scanning…"
        if self.model.rowCount() == 0:
            if self.relaxed:
                return (
                    "No problems shown, but the project's own settings relax this review "
                    "(View → Ignore the Folder's Own Settings shows everything)."
                )
            return "No problems: every skill here passes this runtime's checks."
        if self.only_selected.isChecked() and self._selected:
            return "The selected skill has no problems."
        return "No problems match the filter."

    def set_rows(self, rows: Sequence[ProblemRow]) -> None:
        self.model.set_rows(rows)

    def add_rows(self, rows: Sequence[ProblemRow]) -> None:
        """Findings that came in since (risks as they are scanned)."""
        self.model.add_rows(rows)

    def set_selected(self, key: str) -> None:
        self._selected = key
        self._apply_scope()

    def _apply_scope(self, *_args: object) -> None:
        self.proxy.set_skill(self._selected if self.only_selected.isChecked() else "")

    def current(self) -> ProblemRow | None:
        """The finding selected in the table, if any."""
        index = self.table.currentIndex()
        if not index.isValid() or not self.table.selectionModel().isSelected(index):
            return None
        source = self.proxy.mapToSource(index)
        return self.model.row(source.row()) if source.isValid() else None

    def _enable_fix(self) -> None:
        row = self.current()
        fixable = row is not None and row.key != "" and row.diagnostic.code in FIXABLE
        self.act_fix.setEnabled(fixable)
        self.act_fix_all.setEnabled(fixable)
        self.fix_button.setEnabled(fixable)

    def _fix(self) -> None:
        row = self.current()
        if row is not None and row.key and row.diagnostic.code in FIXABLE:
            self.sig_fix.emit(row.key, row.diagnostic.code)

    def _fix_all(self) -> None:
        row = self.current()
        if row is not None and row.diagnostic.code in FIXABLE:
            self.sig_fix_all.emit(row.diagnostic.code)

    def _menu(self, at: QPoint) -> None:
        self._enable_fix()
        menu = QMenu(self)
        menu.addAction(self.act_fix)
        menu.addAction(self.act_fix_all)
        menu.exec(self.table.viewport().mapToGlobal(at))

    def _on_activated(self, index: QModelIndex) -> None:
        source = self.proxy.mapToSource(index)
        if source.isValid():
            self.sig_show.emit(self.model.row(source.row()))
