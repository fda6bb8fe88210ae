"""Live runs: the selected skill's eval set put to the runtime's own CLI, N times per prompt.

Nothing runs until the user starts it, and what a run costs is on screen first: the engine plans
it (model calls, input tokens per call from the runtime's own listing, a cost where a price is
known, the CLI it found and its release) and the Start button names the number of calls. The CLI
runs with the user's own configuration and credentials, in a throwaway project holding the skill
set under review (core/live_trigger); Skill Prism reads neither. Results come in as each run
finishes; Cancel stops every running CLI. At the end: each prompt's trigger rate and outcomes
(the intended skill, another skill, none, an error, a timeout), precision and recall (on the
held-out share too when one is kept), the release and the models, and the result can be saved
and compared with an earlier one ("did my edit help?").
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from skillprism.engine.views import LiveComparison, LivePlanView, LiveRow, LiveRunView
from skillprism.gui.icons import state_icon
from skillprism.gui.line_label import LineLabel
from skillprism.gui.progress import StatusProgress
from skillprism.gui.table_model import RowsTableModel
from skillprism.gui.table_view import PlaceholderTableView

HOLDOUT = 0.4  # skill-creator's held-out share
BEFORE_COLUMN = 4  # LiveModel's column of the saved run's rate


def _rate(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.0%}"


class LiveModel(RowsTableModel):
    """A finished run's prompts: the trigger rate, whether it passed, and each outcome's count;
    with an earlier run to compare, its rate beside."""

    COLUMNS = (
        "",
        "Prompt",
        "Should",
        "Rate",
        "Before",
        "Intended",
        "Other",
        "None",
        "Error",
        "Timeout",
        "Used instead",
    )

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: Sequence[LiveRow] = []
        self.before: dict[tuple[str, bool], float | None] = {}

    def set_rows(
        self,
        rows: Sequence[LiveRow],
        before: dict[tuple[str, bool], float | None] | None = None,
    ) -> None:
        self.beginResetModel()
        self._rows, self.before = rows, dict(before or {})
        self.endResetModel()

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = self._rows[index.row()], index.column()
        key = (row.query, row.should_trigger)
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            if row.passed is None:
                return state_icon("warning")
            return state_icon("ok" if row.passed else "error")
        if role == Qt.ItemDataRole.DisplayRole:
            verdict = "no answer" if row.passed is None else "pass" if row.passed else "fail"
            if row.held_out:
                verdict += " (held out)"
            return (
                verdict,
                row.query,
                "trigger" if row.should_trigger else "not",
                _rate(row.rate),
                _rate(self.before.get(key)) if key in self.before else "",
                str(row.intended),
                str(row.other),
                str(row.none),
                str(row.error),
                str(row.timeout),
                row.others,
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 1:
                return row.query
            if row.message and col in (0, 8, 9):
                return row.message
        if role == Qt.ItemDataRole.TextAlignmentRole and 3 <= col <= 9:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


# Result rows the window makes room for when a run's results arrive (the dock is grown, never
# shrunk, up to a share of the window).
RESULT_ROWS_SHOWN = 6


class LiveRunsPage(QWidget):
    """See the module doc. `items()` gives the eval set to run (the trigger view's)."""

    sig_plan = Signal(list, int, str)
    """Plan a run: (items as (query, should trigger), runs per prompt, runtime CLI path)."""
    sig_start = Signal(list, int, str, float, int, float)
    """Start the run planned: the plan's arguments, then timeout (s), concurrency, held out."""
    sig_cancel = Signal()
    sig_save = Signal(str, str)
    """Save the finished run's result (path, its JSON text)."""
    sig_compare = Signal(str)
    """Compare the finished run with the result saved at this path."""

    def __init__(self, items: Callable[[], list[tuple[str, bool]]], parent: Any = None) -> None:
        super().__init__(parent)
        self._items = items
        self.plan: LivePlanView | None = None
        self.result: LiveRunView | None = None
        self.running = False
        self.planned_items: list[tuple[str, bool]] = []

        self.runs = QSpinBox(minimum=1, maximum=20, value=3)
        self.runs.setToolTip("How many times each prompt is run (a model does not answer alike)")
        self.timeout = QSpinBox(minimum=10, maximum=1800, value=120, suffix=" s")
        self.timeout.setToolTip("A run still going after this long counts as a timeout")
        self.concurrency = QSpinBox(minimum=1, maximum=8, value=2)
        self.concurrency.setToolTip("How many runs go at once")
        self.holdout = QCheckBox(f"Hold out {HOLDOUT:.0%}")
        self.holdout.setToolTip(
            "Keep a seeded share of the prompts apart (as skill-creator does) and report "
            "precision and recall on them too"
        )
        self.cli = QLineEdit(placeholderText="the runtime's CLI, as found on PATH")
        self.cli.setClearButtonEnabled(True)
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        for w in (self.runs, self.cli):
            (w.valueChanged if isinstance(w, QSpinBox) else w.editingFinished).connect(
                lambda *_: self.replan()
            )
        settings = QHBoxLayout()
        for label, w in (
            ("Runs per prompt", self.runs),
            ("Timeout", self.timeout),
            ("At once", self.concurrency),
        ):
            settings.addWidget(QLabel(label))
            settings.addWidget(w)
        settings.addWidget(self.holdout)
        settings.addSpacing(12)
        settings.addWidget(QLabel("Runtime CLI"))
        settings.addWidget(self.cli, 1)
        settings.addWidget(self.browse)

        self.plan_label = QLabel()
        self.plan_label.setWordWrap(True)
        self.plan_label.setTextFormat(Qt.TextFormat.RichText)
        self.start = QPushButton("Start")
        self.start.clicked.connect(self._start)
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self._cancel)
        self.save = QPushButton("Save Result…")
        self.save.clicked.connect(self._save)
        self.compare = QPushButton("Compare With Saved…")
        self.compare.clicked.connect(self._compare)
        self.progress = StatusProgress(maximumHeight=16)
        self.progress.setFormat("%v of %m runs")
        # Shown while a run goes, its room kept when hidden: the buttons beside it stay put.
        # Shown and hidden when a run starts and ends, never as runs come in (each would lay
        # out and paint the whole window again); the line under it likewise holds its row only
        # while it has something to say.
        keep = self.progress.sizePolicy()
        keep.setRetainSizeWhenHidden(True)
        self.progress.setSizePolicy(keep)
        self.progress.hide()
        self.last = LineLabel()  # a prompt can be long: it must not widen the window
        self.last.hide()
        buttons = QHBoxLayout()
        for b in (self.start, self.cancel):
            buttons.addWidget(b)
        buttons.addWidget(self.progress, 1)
        buttons.addWidget(self.save)
        buttons.addWidget(self.compare)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.model = LiveModel(self)
        self.table = PlaceholderTableView(self._placeholder)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        metrics = self.fontMetrics()
        widest_texts = ("no answer (held out)", "", "trigger", "Rate", "Before", "Intended")
        widest_texts += ("Other", "None", "Error", "Timeout", "Used instead")
        for col, widest in enumerate(widest_texts):
            if col != 1:
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
                header.resizeSection(col, metrics.horizontalAdvance(widest) + 34)
        self.table.setColumnHidden(BEFORE_COLUMN, True)  # until compared with a saved run

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(settings)
        layout.addWidget(self.plan_label)
        layout.addLayout(buttons)
        layout.addWidget(self.last)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        self._show_plan()
        self._enable()

    # --- asking ------------------------------------------------------------------------------------

    def replan(self) -> None:
        """Plan again for the eval set as it is now (the window calls it when the skill, the
        set or the runtime changes); a running run is left alone."""
        if self.running:
            return
        self.plan = None
        self.planned_items = self._items()
        if self.planned_items:
            self.sig_plan.emit(list(self.planned_items), self.runs.value(), self.cli.text())
        self._show_plan()
        self._enable()

    def _start(self) -> None:
        plan = self.plan
        if plan is None or plan.problem or self.running:
            return
        self.running = True
        self.result = None
        self.model.set_rows(())
        self.summary.clear()
        self.progress.show_progress(0, plan.calls)
        self._say("Starting…")
        self.sig_start.emit(
            list(self.planned_items),
            self.runs.value(),
            self.cli.text(),
            float(self.timeout.value()),
            self.concurrency.value(),
            HOLDOUT if self.holdout.isChecked() else 0.0,
        )
        self._enable()

    def _cancel(self) -> None:
        if self.running:
            self.sig_cancel.emit()
            self.running = False
            self._say("Cancelled: every running CLI was stopped; nothing is kept.")
            self._enable()

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "The Runtime's CLI", self.cli.text())
        if path:
            self.cli.setText(path)
            self.replan()

    def _save(self) -> None:
        if self.result is None:
            return
        name = f"live-{self.result.skill}-{self.result.date[:10]}.json"
        path, _ = QFileDialog.getSaveFileName(self, "Save Live Result", name, "JSON (*.json)")
        if path:
            self.sig_save.emit(path, self.result.saved)

    def _compare(self) -> None:
        if self.result is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Compare With a Saved Result", "", "JSON (*.json)"
        )
        if path:
            self.sig_compare.emit(path)

    # --- the engine's answers ----------------------------------------------------------------------

    def show_plan(self, plan: LivePlanView) -> None:
        if self.running:
            return
        self.plan = plan
        self._show_plan()
        self._enable()

    def show_progress(self, done: int, total: int, what: str) -> None:
        if not self.running:
            return
        self.progress.show_progress(done, total)
        self.last.setText(f"Last: {what}")

    def show_result(self, result: LiveRunView) -> None:
        self.running = False
        self.result = result
        self.model.set_rows(result.rows)
        self.table.setColumnHidden(BEFORE_COLUMN, True)  # until compared with a saved run
        self._say("")
        self._show_summary()
        self._enable()

    def missing_height(self, rows: int = RESULT_ROWS_SHOWN) -> int:
        """How many pixels the results table lacks to show `rows` rows (0 when it has them)."""
        shown = min(rows, self.model.rowCount())
        if shown == 0:
            return 0
        header = self.table.horizontalHeader().height()
        frame = 2 * self.table.frameWidth()
        needed = header + frame + shown * self.table.verticalHeader().defaultSectionSize()
        return max(0, needed - self.table.height())

    def show_comparison(self, comparison: LiveComparison) -> None:
        """The run shown against a saved one: the saved rate beside each prompt's."""
        if self.result is None:
            return
        before = {(q, should): rate for q, should, rate in comparison.before}
        self.model.set_rows(self.result.rows, before)
        self.table.setColumnHidden(BEFORE_COLUMN, False)
        self._say(
            f"Compared with {comparison.path}: {comparison.better} prompt(s) moved the right "
            f"way, {comparison.worse} the wrong way (the Before column)."
        )

    def show_failure(self, message: str) -> None:
        self.running = False
        self._say("")
        self.plan_label.setText(f"<span style='color:#c0392b'>{html.escape(message)}</span>")
        self._enable()

    # --- showing -----------------------------------------------------------------------------------

    def _say(self, text: str) -> None:
        """Put `text` on the line under the buttons; without text the line gives up its row."""
        self.last.setText(text)
        self.last.setVisible(bool(text))

    def _placeholder(self) -> str:
        if self.running:
            return "Running: each prompt's rate fills in when the run ends."
        if not self._items():
            return "Open or write an eval set for this skill (Eval Set tab) to run it live."
        return "Start a run to see how often the model really uses this skill."

    def _show_plan(self) -> None:
        plan = self.plan
        if not self._items():
            self.plan_label.setText(
                "A live run puts each prompt of the skill's eval set to the runtime's own CLI "
                "and reads from its output which skill it used. Open or write an eval set in "
                "the Eval Set tab first."
            )
            return
        if plan is None:
            self.plan_label.setText("Planning…")
            return
        cost = (
            f"about <b>${plan.cost_usd:,.2f}</b> ({html.escape(plan.price_source)})"
            if plan.cost_usd is not None
            else "cost unknown (no price on record for its model): see your provider's rates"
        )
        parts = [
            f"<b>{plan.calls}</b> model call(s) ({plan.prompts} prompt(s) × {plan.runs}) through "
            f"{html.escape(plan.title)}, about <b>{plan.tokens_per_call:,}</b> input tokens each "
            f"(<b>{plan.input_tokens:,}</b> in all: the listing is {plan.listing_tokens:,}); "
            f"{cost}. Your own configuration and credentials are used by the CLI; Skill Prism "
            "reads neither.",
        ]
        if plan.program:
            parts.append(
                f"CLI: <code>{html.escape(plan.program)}</code>; {plan.skills} skill(s) copied "
                "into a throwaway project."
            )
        if plan.unverified:
            parts.append(
                "<span style='color:#b7791f'>Unverified here: "
                f"{html.escape(plan.unverified)}</span>"
            )
        if plan.problem:
            parts.append(
                f"<span style='color:#c0392b'>Cannot run: {html.escape(plan.problem)}</span>"
            )
        self.plan_label.setText("<br>".join(parts))

    def _show_summary(self) -> None:
        r = self.result
        if r is None:
            self.summary.clear()
            return
        pr = "—" if r.precision is None else f"{r.precision:.0%}"
        rc = "—" if r.recall is None else f"{r.recall:.0%}"
        models = ", ".join(r.models) or "not said"
        self.summary.setText(
            f"<b>{html.escape(r.skill)}</b> under {html.escape(r.title)} "
            f"{html.escape(r.release or '')}: precision <b>{pr}</b>, recall <b>{rc}</b>; "
            f"{r.passed} passed, {r.failed} failed, {r.unanswered} without an answer. "
            f"Models: {html.escape(models)}. {html.escape(r.date)}."
        )

    def _enable(self) -> None:
        plan = self.plan
        can = plan is not None and not plan.problem and not self.running
        self.start.setEnabled(can)
        self.start.setText(f"Start {plan.calls} Model Calls" if plan is not None else "Start")
        self.cancel.setEnabled(self.running)
        self.progress.setVisible(self.running)
        self.save.setEnabled(self.result is not None and not self.running)
        self.compare.setEnabled(self.result is not None and not self.running)
        # A run keeps the settings it started with: none of them can be changed while it goes.
        for w in (self.runs, self.timeout, self.concurrency, self.holdout, self.cli, self.browse):
            w.setEnabled(not self.running)
