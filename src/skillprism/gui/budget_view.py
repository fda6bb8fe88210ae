"""The budget view: what the selected runtime puts in the prompt for this skill set, and what its
budget keeps of each skill. Moving a control asks for the listing again (`sig_inputs_changed`);
the engine computes it through the Workspace (the runtime's own settings files merged by the same
rule as the CLI's) and the window hands the result to `show_result`."""

from __future__ import annotations

import bisect
import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QFontDatabase, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStyledItemDelegate,
    QTableView,
    QTabWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.vocabulary import OVERRIDES
from skillprism.engine.views import OutcomeRow, Tier1View
from skillprism.gui.icons import state_icon
from skillprism.gui.table_model import RowsTableModel

CONTEXT_PRESETS = (
    ("the runtime's default", None),
    ("8k", 8_000), ("32k", 32_000), ("128k", 128_000), ("200k (Claude)", 200_000),
    ("272k", 272_000), ("400k", 400_000), ("1M", 1_000_000), ("unknown (fallback)", 0),
)  # fmt: skip
LISTING_LINES_SHOWN = 2000  # lines of the tier-1 listing shown in the view
# outcome -> (icon kind, colour of its bar segment)
_OUTCOME_STYLE = {
    "full": ("ok", "#2e9d4f"),
    "shortened": ("warning", "#d08a00"),
    "name-only": ("warning", "#b06ad6"),
    "omitted": ("error", "#d23b3b"),
    "excluded": ("not-discovered", "#8a8f98"),
}


class OutcomeModel(RowsTableModel):
    """Per skill: outcome, characters and tokens in the listing, and why; the listing override
    and the usage count are edited in place (the listing is asked for again)."""

    COLUMNS = ("Skill", "Outcome", "Chars", "Tokens", "Override", "Usage", "Why")

    sig_edited = Signal()
    """An override or a usage count was changed in the table."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._result: Tier1View | None = None
        self._rows: Sequence[Any] = []
        self.overrides: dict[str, str] = {}
        self.usage: dict[str, float] = {}

    def set_result(self, result: Tier1View | None) -> None:
        self.beginResetModel()
        self._result = result
        self._rows = result.entries if result is not None else []  # (its RowList, not a copy)
        self.endResetModel()

    def entry(self, row: int) -> Any:
        return self._rows[row]

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            return {
                4: "How the runtime lists this skill (double-click to change): "
                + ", ".join(OVERRIDES),
                5: "How often it is used (double-click to change): ranks which descriptions a "
                "runtime that weighs usage keeps",
            }.get(section)
        return super().headerData(section, orientation, role)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() in (4, 5):
            flags |= Qt.ItemFlag.ItemIsEditable  # the override and the usage count, in place
        return flags

    def setData(
        self,
        index: QModelIndex | QPersistentModelIndex,
        value: Any,
        role: int = Qt.ItemDataRole.EditRole,
    ) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        name = self._rows[index.row()].name
        if index.column() == 4 and value in OVERRIDES:
            if value == "on":
                self.overrides.pop(name, None)
            else:
                self.overrides[name] = value
        elif index.column() == 5:
            try:
                count = float(value)
            except (TypeError, ValueError):
                return False
            if count < 0:
                return False
            self.usage[name] = count
        else:
            return False
        self.dataChanged.emit(index, index)
        self.sig_edited.emit()
        return True

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        e = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.EditRole and col in (4, 5):
            return self.overrides.get(e.name, "on") if col == 4 else self.usage.get(e.name, 0.0)
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return e.name
            if col == 1:
                return (
                    f"{e.outcome} ({e.kept_chars:,} kept)"
                    if e.outcome == "shortened"
                    else e.outcome
                )
            if col == 2:
                return f"{e.chars:,}"
            if col == 3:
                return f"{e.tokens:,}"
            if col == 4:
                return self.overrides.get(e.name, "on")
            if col == 5:
                if e.name in self.usage:
                    return f"{self.usage[e.name]:g}"
                return f"{e.usage:.2f}" if e.usage else "0"
            return e.reason
        if role == Qt.ItemDataRole.ForegroundRole and col == 5 and e.name not in self.usage:
            # the runtime's own record, not a value set here
            return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.DecorationRole and col == 1:
            return state_icon(_OUTCOME_STYLE[e.outcome][0])
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 5:
                if e.name in self.usage:
                    return "Set here (double-click to change); it replaces the runtime's record"
                if e.used:
                    return f"Recorded by the runtime on this machine: {e.used}"
                return "The runtime records no use of this skill here"
            return f"{e.name}: {e.outcome}\n{e.path}\n{e.reason}".strip()
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 3, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class _OverrideDelegate(QStyledItemDelegate):
    """The Override column's editor: the runtime's listing overrides, in a list."""

    def createEditor(self, parent: QWidget, option: Any, index: QModelIndex) -> QWidget:
        editor = QComboBox(parent)
        editor.addItems(list(OVERRIDES))
        editor.activated.connect(lambda _i: self.commitData.emit(editor))
        return editor

    def setEditorData(self, editor: QWidget, index: QModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor: QWidget, model: Any, index: QModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)


class BudgetBar(QWidget):
    """The limit as a bar: each listed skill's share, in listing order, coloured by outcome and
    labelled; a marker where the limit ends when the listing is over it. Hover names the skill.

    What the bar shows is worked out once per result (`set_result`), as fractions of the bar:
    a paint only scales them, so a listing of thousands of skills paints as fast as one of ten."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setMinimumHeight(46)
        self._result: Tier1View | None = None
        # each skill with characters: (start, end) as fractions of the bar, its row's index
        self._spans: list[tuple[float, float, int]] = []
        self._runs: list[tuple[float, float, str]] = []  # runs of one outcome, as fractions
        self._caption = ""

    def sizeHint(self) -> QSize:
        return QSize(600, 46)

    def set_result(self, result: Tier1View | None) -> None:
        self._result = result
        self._spans, self._runs, self._caption = [], [], ""
        if result is not None and result.entries:
            self._prepare(result)
        self.update()

    def _prepare(self, r: Tier1View) -> None:
        fields = OutcomeRow._fields
        at_outcome, at_chars = fields.index("outcome"), fields.index("chars")
        scale_to = max(r.limit_chars or 0, r.used_chars, 1)
        counts = dict.fromkeys(_OUTCOME_STYLE, 0)
        x, run_start, run_outcome = 0.0, 0.0, ""
        for i, row in enumerate(r.entries.plain):  # the plain tuples: no row objects made
            outcome, chars = row[at_outcome], row[at_chars]
            if outcome in counts:
                counts[outcome] += 1
            if not chars:
                continue
            if outcome != run_outcome:
                if run_outcome and x > run_start:
                    self._runs.append((run_start, x, run_outcome))
                run_start, run_outcome = x, outcome
            w = chars / scale_to
            self._spans.append((x, x + w, i))
            x += w
        if run_outcome and x > run_start:
            self._runs.append((run_start, x, run_outcome))
        limit = "no limit" if r.limit_chars is None else f"limit {r.limit_chars:,}"
        self._caption = f"{r.used_chars:,} chars used · {limit} · " + " · ".join(
            f"{n} {k}" for k, n in counts.items() if n
        )

    def _bar(self) -> QRectF:
        return QRectF(4, 6, self.width() - 8, self.height() - 24)

    def paintEvent(self, _event: Any) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        rect = self._bar()
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1))
        p.setBrush(pal.color(QPalette.ColorRole.Base))
        p.drawRoundedRect(rect, 3, 3)
        r = self._result
        if r is None or not r.entries:
            p.setPen(pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, "No listing")
            p.end()
            return
        left, width = rect.left(), rect.width()
        # Thousands of skills are thinner than a pixel each: runs of one outcome are painted as
        # one block, with a hairline between skills where there is room.
        for a, b, outcome in self._runs:
            self._paint_run(p, rect, left + a * width, left + b * width, outcome)
        p.setPen(QPen(pal.color(QPalette.ColorRole.Base), 1))
        wide = 6 / width if width > 0 else 1.0
        first = True
        for a, b, _i in self._spans:
            if b - a >= wide:
                if not first:
                    sx = int(left + a * width)
                    p.drawLine(sx, int(rect.top() + 1), sx, int(rect.bottom() - 1))
                first = False
        if r.limit_chars is not None and r.used_chars > r.limit_chars:
            scale_to = max(r.limit_chars or 0, r.used_chars, 1)
            lx = left + width * r.limit_chars / scale_to
            p.setPen(QPen(QColor("#d23b3b"), 2))
            p.drawLine(int(lx), int(rect.top() - 4), int(lx), int(rect.bottom() + 4))
        p.setPen(pal.color(QPalette.ColorRole.WindowText))
        p.drawText(
            QRectF(4, rect.bottom() + 2, self.width() - 8, 16),
            Qt.AlignmentFlag.AlignLeft,
            self._caption,
        )
        p.end()

    @staticmethod
    def _paint_run(p: QPainter, rect: QRectF, start: float, end: float, outcome: str) -> None:
        if outcome and end > start:
            width = max(end - start, 1.0)
            p.fillRect(
                QRectF(start, rect.top() + 1, width, rect.height() - 2),
                QColor(_OUTCOME_STYLE[outcome][1]),
            )

    def mouseMoveEvent(self, event: Any) -> None:
        rect, r = self._bar(), self._result
        at = (event.position().x() - rect.left()) / rect.width() if rect.width() > 0 else -1.0
        i = bisect.bisect_right(self._spans, (at, float("inf"), 0)) - 1
        if r is not None and 0 <= i < len(self._spans) and self._spans[i][1] > at:
            e = r.entries[self._spans[i][2]]
            tip = f"{e.name}: {e.outcome}, {e.chars:,} chars, {e.tokens:,} tokens"
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
            return
        QToolTip.hideText()


class BudgetView(QWidget):
    sig_select_skill = Signal(str)
    """The user asked to see a skill (double-click on a row)."""
    sig_inputs_changed = Signal(object)
    sig_advise = Signal()
    """The user asks what it takes for every listed skill to keep its full description."""
    """A control changed: the listing is wanted for these BudgetInputs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.loaded = False  # a skill set is shown (its listing can be asked for)
        self._result: Tier1View | None = None
        self._problems: list[str] = []
        self.context = QComboBox(editable=True)
        for label, value in CONTEXT_PRESETS:
            self.context.addItem(label, value)
        self.context.setCurrentIndex(0)
        self.context.setToolTip("Model context window in tokens (pick a preset or type a number)")
        self.context.currentIndexChanged.connect(self.recompute)
        self.context.lineEdit().editingFinished.connect(self.recompute)
        self.fraction = QDoubleSpinBox(decimals=3, minimum=0.0, maximum=1.0, singleStep=0.005)
        self.fraction.setSpecialValueText("profile")
        self.fraction.setToolTip(
            "Budget as a fraction of the context window (profile = the runtime's own)"
        )
        self.fraction.valueChanged.connect(self.recompute)
        self.fixed = QSpinBox(minimum=0, maximum=10_000_000, singleStep=500)
        self.fixed.setSpecialValueText("off")
        self.fixed.setToolTip("A fixed budget in characters (overrides the fraction)")
        self.fixed.valueChanged.connect(self.recompute)
        self.copy_button = QPushButton("Copy listing")
        self.copy_button.clicked.connect(self._copy)
        self.advise_button = QPushButton("What Would It Take…")
        self.advise_button.setToolTip(
            "What to shorten or turn off so every listed skill keeps its full description, "
            "computed with the runtime's own budget model (you see the change first)"
        )
        self.advise_button.clicked.connect(self.sig_advise.emit)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = BudgetBar()
        self.outcomes = OutcomeModel(self)
        self.table = QTableView()
        self.table.setModel(self.outcomes)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(False)  # one line per skill; the full reason is in the tooltip
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        for column, width in enumerate((190, 120, 64, 64, 70, 64)):
            self.table.setColumnWidth(column, width)
        self.table.setItemDelegateForColumn(4, _OverrideDelegate(self.table))
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.SelectedClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.outcomes.sig_edited.connect(self.recompute)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.table.doubleClicked.connect(
            lambda i: (
                i.column() in (4, 5) or self.sig_select_skill.emit(self.outcomes.entry(i.row()).key)
            )
        )
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._text_timer = QTimer(self, singleShot=True, interval=150)
        self._text_timer.timeout.connect(self._show_text)

        controls = QHBoxLayout()
        for label, widget in (
            ("Context window:", self.context),
            ("Fraction:", self.fraction),
            ("Fixed chars:", self.fixed),
        ):
            controls.addWidget(QLabel(label))
            controls.addWidget(widget)
        controls.addStretch(1)
        controls.addWidget(self.advise_button)
        controls.addWidget(self.copy_button)
        # Per skill and the listing itself as two tabs, each with the dock's whole height (a
        # bottom dock is wide and short); the verdict and the runtime's messages on the right.
        self.lists = QTabWidget()
        self.lists.setDocumentMode(True)
        self.lists.addTab(self.table, "Per skill")
        self.lists.addTab(self.text, "Listing as sent")
        self.lists.setTabToolTip(1, "The exact tier-1 text the runtime puts in the prompt")
        lists = self.lists
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setContentsMargins(6, 0, 6, 0)
        summary_scroll = QScrollArea()
        summary_scroll.setWidget(self.summary)
        summary_scroll.setWidgetResizable(True)
        summary_scroll.setFrameShape(QFrame.Shape.NoFrame)
        summary_scroll.setMinimumWidth(220)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(lists)
        split.addWidget(summary_scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 400])  # proportions until the splitter is laid out
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(controls)
        layout.addWidget(self.bar)
        layout.addWidget(split, 1)

    # --- data -------------------------------------------------------------------------------------

    def set_loaded(self, loaded: bool) -> None:
        """A skill set is shown (its listing follows through `show_result`) or none is."""
        self.loaded = loaded
        if not loaded:
            self.show_result(None)

    def inputs(self) -> BudgetInputs:
        """What the controls say, for the Workspace's budget rule."""
        text = self.context.currentText().strip()
        value = self.context.currentData()
        if self.context.findText(text) < 0:  # a number typed in
            digits = "".join(c for c in text if c.isdigit())
            value = int(digits) if digits else 0
        return BudgetInputs(
            context_window=None if value is None else int(value),
            budget_chars=self.fixed.value() or None,
            budget_fraction=None if self.fixed.value() else (self.fraction.value() or None),
            usage=dict(self.outcomes.usage),
            overrides=dict(self.outcomes.overrides),
        )

    def recompute(self, *_args: Any) -> None:
        """Ask for the listing under the current controls."""
        if self.loaded:
            self.sig_inputs_changed.emit(self.inputs())

    def show_failure(self, message: str) -> None:
        self.summary.setText(f"<span style='color:#d23b3b'>{html.escape(message)}</span>")

    def show_result(self, result: Tier1View | None) -> None:
        """Show a computed listing (None: nothing loaded), with the settings files that could
        not be read."""
        self._result = result
        self._problems = list(result.unread) if result is not None else []
        self.outcomes.set_result(result)
        self.bar.set_result(result)
        if result is None:
            self.summary.setText("No skills loaded.")
            self.text.setPlainText("")
            return
        title = result.title
        lines = [
            f"<b>{html.escape(title)}</b>: {result.used_chars:,} characters in the listing"
            + (
                f" of a {result.limit_chars:,}-character budget"
                if result.limit_chars is not None
                else ""
            )
            + (
                f" (headroom {result.headroom_chars:,})"
                if result.headroom_chars is not None
                else ""
            )
            + f"; token counts by {result.counter}."
        ]
        for w in result.warnings:
            lines.append(f"<span style='color:#b7791f'>Runtime warning: {html.escape(w)}</span>")
        applied = result.settings_applied or ("none found",)
        lines.append("Runtime settings applied: " + html.escape("; ".join(applied)))
        for problem in self._problems:
            lines.append(
                f"<span style='color:#d23b3b'>Settings problem: {html.escape(problem)}</span>"
            )
        lines.append(
            "<span style='color:gray'>Assumptions: "
            + html.escape("; ".join(result.assumptions))
            + "</span>"
        )
        self.summary.setText("<br>".join(lines))
        self._text_timer.start()

    def _show_text(self) -> None:
        """The listing as the runtime sends it; a very long one shows its beginning (Copy listing
        copies all of it): laying out tens of thousands of lines would hold up the window."""
        result = self._result
        text = result.text if result is not None else ""
        lines = text.count("\n") + 1
        if lines > LISTING_LINES_SHOWN:
            cut = text.split("\n", LISTING_LINES_SHOWN)[:LISTING_LINES_SHOWN]
            text = "\n".join(cut) + (
                f"\n… {lines - LISTING_LINES_SHOWN:,} more lines (Copy listing copies all of it)"
            )
        self.text.setPlainText(text)

    # --- actions ------------------------------------------------------------------------------------

    def _copy(self) -> None:
        result = self._result
        if result is not None:
            QGuiApplication.clipboard().setText(result.text)

    def _menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if not index.isValid():
            return
        entry = self.outcomes.entry(index.row())
        menu = QMenu(self)
        sub = menu.addMenu("Listing override")
        for mode in OVERRIDES:
            act = QAction(mode, sub, checkable=True)
            act.setChecked(self.outcomes.overrides.get(entry.name, "on") == mode)
            act.triggered.connect(lambda _c=False, m=mode, n=entry.name: self.set_override(n, m))
            sub.addAction(act)
        menu.addAction("Set usage count…", lambda n=entry.name: self._ask_usage(n))
        menu.addAction("Show skill", lambda k=entry.key: self.sig_select_skill.emit(k))
        menu.exec(self.table.viewport().mapToGlobal(pos))

    def set_override(self, name: str, mode: str) -> None:
        if mode == "on":
            self.outcomes.overrides.pop(name, None)
        else:
            self.outcomes.overrides[name] = mode
        self.recompute()

    def set_usage(self, name: str, count: float) -> None:
        self.outcomes.usage[name] = count
        self.recompute()

    def _ask_usage(self, name: str) -> None:
        current = self.outcomes.usage.get(name, 0.0)
        value, ok = QInputDialog.getDouble(
            self,
            "Usage",
            f"How often is {name} used? (ranks which descriptions are dropped first)",
            current,
            0,
            1e9,
            0,
        )
        if ok:
            self.set_usage(name, value)
