"""The trigger view: would a model pick the selected skill for a prompt? An offline estimate.

The user types a prompt (a playground) or opens an eval set in skill-creator's format; the engine
ranks every skill the runtime lists, as it lists them under the budget view's context window, by
the words they share with the prompt (core/trigger.py), and the view shows where the selected
skill ranks, what ranks above it, and which skills' entries say nearly what its entry says. Every
figure is labelled an estimate: it rewards shared words, and a model also reads meaning."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from skillprism.engine.views import EvalRow, EvalView, TriggerRow, TriggerView
from skillprism.gui.icons import state_icon
from skillprism.gui.live_runs import LiveRunsPage
from skillprism.gui.table_model import RowsTableModel
from skillprism.gui.table_view import PlaceholderTableView

# Typing pauses this long before the prompt is ranked: one request per pause, not per key.
TYPING_PAUSE_MS = 40
_LISTED_AS = {"full": "full description", "shortened": "shortened", "name-only": "name only"}


class RankingModel(RowsTableModel):
    """The listed skills against the prompt, best first; the selected skill's row stands out."""

    COLUMNS = ("Rank", "Skill", "Listed as", "Score")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: Sequence[TriggerRow] = []
        self.key = ""

    def set_rows(self, rows: Sequence[TriggerRow], key: str) -> None:
        self.beginResetModel()
        self._rows, self.key = rows, key
        self.endResetModel()

    def row_of(self, key: str) -> int | None:
        return next((i for i, r in enumerate(self._rows) if r.key == key), None)

    def key_at(self, row: int) -> str:
        return self._rows[row].key if 0 <= row < len(self._rows) else ""

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = self._rows[index.row()], index.column()
        mine = row.key == self.key
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                str(row.rank),
                row.name,
                _listed_as(row),
                f"{row.score:.2f}",
            )[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and mine:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.BackgroundRole and mine:
            # the selection colour, see-through: readable on a light and on a dark base
            tint = QColor(QPalette().color(QPalette.ColorRole.Highlight))
            tint.setAlpha(90)
            return tint
        if role == Qt.ItemDataRole.ForegroundRole and not mine and row.score <= 0:
            # shares no word with the prompt: in the ranking only to give every skill a place
            return QPalette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                "One of the runtime's own skills: it ships with the runtime"
                if row.builtin
                else row.key
            )
        return None


def _listed_as(row: TriggerRow) -> str:
    listed = _LISTED_AS.get(row.outcome, row.outcome)
    return f"built-in, {listed}" if row.builtin else listed


def _of_them_builtin(r: TriggerView) -> str:
    """ " (N of them the runtime's own)" when the listing holds the runtime's built-in skills."""
    return f" ({r.builtin:,} of them the runtime's own)" if r.builtin else ""


class EvalModel(RowsTableModel):
    """An eval set's prompts: what each should do, what the estimate picks, and whether it agrees."""

    COLUMNS = ("", "Prompt", "Should trigger", "Estimate picks", "Rank")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: Sequence[EvalRow] = []
        self.name = ""

    def set_rows(self, rows: Sequence[EvalRow], name: str) -> None:
        self.beginResetModel()
        self._rows, self.name = rows, name
        self.endResetModel()

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return state_icon("ok" if row.correct else "error")
        if role == Qt.ItemDataRole.DisplayRole:
            picks = self.name if row.picked else (row.instead or "no skill")
            return (
                "agrees" if row.correct else "differs",
                row.query,
                "yes" if row.should_trigger else "no",
                picks,
                str(row.rank) if row.rank else "not listed",
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole and col == 1:
            return row.query
        return None


@dataclass
class EvalSet:
    """A skill's eval set as the user has it in the window: where it is saved ("" not yet), its
    prompts, the file's text as last read or written (None: not read from a file), and whether
    it was edited since."""

    path: str = ""
    items: list[tuple[str, bool]] = field(default_factory=list)
    source: str | None = None
    dirty: bool = False


class TriggerPanel(QWidget):
    """The prompt, the ranking and the eval set of the selected skill."""

    sig_prompt_changed = Signal(str)
    """The prompt to rank, after a pause in typing."""
    sig_evals_requested = Signal(str)
    """An eval set file to open and run for the selected skill."""
    sig_evals_run = Signal(str, list)
    """The selected skill's eval set as edited (its path, its (query, should trigger) items)."""
    sig_evals_save = Signal(str, list, object)
    """Save the eval set: path, items, the file's text as read (None: a new file)."""
    sig_select_skill = Signal(str)
    """A skill of the ranking was activated (double-click): select it in the tree."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = ""
        self.directory = ""  # the selected skill's folder
        self.project = ""  # where Save As starts
        self.result: TriggerView | None = None
        self.evals: EvalView | None = None
        self.sets: dict[str, EvalSet] = {}  # per skill key, kept while the window is open
        self._evals_path = ""

        self.prompt = QLineEdit(placeholderText="Type a prompt a user might send…")
        self.prompt.setClearButtonEnabled(True)
        self.prompt.setAccessibleName("Prompt to rank the listed skills against")
        self._typing = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._typing.timeout.connect(lambda: self.sig_prompt_changed.emit(self.prompt.text()))
        self.prompt.textChanged.connect(lambda _t: self._typing.start())
        self.open_evals = QPushButton("Open Eval Set…")
        self.open_evals.setToolTip(
            "Run an eval set in skill-creator's format (a JSON array of "
            '{"query": ..., "should_trigger": true|false}) for the selected skill'
        )
        self.open_evals.clicked.connect(self._choose_evals)
        top = QHBoxLayout()
        top.addWidget(self.prompt, 1)
        top.addWidget(self.open_evals)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.overlaps = QLabel()
        self.overlaps.setWordWrap(True)
        self.overlaps.setTextFormat(Qt.TextFormat.RichText)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: palette(placeholder-text);")

        self.ranking_model = RankingModel(self)
        self.ranking = PlaceholderTableView(self._ranking_placeholder)
        self.ranking.setModel(self.ranking_model)
        self.ranking.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.ranking.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.ranking.verticalHeader().hide()
        self.ranking.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.ranking.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        # Widths from the widest text a column can hold, not from its rows: sizing to the
        # contents asks every one of a thousand rows on each re-rank.
        bold = QFont(self.ranking.font())
        bold.setBold(True)  # (the selected skill's row)
        metrics = QFontMetrics(bold)
        for col, widest in (
            (0, "Rank 0000"),
            (2, "built-in, full description"),
            (3, "Score 00.00"),
        ):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(col, metrics.horizontalAdvance(widest) + 12)
        self.ranking.doubleClicked.connect(
            lambda idx: self.sig_select_skill.emit(self.ranking_model.key_at(idx.row()))
        )

        self.eval_model = EvalModel(self)
        self.eval_table = PlaceholderTableView(self._evals_placeholder)
        self.eval_table.setModel(self.eval_model)
        self.eval_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.eval_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.eval_table.verticalHeader().hide()
        self.eval_table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        eh = self.eval_table.horizontalHeader()
        eh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for col in (0, 2, 3, 4):
            eh.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.eval_table.selectionModel().selectionChanged.connect(lambda *_: self._enable())
        self.eval_summary = QLabel()
        self.eval_summary.setWordWrap(True)
        self.eval_summary.setTextFormat(Qt.TextFormat.RichText)
        self.add_should = QPushButton("Add Prompt: Should Trigger")
        self.add_should.setToolTip("Add the prompt typed above to this skill's eval set")
        self.add_should.clicked.connect(lambda: self._add(True))
        self.add_should_not = QPushButton("Add Prompt: Should Not")
        self.add_should_not.setToolTip(
            "Add the prompt typed above as one that should not make a model pick this skill"
        )
        self.add_should_not.clicked.connect(lambda: self._add(False))
        self.remove = QPushButton("Remove")
        self.remove.clicked.connect(self._remove)
        self.save = QPushButton("Save")
        self.save.clicked.connect(self._save)
        self.save_as = QPushButton("Save As…")
        self.save_as.clicked.connect(lambda: self._save(choose=True))
        tools = QHBoxLayout()
        for button in (self.add_should, self.add_should_not, self.remove):
            tools.addWidget(button)
        tools.addStretch(1)
        tools.addWidget(self.save)
        tools.addWidget(self.save_as)
        evals_page = QWidget()
        ev = QVBoxLayout(evals_page)
        ev.setContentsMargins(0, 4, 0, 0)
        ev.addLayout(tools)
        ev.addWidget(self.eval_summary)
        ev.addWidget(self.eval_table, 1)

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.ranking, "Ranking")
        self.tabs.addTab(evals_page, "Eval Set")
        self.live = LiveRunsPage(self._live_items)
        self.tabs.addTab(self.live, "Live Runs")
        self.tabs.currentChanged.connect(lambda _i: self._tab_changed())

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.overlaps)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.note)
        self.prompt.textChanged.connect(lambda _t: self._enable())
        self._show_summary()
        self._enable()

    # --- what the window tells it ------------------------------------------------------------------

    def set_skill(self, key: str, directory: str = "") -> None:
        """The skill the view is about changed (the tree's selection). Its eval set, if it had
        one in this session (edited or not), comes back with it."""
        if key == self.key:
            return
        self.key, self.directory = key, directory
        self.ranking_model.set_rows(self.ranking_model._rows, key)
        if self.evals is not None and self.evals.key != key:
            self.evals = None
            self.eval_model.set_rows((), "")
        held = self.sets.get(key)
        if held is not None and held.items:
            self.sig_evals_run.emit(held.path, list(held.items))
        self._show_summary()
        self._show_evals()
        self._enable()
        self._replan_if_shown()

    def _live_items(self) -> list[tuple[str, bool]]:
        """The selected skill's eval set as the user has it (edited or not), for a live run."""
        held = self.sets.get(self.key)
        return list(held.items) if held is not None else []

    def _replan_if_shown(self) -> None:
        if self.tabs.currentWidget() is self.live and self.isVisible():
            self.live.replan()

    def _tab_changed(self) -> None:
        # A live run reports what the model did: the estimate's caveat is not about it. (Set
        # here only: showing a widget, even one shown already, costs a layout pass.)
        self.note.setHidden(self.tabs.currentWidget() is self.live)
        self._replan_if_shown()

    def show_result(self, result: TriggerView) -> None:
        if result.key != self.key:
            return  # for a skill no longer selected: a newer answer follows
        self.result = result
        self.ranking_model.set_rows(result.rows, self.key)
        # the top of the ranking, and the selected skill's row with what ranks just above it
        self.ranking.scrollToTop()
        row = (result.rank or 0) - 1
        if row > 0:
            self.ranking.scrollTo(
                self.ranking_model.index(row, 1), QAbstractItemView.ScrollHint.EnsureVisible
            )
        self.note.setText(f"This is {result.note}.")
        self._show_summary()

    def show_evals(self, evals: EvalView) -> None:
        if evals.key != self.key:
            return
        held = self.sets.setdefault(evals.key, EvalSet())
        if evals.source is not None:  # read from its file now: the set as the file has it
            held.path, held.source, held.dirty = evals.path, evals.source, False
            held.items = [(r.query, r.should_trigger) for r in evals.rows]
            self.tabs.setCurrentIndex(1)
        self.evals = evals
        self.eval_model.set_rows(evals.rows, evals.name)
        self._show_evals()
        self._enable()
        self._replan_if_shown()

    def saved(self, key: str, path: str, text: str) -> None:
        """The skill `key`'s eval set was written to `path` as `text`."""
        held = self.sets.get(key)
        if held is not None:
            held.path, held.source, held.dirty = path, text, False
        if key == self.key:
            self._show_evals()
            self._enable()

    def show_failure(self, message: str) -> None:
        self.summary.setText(f"<span style='color:#c0392b'>{html.escape(message)}</span>")

    # --- showing ----------------------------------------------------------------------------------

    def _ranking_placeholder(self) -> str:
        if not self.key:
            return "Select a skill on the left to see how it ranks for a prompt."
        if not self.prompt.text().strip():
            return "Type a prompt above: every listed skill is ranked against it as you type."
        return "No skill is listed by this runtime under this budget."

    def _evals_placeholder(self) -> str:
        if not self.key:
            return "Select a skill, then open its eval set."
        return (
            "Open an eval set (skill-creator's format) to see which prompts the estimate picks "
            "this skill for."
        )

    def _show_summary(self) -> None:
        r = self.result
        if not self.key:
            self.summary.setText("")
            self.overlaps.setText("")
            return
        if r is None or r.key != self.key:
            self.summary.setText("<i>Ranking…</i>")
            self.overlaps.setText("")
            return
        name = f"<b>{html.escape(r.name or 'This skill')}</b>"
        where = f"{html.escape(r.title)} at {_context(r.context_window)}"
        if r.outcome not in _LISTED_AS:
            why = r.outcome or "not found in the listing"
            text = (
                f"{name} is not listed by {where} ({html.escape(why)}): no model can pick it. "
                "The Prompt Budget view shows why and what would make room."
            )
        elif not r.prompt.strip():
            text = (
                f"{name} is listed by {where} ({_LISTED_AS[r.outcome]}), one of {r.listed:,} "
                f"listed skills of {r.total:,}{_of_them_builtin(r)}."
            )
        else:
            picked = (
                "no skill shares a word with it"
                if not r.picked
                else "the estimate picks it"
                if r.rank == 1
                else f"the estimate picks <b>{html.escape(r.picked)}</b>"
            )
            above = ""
            if r.above:
                shown = ", ".join(html.escape(n) for n in r.above)
                more = (r.rank or 1) - 1 - len(r.above)
                above = f" Ranked above it: {shown}{f' and {more:,} more' if more > 0 else ''}."
            text = (
                f"{name} ranks <b>{r.rank}</b> of {r.listed:,} skills listed by {where}"
                f"{_of_them_builtin(r)}: "
                f"{picked}.{above}"
            )
        self.summary.setText(text)
        if r.overlaps:
            parts = ", ".join(f"{html.escape(n)} ({s:.0%})" for _k, n, s in r.overlaps[:6])
            self.overlaps.setText(
                f"<span style='color:#b36b00'>⚠</span> Entries that say nearly what this one "
                f"says (a model may confuse them): {parts}"
            )
        else:
            self.overlaps.setText("No other listed skill's entry says nearly what this one says.")

    def _show_evals(self) -> None:
        e = self.evals
        held = self.sets.get(self.key)
        if e is None or held is None:
            self.eval_summary.setText(
                "<i>No eval set opened: open one, or add the prompt typed above.</i>"
                if self.key
                else "<i>No skill selected.</i>"
            )
            return
        where = html.escape(held.path) if held.path else "<i>a new eval set, not saved</i>"
        if held.dirty:
            where += " <b>(edited, not saved)</b>"
        pct = lambda v: "n/a" if v is None else f"{v:.0%}"  # noqa: E731
        t1, n1 = e.top1
        t3, _n3 = e.top3
        self.eval_summary.setText(
            f"{where}: {len(e.rows)} prompts under {html.escape(e.title)} · "
            f"agreement <b>{pct(e.accuracy)}</b> · precision {pct(e.precision)} · "
            f"recall {pct(e.recall)} · should-trigger prompts ranking it first {t1}/{n1}, "
            f"in the first three {t3}/{n1} <i>(estimate)</i>"
        )

    def _enable(self) -> None:
        held = self.sets.get(self.key)
        has_prompt = bool(self.key and self.prompt.text().strip())
        self.add_should.setEnabled(has_prompt)
        self.add_should_not.setEnabled(has_prompt)
        self.remove.setEnabled(bool(held and self.eval_table.selectionModel().selectedRows()))
        self.save.setEnabled(bool(held and held.items and (held.dirty or not held.path)))
        self.save_as.setEnabled(bool(held and held.items))

    def _edited(self, held: EvalSet) -> None:
        held.dirty = True
        self.sig_evals_run.emit(held.path, list(held.items))
        self._enable()

    def _add(self, should: bool) -> None:
        query = " ".join(self.prompt.text().split())
        if not self.key or not query:
            return
        held = self.sets.setdefault(self.key, EvalSet())
        held.items.append((query, should))
        self.tabs.setCurrentIndex(1)
        self._edited(held)

    def _remove(self) -> None:
        held = self.sets.get(self.key)
        rows = sorted({i.row() for i in self.eval_table.selectionModel().selectedRows()})
        if held is None or not rows:
            return
        for row in reversed(rows):
            if 0 <= row < len(held.items):
                del held.items[row]
        self._edited(held)

    def _save(self, choose: bool = False) -> None:
        held = self.sets.get(self.key)
        if held is None or not held.items:
            return
        path, expected = held.path, held.source
        if choose or not path:
            name = (self.result.name if self.result is not None else "") or "skill"
            start = path or os.path.join(self.project or os.getcwd(), f"{name}.evals.json")
            path, _filter = QFileDialog.getSaveFileName(
                self, "Save Eval Set", start, "Eval sets (*.json);;All files (*)"
            )
            if not path:
                return
            expected = held.source if path == held.path else None  # (the dialog asked)
            if not self._outside_skill_or_asked(path):
                return
        self.sig_evals_save.emit(path, list(held.items), expected)

    def _outside_skill_or_asked(self, path: str) -> bool:
        """An eval set written into the skill's own folder ships with the skill: only when the
        user says so."""
        folder = os.path.join(os.path.realpath(self.directory), "") if self.directory else ""
        if not folder or not os.path.realpath(path).startswith(folder):
            return True
        answer = QMessageBox.question(
            self,
            "Save Into the Skill's Folder?",
            f"{path} is inside the skill's folder: the eval set would be installed with the "
            "skill wherever it is copied. Save it there?",
        )
        return answer == QMessageBox.StandardButton.Yes

    def _choose_evals(self) -> None:
        if not self.key:
            self.show_failure("Select a skill first: an eval set is run for one skill.")
            return
        held = self.sets.get(self.key)
        if held is not None and held.dirty:
            answer = QMessageBox.question(
                self,
                "Discard the Edited Eval Set?",
                "This skill's eval set was edited and not saved. Open another one instead?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        path, _filter = QFileDialog.getOpenFileName(
            self, "Open Eval Set", self._evals_path, "Eval sets (*.json);;All files (*)"
        )
        if path:
            self._evals_path = path
            self.sig_evals_requested.emit(path)


def _context(tokens: int) -> str:
    if not tokens:
        return "an unknown context window"
    if tokens >= 1_000_000 and tokens % 1_000_000 == 0:
        return f"{tokens // 1_000_000}M tokens"
    return f"{tokens // 1000}k tokens" if tokens % 1000 == 0 else f"{tokens:,} tokens"
