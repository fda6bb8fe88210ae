"""The workbench window: source tree with precedence, previews, problems, live reload.

A client of the engine process (gui/engine_client.py): every request goes there, every answer is
prepared view data (engine/views.py) that the window only applies. When the engine dies the
window says so, keeps what it shows and offers to restart it; the user's place comes back."""

from __future__ import annotations

import html
import os
import time
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QByteArray, QModelIndex, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QDesktopServices,
    QGuiApplication,
    QPalette,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from skillprism import APP_NAME, __version__
from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.display import display_path, home_relative
from skillprism.core.vocabulary import STATES
from skillprism.engine.rows import RowIndex, RowList
from skillprism.engine.views import (
    PLAIN_SECURITY,
    RESOURCE_SCHEME,
    SKILL_RISK,
    EngineInfo,
    Failure,
    FilterQuery,
    LoadedView,
    OpenSpec,
    Page,
    PreviewPages,
    ProblemRow,
    RiskFill,
    SkillRow,
    TreeView,
)
from skillprism.gui.browser import SafeBrowser
from skillprism.gui.changes import KINDS as CHANGE_KINDS
from skillprism.gui.changes import Changes
from skillprism.gui.editor import ask_editor_command, launch_editor
from skillprism.gui.engine_client import EngineClient
from skillprism.gui.failure import EngineBanner, FailureDetails
from skillprism.gui.icons import STATE_TEXT
from skillprism.gui.place import TreePlace
from skillprism.gui.problems_panel import ProblemsPanel
from skillprism.gui.progress import StatusProgress
from skillprism.gui.skill_tree_view import SkillTreeView
from skillprism.gui.source_view import SourceView
from skillprism.gui.tree_model import KEY_ROLE, KIND_ROLE, PATH_ROLE, SkillTreeModel
from skillprism.gui.window_menus import build_actions

MAX_RECENT = 10


LIVE_KINDS = ("live_plan", "live_run", "save_live", "compare_live")  # gui/live_runs.py's


def _folder_label(path: str) -> str:
    """A folder as the title bar names it: the home folder as ~, odd characters spelled out."""
    return display_path(home_relative(path))


class MainWindow(QMainWindow):
    sig_catalog_applied = Signal(object)
    """A new skill set is shown (a LoadedView: tree, problems and status are up to date)."""
    sig_scan_failed = Signal(str)
    """Building the catalog failed; the message says why."""
    sig_fixes_shown = Signal(object)
    """The quick-fix dialog is open on these fixes (a FixesView)."""
    sig_fixes_done = Signal(object)
    """Fixes or a runtime setting were written or undone (a FixesDone)."""
    sig_toggle_planned = Signal(object)
    """The user is asked to confirm a change of a runtime's settings (a TogglePlan)."""
    sig_skill_shown = Signal(str)
    """The pages of the selected skill (its key) are on screen."""
    sig_report_written = Signal(str, str)
    """An exported report is written (path, "") or failed (path, error)."""

    def __init__(
        self,
        *,
        roots: list[str] | None,
        profile: str,
        project: str,
        dark: bool,
        settings: QSettings,
        choose_profile: bool = False,
    ) -> None:
        """`roots`: the folders to show; None lets the engine choose (the saved ones that still
        exist, else the runtime's own folders here, else the demo set). `choose_profile`: no
        runtime was chosen yet: the one whose own skill folders the set is laid out with is
        shown (the engine looks), else `profile`."""
        super().__init__()
        self.settings = settings
        self.roots: list[str] = list(roots) if roots is not None else []
        self._roots_chosen = roots is not None
        self._choose_profile = choose_profile
        self.profile = profile
        self.project = project
        self.dark = dark
        self.loaded: LoadedView | None = None
        # the shown view's skills by key (over its rows: no second copy)
        self.skills: Mapping[str, SkillRow] = {}
        self.selected_key = ""
        self._last_refresh = ""
        self.setWindowTitle(APP_NAME)
        self.setAcceptDrops(True)
        self.install_into = ""  # "" as laid out; "personal" / "project": as installed there
        self.project_settings = settings.value("project_settings", True, bool)
        self.engine = EngineClient(self)
        # first: the engine's own start-up (an interpreter, its modules) runs while the window
        # builds its widgets; its answers are read only once the event loop runs
        self.engine.start()
        self.watch_mode = ("off", "")  # the engine's file watch: (mode, reason)
        self._filter_timer = QTimer(self, singleShot=True, interval=30)
        self._filter_timer.timeout.connect(self._request_filter)
        self._open_wanted: bool | None = None  # an open asked before the folders were chosen
        self._budget_dirty = True  # recomputed when the budget view is next shown
        self._activation_dirty = True
        self._where_dirty = True
        self._shown_key = ""  # the skill whose pages are on screen
        # What each page (overview, source, files) shows: (skill key, content) as last set.
        self._shown_pages: dict[str, tuple[str, Any]] = {}
        self._preview_turn = 0  # counts previews applied: a newer one stops an older one's pages
        self._open_file = ""  # the file open in the Files tab ("" = the file list)
        self._pending_line = 0  # a line to show once the selected skill's pages arrive
        self._pending_column = 0
        self._pending_files = False
        self._report_path = ""
        # the writes on the user's action (fixes, a runtime's settings) and Edit → Undo
        self.changes = Changes(self, self.engine, dark=dark)
        self.changes.sig_fixes_shown.connect(self.sig_fixes_shown)
        self.changes.sig_done.connect(self.sig_fixes_done)
        self.changes.sig_toggle_planned.connect(self.sig_toggle_planned)
        self.changes.sig_listing_changed.connect(self._listing_changed)
        self.changes.sig_files_changed.connect(self.files_changed)
        self.changes.sig_restore_roots.connect(self.set_roots)
        self.changes.sig_status.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
        self._reference: tuple[Any, Any] | None = None  # the reference window, once opened
        self._details: tuple[Any, Any] | None = None  # the runtime details window, once opened
        self._reference_code = ""  # the code to show once the reference arrives
        self.runtimes: tuple[Any, ...] = ()  # the runtime profiles, as the engine lists them
        self._build_ui()
        build_actions(self)
        self.changes.sig_undo_changed.connect(self._show_undo)
        self.engine.sig_ready.connect(self._on_engine_ready)
        self.engine.sig_answer.connect(self._on_answer)
        self.engine.sig_failed.connect(self._on_request_failed)
        self.engine.sig_busy.connect(self._on_busy)
        self.engine.sig_event.connect(self._on_engine_event)
        self.engine.sig_died.connect(self._on_engine_died)
        self.live = True  # watch the folders for changes (off for one-shot screenshots)
        self.sig_report_written.connect(self._on_report_written)

    # --- layout -----------------------------------------------------------------------------------

    def _build_ui(self) -> None:
        self.tree_model = SkillTreeModel(self)
        self.tree_model.sig_files_wanted.connect(lambda key: self.engine.request("files", key))
        self.tree = SkillTreeView()
        self.tree.setModel(self.tree_model)  # it filters itself, from prepared trees
        self.tree.setUniformRowHeights(True)
        self.place = TreePlace(self.tree, self.tree_model)
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(True)
        self.tree.setColumnWidth(0, 250)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.selectionModel().currentChanged.connect(self._on_current_changed)

        self.filter_edit = QLineEdit(
            placeholderText="Filter skills (all words, name and description)"
        )
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.state_filter = QComboBox()
        self.state_filter.addItem("All states", "")
        for state in STATES:
            self.state_filter.addItem(STATE_TEXT[state], state)
        self.state_filter.addItem("Has problems", "has-problems")
        self.state_filter.setItemData(
            self.state_filter.count() - 1,
            "Skills with a finding at warning or above, whatever their state",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.state_filter.currentIndexChanged.connect(self._on_filter)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(4, 4, 0, 4)
        row = QHBoxLayout()
        row.addWidget(self.filter_edit, 1)
        row.addWidget(self.state_filter)
        lv.addLayout(row)
        lv.addWidget(self.tree, 1)

        self.tabs = QTabWidget()
        self.tabs.currentChanged.connect(lambda _i: self._refresh_hidden_tabs())
        self.overview = SafeBrowser()
        self.overview.anchorClicked.connect(self._on_link)
        self.source = SourceView(dark=self.dark)
        self.files_view = SafeBrowser()
        self.files_view.anchorClicked.connect(self._on_link)
        self.tabs.addTab(self.overview, "Overview")
        self.tabs.addTab(self.source, "Source")
        self.tabs.addTab(self.files_view, "Files")
        from skillprism.gui.activation_view import ActivationView

        self.activation = ActivationView(dark=self.dark)
        self.activation.sig_wanted.connect(self._request_activation)
        self.tabs.addTab(self.activation, "Activate")
        from skillprism.gui.where_view import WhereView

        self.where_view = WhereView(dark=self.dark)
        self.where_view.sig_copied.connect(
            lambda text: self.statusBar().showMessage(f"Copied {text}", 5000)
        )
        self.where_view.sig_install_requested.connect(self.install)
        self.tabs.addTab(self.where_view, "Where")

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([420, 1000])
        self.banner = EngineBanner()
        self.banner.sig_restart.connect(self.restart_engine)
        central = QWidget()
        cv = QVBoxLayout(central)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.setSpacing(0)
        cv.addWidget(self.banner)
        cv.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self.problems_panel = ProblemsPanel(lambda: self.loaded is not None)
        self.problems_panel.sig_show.connect(self._show_problem)
        # the panel's parts, as the window's tests and actions name them
        self.problems = self.problems_panel.table
        self.problems_model = self.problems_panel.model
        self.problems_proxy = self.problems_panel.proxy
        self.problem_filter = self.problems_panel.text
        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problems-dock")
        self.problems_dock.setWidget(self.problems_panel)
        self.source.sig_fix_requested.connect(lambda code: self.quick_fix(self.selected_key, code))
        self.problems_panel.sig_fix.connect(self.quick_fix)
        self.problems_panel.sig_fix_all.connect(self.fix_everywhere)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.problems_dock)

        from skillprism.gui.risks_view import RisksView

        self.risks = RisksView()
        self.risks.sig_evidence_requested.connect(self.show_evidence)
        self.risks_dock = QDockWidget("Risks", self)
        self.risks_dock.setObjectName("risks-dock")
        self.risks_dock.setWidget(self.risks)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.risks_dock)
        self.tabifyDockWidget(self.problems_dock, self.risks_dock)
        from skillprism.gui.budget_view import BudgetView

        self.budget = BudgetView()
        self.budget.sig_select_skill.connect(self.select_skill)
        self.budget.sig_inputs_changed.connect(self._request_budget)
        self.budget.sig_advise.connect(
            lambda: (
                self.loaded is not None and self.changes.advise(self.profile, self.budget.inputs())
            )
        )
        self.budget_dock = QDockWidget("Prompt Budget", self)
        self.budget_dock.setObjectName("budget-dock")
        self.budget_dock.setWidget(self.budget)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.budget_dock)
        self.tabifyDockWidget(self.risks_dock, self.budget_dock)
        self.problems_dock.raise_()
        from skillprism.gui.matrix_view import MatrixView

        self.matrix = MatrixView()
        self.matrix.sig_select.connect(self.select_in_profile)
        saved = self.settings.value("matrix_runtimes", [], list)
        if saved:
            self.matrix.set_chosen(saved)
        self.matrix.sig_compare_requested.connect(self._compare)
        self.matrix_dock = QDockWidget("Compare Runtimes", self)
        self.matrix_dock.setObjectName("matrix-dock")
        self.matrix_dock.setWidget(self.matrix)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.matrix_dock)
        self.tabifyDockWidget(self.budget_dock, self.matrix_dock)
        from skillprism.gui.trigger_view import TriggerPanel

        self.trigger = TriggerPanel()
        self.trigger.sig_prompt_changed.connect(lambda _p: self._request_trigger())
        self.trigger.project = self.project
        self.trigger.sig_evals_requested.connect(self._request_trigger_evals)
        self.trigger.sig_evals_run.connect(
            lambda path, items: self._request_trigger_evals(path, tuple(items))
        )
        self.trigger.sig_evals_save.connect(self._save_evals)
        self._evals_saving = ""  # the skill whose eval set is being saved
        self.trigger.sig_select_skill.connect(self.select_skill)
        self._wire_live_runs()
        self.trigger_dock = QDockWidget("Trigger Estimate", self)
        self.trigger_dock.setObjectName("trigger-dock")
        self.trigger_dock.setWidget(self.trigger)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.trigger_dock)
        self.tabifyDockWidget(self.matrix_dock, self.trigger_dock)
        self.trigger_dock.visibilityChanged.connect(
            lambda shown: shown and self._request_trigger_if_shown()
        )
        self._trigger_dirty = True  # ranked again when the trigger view is next shown
        self.problems_dock.raise_()
        self.budget_dock.visibilityChanged.connect(
            lambda shown: shown and self._request_budget_if_shown()
        )
        self._docks_placed = False  # sized once the window is first shown (or restored)

        sb = self.statusBar()
        self.counts_label = QLabel("No skills loaded")
        self.refresh_label = QLabel("")
        self.watch_label = QLabel("")
        # which settings file of the project applied and what it switched off or held back
        self.settings_label = QLabel("")
        self.settings_label.setTextFormat(Qt.TextFormat.RichText)
        self.progress = QProgressBar(maximumWidth=120, maximumHeight=14, textVisible=False)
        self.progress.setRange(0, 0)
        self.progress.hide()
        # how far the risks of the view shown are scanned (the security pass fills in after
        # the tree and the validation findings)
        self.risk_scan = StatusProgress(maximumWidth=160, maximumHeight=14)
        self.risk_scan.setFormat("Risks %v/%m")
        self.risk_scan.setToolTip(
            "Looking for risks (the static security pass): the tree and the validation findings "
            "are complete; each skill's risk fills in as it is scanned"
        )
        self.risk_scan.hide()
        self.failure = FailureDetails(self)
        sb.addWidget(self.counts_label, 1)
        sb.addPermanentWidget(self.failure.button)
        sb.addPermanentWidget(self.settings_label)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.risk_scan)
        sb.addPermanentWidget(self.watch_label)
        sb.addPermanentWidget(self.refresh_label)

    # --- loading --------------------------------------------------------------------------------------

    def spec(self) -> OpenSpec:
        """What the window shows, as the engine's workspace needs it."""
        return OpenSpec(
            self.project, tuple(self.roots), self.profile, self.install_into, self.project_settings
        )

    def set_project_settings(self, apply: bool) -> None:
        """Apply the reviewed project's own settings file (the default), or not (reviewer's
        mode, as `--no-project-settings`); remembered for the next start."""
        if apply == self.project_settings:
            return
        self.project_settings = apply
        self.settings.setValue("project_settings", apply)
        self._open()

    def reload(self) -> None:
        """Rescan from scratch (F5): nothing cached is trusted."""
        self._request_open(cold=True)

    def _open(self) -> None:
        """Show the current folders and runtime (a new set, or another runtime of the same)."""
        self._request_open(cold=False)

    def _request_open(self, *, cold: bool) -> None:
        if not self._roots_chosen:
            # the engine chooses the folders first (saved, the runtime's own, or the demo set)
            if self._open_wanted is None:
                self.engine.request(
                    "start_roots",
                    tuple(self.settings.value("roots", [], list)),
                    self.profile,
                    self.project,
                )
            self._open_wanted = cold or bool(self._open_wanted)
            return
        self.engine.request("open", self.spec(), cold, self._filter_query(), self.live)

    def _on_engine_ready(self, info: EngineInfo) -> None:
        self.banner.hide_message()
        self.failure.log_path = info.log_path
        if info.runtimes != self.runtimes:
            self.runtimes = info.runtimes
            self._fill_runtimes()
            self.matrix.set_runtimes(info.runtimes)

    def _fill_runtimes(self) -> None:
        """The runtime choice, grouped by how well each runtime is known; the level shows in
        the name and tooltip."""
        from skillprism.gui.runtimes import LEVEL_BADGES, LEVEL_GROUPS

        combo = self.profile_combo
        combo.blockSignals(True)
        try:
            combo.clear()
            group = ""
            for entry in self.runtimes:
                if entry.level != group:
                    group = entry.level
                    combo.addItem(f"— {LEVEL_GROUPS.get(group, group)} —")
                    header = combo.model().item(combo.count() - 1)  # type: ignore[attr-defined]
                    header.setEnabled(False)
                label = f"{entry.title} · {LEVEL_BADGES.get(entry.level, entry.level)}"
                if entry.broken:
                    label = f"{entry.name} (broken profile)"
                combo.addItem(label, entry.name)
                combo.setItemData(
                    combo.count() - 1, entry.broken or entry.provenance, Qt.ItemDataRole.ToolTipRole
                )
            if combo.findData(self.profile) < 0:
                combo.addItem(os.path.basename(self.profile), self.profile)
            combo.setCurrentIndex(combo.findData(self.profile))
        finally:
            combo.blockSignals(False)

    def _on_engine_event(self, name: str, payload: Any) -> None:
        if name == "watch":
            self.watch_mode = tuple(payload)
            self._update_watch_label()
        elif name == "risks":
            self._apply_risks(payload)

    def _apply_risks(self, fill: RiskFill) -> None:
        """Risks scanned since the view was shown: the skills' rows show theirs, the tables
        add their findings, the status bar says how far the scan is."""
        if self.loaded is None or fill.generation != self.loaded.generation:
            return  # of a view the window no longer shows
        self.tree_model.set_risks(fill.risks)
        # (the tree's rows are most often the view's own: then they hold the risks already)
        if isinstance(self.skills, RowIndex):
            for key, risk in fill.risks:
                at = self.skills.position(key)
                if at is not None:
                    self.loaded.skills.set_field(at, SKILL_RISK, risk)
        scanning = (fill.done, fill.total)
        self.problems_panel.add_rows(fill.problems)
        self.risks.add_rows(fill.problems, scanning)
        self._show_risk_scan(scanning)

    def _on_engine_died(self, why: str) -> None:
        """The engine ended: say so at once, keep everything shown, offer a restart."""
        self.banner.show_message(why)
        self.watch_mode = ("off", "the engine stopped")
        self._update_watch_label()
        self.statusBar().showMessage(why, 15000)

    def restart_engine(self) -> None:
        """A new engine, then the same folders, runtime, filter and selection as before."""
        self.banner.hide_message()
        self.engine.restart()
        self._open()

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        if busy and self.loaded is None:
            self.counts_label.setText("Scanning…")

    def _on_request_failed(self, kind: str, failure: Failure) -> None:
        message = failure.message
        if failure.unexpected:
            self.failure.show_failure(failure)
        if kind == "layout_runtime":  # only a suggestion: show the set anyway
            self._choose_profile = False
            self._open_after_start()
            return
        if kind in ("open", "refresh", "start_roots"):
            self.counts_label.setText(f"Scan failed: {message}")
            self.sig_scan_failed.emit(message)
        elif kind == "report":
            self.sig_report_written.emit(self._report_path, message)
        elif kind == "matrix":
            self.matrix.show_failure(message)
        elif kind == "tier1":
            self.budget.show_failure(message)
        elif kind in CHANGE_KINDS:
            self.changes.failed(kind, message)
        elif kind in LIVE_KINDS:
            self.trigger.live.show_failure(message)
        elif kind in ("trigger", "trigger_evals", "save_evals"):
            self.trigger.show_failure(message)
        elif kind == "where":
            self.where_view.show_pending(message)
        else:
            self.statusBar().showMessage(message, 8000)

    def _on_answer(self, kind: str, result: Any) -> None:
        if kind in ("open", "refresh", "risks"):
            self._apply_loaded(result)
        elif kind == "filter":
            self._apply_filter(result)
        elif kind == "tier1":
            self.budget.show_result(result)
        elif kind == "trigger":
            self.trigger.show_result(result)
        elif kind == "trigger_evals":
            self.trigger.show_evals(result)
        elif kind in CHANGE_KINDS:
            self.changes.answered(kind, result)
        elif kind == "live_plan":
            self.trigger.live.show_plan(result)
        elif kind == "live_run":
            self.trigger.live.show_result(result)
            # (once the result's own relayout is done: a resize asked for before it is undone)
            QTimer.singleShot(0, self._room_for_live_results)
        elif kind == "save_live":
            self.statusBar().showMessage(f"Live result saved: {result}", 6000)
        elif kind == "compare_live":
            self.trigger.live.show_comparison(result)
        elif kind == "save_evals":
            self.trigger.saved(self._evals_saving, *result)
            self.statusBar().showMessage(f"Eval set saved: {result[0]}", 6000)
        elif kind == "matrix":
            self.matrix.show_matrix(result)
        elif kind == "report":
            self.sig_report_written.emit(result, "")
        elif kind == "preview":
            self._apply_preview(result)
        elif kind == "files":
            self.tree_model.add_files(result)
        elif kind == "where":
            if result.key == self.selected_key:
                self.where_view.show_report(result)
        elif kind == "activate":
            self.activation.show_page(result)
        elif kind == "link":
            if result.key == self.selected_key:
                self.tabs.setCurrentWidget(self.files_view)
                self.files_view.setHtml(result.html)
                self._shown_pages.pop("files", None)  # no longer what a preview set
        elif kind == "runtime_details":
            self._show_runtime_page(result)
        elif kind == "reference":
            self._show_reference_page(result)
        elif kind == "start_roots":
            self._on_start_roots(result)
        elif kind == "units":
            self._on_units(result)
        elif kind == "layout_runtime":
            self._on_layout_runtime(result)

    def _on_start_roots(self, roots: list[str]) -> None:
        self.roots, self._roots_chosen = list(roots), True
        if self._choose_profile and self.roots:
            self.engine.request("layout_runtime", tuple(self.roots))  # then the open
            return
        self._open_after_start()

    def _on_layout_runtime(self, answer: tuple[str, str]) -> None:
        name, why = answer
        self._choose_profile = False
        if name and name != self.profile:
            self.profile = name
            index = self.profile_combo.findData(name)
            self.profile_combo.blockSignals(True)
            if index >= 0:
                self.profile_combo.setCurrentIndex(index)
            else:
                self.profile_combo.addItem(name, name)
                self.profile_combo.setCurrentIndex(self.profile_combo.count() - 1)
            self.profile_combo.blockSignals(False)
            self.statusBar().showMessage(
                f"Shown as {self.profile_combo.currentText().split(' · ')[0]} sees it: {why} "
                "(pick another runtime in the toolbar)",
                15000,
            )
        self._open_after_start()

    def _open_after_start(self) -> None:
        cold, self._open_wanted = bool(self._open_wanted), None
        self._request_open(cold=cold)

    def _compare(self, specs: list[str]) -> None:
        """Compare these runtimes (remembered for the next start) with the budget view's
        settings."""
        self.settings.setValue("matrix_runtimes", list(specs))
        self.settings.setValue("matrix_compared", True)
        self.engine.request("matrix", tuple(specs), self.budget.inputs())

    def _request_budget(self, inputs: BudgetInputs) -> None:
        self._budget_dirty = False
        self.engine.request("tier1", self.profile, inputs)
        self._trigger_dirty = True  # the listing it ranks follows the budget's inputs
        self._request_trigger_if_shown()

    def _request_trigger(self) -> None:
        """Rank the listed skills against the trigger view's prompt, for the selected skill."""
        self._trigger_dirty = False
        if self.loaded is None or not self.selected_key:
            return
        self.engine.request(
            "trigger",
            self.profile,
            self.budget.inputs(),
            self.trigger.prompt.text(),
            self.selected_key,
        )

    def _wire_live_runs(self) -> None:
        """The trigger view's live runs (gui/live_runs.py) go through the engine: plan, run
        (progress as runs finish), cancel, save and compare."""
        live = self.trigger.live

        def ask(kind: str, items: list, *rest: Any) -> None:  # type: ignore[type-arg]
            rows = tuple((str(q), bool(s)) for q, s in items)
            self.engine.request(
                kind, self.profile, self.budget.inputs(), self.selected_key, rows, *rest
            )

        live.sig_plan.connect(lambda items, runs, cli: ask("live_plan", items, runs, cli))
        live.sig_start.connect(
            lambda items, runs, cli, timeout, at_once, held: ask(
                "live_run", items, runs, cli, timeout, at_once, held
            )
        )
        live.sig_cancel.connect(lambda: self.engine.cancel("live_run"))
        live.sig_save.connect(lambda path, text: self.engine.request("save_live", path, text))
        live.sig_compare.connect(
            lambda path: self.engine.request(
                "compare_live", path, live.result.saved if live.result else ""
            )
        )
        self.engine.sig_progress.connect(
            lambda kind, done, total, what: (
                kind == "live_run" and live.show_progress(done, total, what)
            )
        )

    def _request_trigger_if_shown(self) -> None:
        if self._trigger_dirty and (self.trigger.isVisible() or not self.isVisible()):
            self._request_trigger()

    def _request_trigger_evals(
        self, path: str, edited: tuple[tuple[str, bool], ...] | None = None
    ) -> None:
        """Run the eval set in the file `path` (or the set as edited) for the selected skill."""
        if self.loaded is not None and self.selected_key:
            self.engine.request(
                "trigger_evals", self.profile, self.budget.inputs(), self.selected_key, path, edited
            )

    def _save_evals(self, path: str, items: list[tuple[str, bool]], expected: str | None) -> None:
        """Write an eval set where the user chose (the user's action: Save or Save As)."""
        self._evals_saving = self.selected_key
        self.engine.request("save_evals", path, tuple(items), expected)

    def _request_budget_if_shown(self) -> None:
        """The budget listing is computed for a budget view that can be seen (or for a window
        not shown at all); otherwise when it is next shown."""
        if self.loaded is None or not self._budget_dirty:
            return
        if self.budget.isVisible() or not self.isVisible():
            self._request_budget(self.budget.inputs())

    def files_changed(self, paths: list[str]) -> None:
        """These files changed (the engine's own watch says so by itself; a caller that knows
        better, or a window that does not watch, can say it)."""
        if self.loaded is not None:
            self.engine.request("refresh", tuple(paths))

    def _apply_loaded(self, loaded: LoadedView) -> None:
        if loaded.spec != self.spec():
            return  # the user has moved on (another runtime or folder) since this was asked
        first = self.loaded is None
        place = self.place.capture()
        key = self.selected_key or (
            self.settings.value("selected", "", str) if first else ""
        )  # the last selection of the previous session
        key = loaded.moved.get(key, key)  # a renamed folder keeps its selection
        self.loaded = loaded
        self.skills = RowIndex(loaded.skills)
        self.tree_model.set_tree(loaded.tree, loaded.roots, loaded.skills)
        self.problems_panel.set_rows(loaded.problems)
        scanning = (0, len(loaded.skills)) if loaded.risks_pending else None
        self.risks.set_rows(
            RowList.from_plain(ProblemRow, [t for t in loaded.problems.plain if t[PLAIN_SECURITY]]),
            scanning,
        )
        self._show_risk_scan(scanning)
        self.budget.set_loaded(True)
        # the matrix of the last session comes back with the set, when it had been made
        self.matrix.set_catalog(
            loaded, wanted=first and self.settings.value("matrix_compared", False, bool)
        )
        self._budget_dirty = True
        self._request_budget_if_shown()
        self._trigger_dirty = True
        if first:
            self.place.open_first_roots()
        else:
            self.place.restore(place, loaded.moved)
        self._select_key(key, keep_line=True, center=first)
        self._update_status(loaded)
        self._update_title()
        self._update_watch_label()
        self.sig_catalog_applied.emit(loaded)

    def _show_risk_scan(self, scanning: tuple[int, int] | None) -> None:
        """The risk scan's progress in the status bar (hidden when no scan is under way)."""
        if scanning is None:
            self.risk_scan.hide()
            return
        done, total = scanning
        self.risk_scan.show_progress(done, total)
        self.risk_scan.show()

    def _update_watch_label(self) -> None:
        if not self.live:  # a one-shot view (screenshot): watching is off on purpose
            self.watch_label.setText("")
            return
        mode, reason = self.watch_mode
        if mode == "native":
            self.watch_label.setText("Live")
            self.watch_label.setToolTip("Watching the skill folders for changes")
        elif mode == "starting":
            self.watch_label.setText("Starting watch…")
            self.watch_label.setToolTip("Setting up the file watch")
        elif mode == "polling":
            self.watch_label.setText("Live (polling)")
            self.watch_label.setToolTip(reason or "Watching by polling")
        else:
            self.watch_label.setText("Not watching")
            self.watch_label.setToolTip(reason)

    def _update_title(self) -> None:
        shown = ", ".join(_folder_label(r) for r in self.roots[:3]) or "the runtime's own folders"
        if len(self.roots) > 3:
            shown += f" and {len(self.roots) - 3} more"
        title = self.loaded.title if self.loaded is not None else self.profile
        view = {"personal": " (as installed: personal)", "project": " (as installed: project)"}
        self.setWindowTitle(f"{shown}{view.get(self.install_into, '')} — {title} — {APP_NAME}")

    def _update_status(self, result: LoadedView) -> None:
        s = result.summary
        st = s["status"]
        sev = s["severity"]
        # loaded: what the runtime loads and lists (ok, warning, error), as the budget shows it
        loaded = st["ok"] + st["warning"] + st["error"]
        with_errors = f" ({st['error']} with errors)" if st["error"] else ""
        self.counts_label.setText(
            f"{s['skills']} skills · {loaded} loaded{with_errors} · {sev['error']} errors · "
            f"{sev['warning']} warnings · {st['shadowed']} shadowed · {st['skipped']} skipped · "
            f"{st['not-discovered']} not discovered — {result.title}"
        )
        self._last_refresh = time.strftime("%H:%M:%S")
        self.refresh_label.setText(
            f"Refreshed {self._last_refresh} ({result.seconds * 1000:.0f} ms)"
        )
        if result.warnings:
            self.statusBar().showMessage("; ".join(result.warnings), 10000)
        self._show_settings(result)

    def _show_settings(self, result: LoadedView) -> None:
        """What the project's own settings did to the review, never silently: marked when they
        switched a check off or held findings back."""
        label = self.settings_label
        self.problems_panel.relaxed = result.settings_relax and self.project_settings
        if not result.settings:
            label.setText("")
            label.setToolTip("")
            return
        if not self.project_settings:
            text = "Reviewer's mode: the folder's settings are not applied"
        elif result.settings_relax:
            text = "<b style='color:#b7791f'>Project settings relax this review</b>"
        else:
            text = "Project settings applied"
        label.setText(text)
        label.setToolTip("\n".join(result.settings))

    # --- selection and preview -----------------------------------------------------------------------

    def _select_key(self, key: str, keep_line: bool = False, center: bool = False) -> None:
        """Select the skill `key` in the tree (scrolled into sight: to the middle with `center`,
        as for the selection restored at start, so its neighbours and its root show too)."""
        if not key:
            self._show_nothing()
            return
        src = self.tree_model.index_for_key(key)
        if not src.isValid():
            self._show_nothing()
            return
        idx = src
        if idx.isValid():
            self.tree.setCurrentIndex(idx)
            self.tree.scrollTo(
                idx,
                QAbstractItemView.ScrollHint.PositionAtCenter
                if center
                else QAbstractItemView.ScrollHint.EnsureVisible,
            )
        self._show_key(key)

    def select_skill(self, key: str, line: int = 0) -> None:
        self._pending_line = line  # applied with the skill's prepared pages
        self._select_key(key)

    def show_evidence(self, key: str, path: str, line: int, column: int) -> None:
        """Show a finding where it is: the skill file in Source at its line and column, any
        other file of the skill in Files."""
        skill = self._skill(key)
        if skill is None:
            return
        if path and path != skill.path:
            if self.selected_key != key:
                self._select_key(key)
            self._open_file = path if os.path.isfile(path) else ""
            self._pending_files = True
            self._show_key(key)  # the newest request: the skill's pages with that file open
            return
        self._pending_column = column
        self.select_skill(key, max(line, 1))

    def select_in_profile(self, key: str, profile: str) -> None:
        """Show skill `key` under `profile` (switching the runtime when it differs)."""
        self.selected_key = key
        if profile and profile != self.profile:
            index = self.profile_combo.findData(profile)
            if index >= 0:
                self.profile_combo.setCurrentIndex(index)  # reloads; the selection follows by key
                return
        self.select_skill(key)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        kind = current.data(KIND_ROLE)
        if kind == "skill":
            key = current.data(KEY_ROLE)
            if key != self.selected_key:
                self._show_key(key)
        elif kind == "file":
            parent_key = current.parent().data(KEY_ROLE)
            if parent_key != self.selected_key:
                self._show_key(parent_key)
            self._show_file(current.data(PATH_ROLE))
            self.tabs.setCurrentWidget(self.files_view)

    def _skill(self, key: str) -> SkillRow | None:
        return self.skills.get(key)

    def _show_nothing(self) -> None:
        self.selected_key = ""
        self._shown_key = ""
        self._shown_pages = {}
        self._preview_turn += 1
        self._open_file = ""
        text = (
            "Select a skill on the left to see its frontmatter, rendered instructions, source "
            "and files."
            if self.skills
            else "No skills here yet. Use File → Open Folder (Ctrl+O) or drop a folder on the window."
        )
        self.overview.setHtml(f"<p style='color:gray; margin:24px'>{html.escape(text)}</p>")
        self.source.set_source("", [])
        self.files_view.setHtml("")
        self.activation.show_skill("", "")
        self.trigger.set_skill("")

    def _show_key(self, key: str) -> None:
        """Show skill `key`: its pages are prepared in the background and applied when ready
        (the same skill again, after a save, keeps the scroll positions and the open file)."""
        skill = self._skill(key)
        if skill is None:
            self._show_nothing()
            return
        if key != self.selected_key:
            self._open_file = ""
            self.settings.setValue("selected", key)  # comes back on the next start
        self.selected_key = key
        self.risks.set_selected(key)
        self.problems_panel.set_selected(key)
        self.trigger.set_skill(key, skill.directory)
        self._trigger_dirty = True
        self._request_trigger_if_shown()
        self.engine.request("preview", key, self._open_file, self.dark)

    def _apply_preview(self, preview: PreviewPages) -> None:
        if preview.key != self.selected_key:
            return
        skill = self._skill(preview.key)
        if skill is None:
            return
        same = preview.key == self._shown_key
        self.overview.set_allowed_root(skill.directory)
        self.files_view.set_allowed_root(skill.directory)
        # Pages that did not change are left as they are (a save of another skill, a rescan):
        # laying out a long page again is the costliest thing the window does. The page in
        # view (or about to be) is set now, each other one in a turn of the event loop of its
        # own, so that the window never does all three at once.
        first = (
            self.source
            if self._pending_line
            else self.files_view
            if self._pending_files
            else self.tabs.currentWidget()
        )
        pages = [
            page
            for page in (
                ("overview", self.overview, preview.overview),
                ("source", self.source, (preview.source, preview.diagnostics)),
                ("files", self.files_view, preview.file_page or preview.files),
            )
            if self._shown_pages.get(page[0]) != (preview.key, page[2])
        ]
        pages.sort(key=lambda page: page[1] is not first)
        self._shown_key = preview.key
        if not same:
            self._where_dirty = True
            self._request_where_if_shown()
        self._preview_turn += 1
        self._set_pages(self._preview_turn, preview, pages)

    def _set_pages(
        self, turn: int, preview: PreviewPages, pages: list[tuple[str, QWidget, Any]]
    ) -> None:
        """Set the first of `pages`, and the rest in later turns of the event loop (unless a
        newer preview came, or another skill was chosen, in the meantime); then finish showing
        `preview`."""
        if turn != self._preview_turn or preview.key != self.selected_key:
            return  # a newer preview sets what still differs
        if pages:
            name, widget, content = pages[0]
            # a save or a rescan of the skill this page shows: the reader stays where they were
            same = self._shown_pages.get(name, ("",))[0] == preview.key
            at = widget.verticalScrollBar().value()  # type: ignore[attr-defined]
            if name == "source":
                self.source.set_source(*content)
            else:
                widget.setHtml(content)  # type: ignore[attr-defined]
            self._shown_pages[name] = (preview.key, content)
            if same:
                widget.verticalScrollBar().setValue(at)  # type: ignore[attr-defined]
            if len(pages) > 1:
                QTimer.singleShot(0, self, lambda: self._set_pages(turn, preview, pages[1:]))
                return
        self._preview_shown(preview)

    def _preview_shown(self, preview: PreviewPages) -> None:
        self._activation_dirty = True
        self._refresh_activation_if_shown()
        if preview.stale:
            self.statusBar().showMessage(
                f"{os.path.basename(preview.key)} changed on disk since it was checked: updating…",
                4000,
            )
        if self._pending_line:
            self.tabs.setCurrentWidget(self.source)
            self.source.go_to_line(self._pending_line)
            if self._pending_column > 1:  # the evidence itself, not only its line
                cursor = self.source.textCursor()
                cursor.movePosition(
                    QTextCursor.MoveOperation.Right,
                    QTextCursor.MoveMode.MoveAnchor,
                    min(self._pending_column - 1, cursor.block().length() - 1),
                )
                cursor.movePosition(
                    QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor
                )
                self.source.setTextCursor(cursor)
            self._pending_line = self._pending_column = 0
        elif self._pending_files:
            self.tabs.setCurrentWidget(self.files_view)
            self._pending_files = False
        self.sig_skill_shown.emit(preview.key)

    def _refresh_hidden_tabs(self) -> None:
        self._refresh_activation_if_shown()
        self._request_where_if_shown()

    def _request_where_if_shown(self) -> None:
        """The Where tab asks for its report only when it is the tab shown."""
        view = getattr(self, "where_view", None)
        if view is None or self.tabs.currentWidget() is not view or not self._where_dirty:
            return
        skill = self._skill(self.selected_key)
        if skill is None:
            view.show_pending()
            return
        self._where_dirty = False
        view.show_pending("Looking up where each runtime reads skills…")
        self.engine.request("where", skill.key, self.dark)

    def _refresh_activation_if_shown(self) -> None:
        """The Activate tab recomputes only when it is the tab shown."""
        activation = getattr(self, "activation", None)
        if (
            activation is not None
            and self.tabs.currentWidget() is activation
            and self._activation_dirty
        ):
            self._activation_dirty = False
            skill = self._skill(self.selected_key)
            if skill is None:
                self.activation.show_skill("", "")
            else:
                self.activation.show_skill(skill.key, skill.directory)

    def _request_activation(self, args: str, invoker: str, first: bool) -> None:
        if self.activation.key:
            self.engine.request("activate", self.activation.key, args, invoker, first, self.dark)

    def _show_file_list(self, skill: SkillRow) -> None:
        self._open_file = ""
        self._show_key(skill.key)

    def _show_file(self, path: str) -> None:
        if not path or self._skill(self.selected_key) is None:
            return
        self._open_file = path
        self._show_key(self.selected_key)

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)  # only ever on a click
            return
        skill = self._skill(self.selected_key)
        if skill is None:
            return
        if url.scheme() == RESOURCE_SCHEME:
            rel = url.path().lstrip("/")
            self.tabs.setCurrentWidget(self.files_view)
            self._show_file(os.path.join(skill.directory, rel) if rel else "")
            if not rel:
                self._show_file_list(skill)
            return
        if url.hasFragment() and not url.path():
            self.sender().scrollToAnchor(url.fragment())  # type: ignore[union-attr]
            return
        if url.isRelative() or url.isLocalFile():
            # followed as the runtime's tier 3 would (the engine answers with the page)
            self.engine.request("link", skill.key, url.toString(), self.dark)

    def _show_problem(self, row: ProblemRow) -> None:
        """Show the finding where it is: in Source when it is in the skill file, in Files when
        it is in another file of the skill."""
        if row.key:
            d = row.diagnostic
            self.show_evidence(row.key, row.file, d.line, d.column)

    def _filter_query(self) -> FilterQuery:
        state = self.state_filter.currentData()
        return FilterQuery(self.filter_edit.text(), frozenset({state}) if state else frozenset())

    def _on_filter(self, *_args: Any) -> None:
        """A keystroke or a state choice: the engine answers from its index a moment later (the
        GUI thread only applies the tree it prepared)."""
        self._filter_timer.start()

    def _request_filter(self) -> None:
        if self.loaded is not None:
            self.engine.request("filter", self._filter_query())

    def _apply_filter(self, tree: TreeView) -> None:
        if tree.query != self._filter_query() or self.loaded is None:
            return  # typed on since: the newer query is on its way
        key = self.selected_key
        keys = tree.keep
        self.tree_model.set_tree(tree, self.loaded.roots, self.loaded.skills)
        self.place.open_first_roots()
        # The selection stays when it still matches; the view keeps it in sight.
        if key and (keys is None or key in keys):
            src = self.tree_model.index_for_key(key)
            idx = src
            if idx.isValid():
                self.tree.setCurrentIndex(idx)
                self.tree.scrollTo(idx)

    def _on_profile_changed(self, _index: int) -> None:
        self.profile = self.profile_combo.currentData()
        self.settings.setValue("profile", self.profile)
        self._open()
        if self._details is not None and self._details[0].isVisible():
            self.show_runtime_details()  # it follows the runtime chosen

    # --- roots, files, editor ----------------------------------------------------------------------------

    def set_roots(self, roots: list[str]) -> None:
        self.roots = [os.path.abspath(r) for r in roots]
        self._roots_chosen = True
        self.settings.setValue("roots", self.roots)
        for r in self.roots:
            self._remember_recent(r)
        self._open()

    def set_install_into(self, mode: str) -> None:
        """Review the folders as laid out ("") or as installed into the runtime's "personal" or
        "project" skills folder (core/installed.py), as the CLI's --install-into does."""
        if mode == self.install_into:
            return
        self.set_install_mode(mode)
        self._open()

    def set_install_mode(self, mode: str) -> None:
        self.install_into = mode
        self.install_actions[mode].setChecked(True)
        self.settings.setValue("install_into", mode)  # comes back on the next start

    def open_paths(self, paths: list[str], install_into: str | None = None) -> None:
        """Show these folders (`gui PATH`, File → Open Folder): as `install_into` says, or, when
        not said, a single folder that is not itself a skills root but holds installable units
        (a repository of skills or plugins) is shown as installed into the project (the engine
        looks first; View → As Laid Out shows the folder as it is)."""
        self.roots = [os.path.abspath(p) for p in paths]
        self._roots_chosen = True
        self.settings.setValue("roots", self.roots)
        for r in self.roots:
            self._remember_recent(r)
        if install_into is not None or len(self.roots) != 1 or not os.path.isdir(self.roots[0]):
            self.set_install_mode(install_into or "")
            self._open()
            return
        self.set_install_mode("")
        self.engine.request("units", self.roots[0])

    def _on_units(self, count: int) -> None:
        if count and len(self.roots) == 1:
            self.statusBar().showMessage(
                f"{count} installable unit(s) found in {_folder_label(self.roots[0])}: shown as "
                "installed into this project's skills folder (View → As Laid Out for the folder "
                "as it is)",
                15000,
            )
            self.set_install_mode("project")
        self._open()

    def open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Open Folder", self.roots[0] if self.roots else ""
        )
        if folder:
            self.open_paths([folder])

    def open_skill(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open Skill", "", "Skill files (SKILL.md skill.md);;All files (*)"
        )
        if path:
            self.set_roots([path])

    def add_root(self, folder: str = "") -> None:
        folder = folder or QFileDialog.getExistingDirectory(self, "Add Root Folder")
        if folder and os.path.abspath(folder) not in self.roots:
            self.set_roots([*self.roots, folder])

    def remove_root(self, *, confirm: bool = True) -> None:
        """Remove the root folder of the selection (only that one), after asking; Edit > Undo
        (or the status bar's message) brings it back."""
        idx = self.tree.currentIndex()
        while idx.isValid() and idx.data(KIND_ROLE) != "root":
            idx = idx.parent()
        if not idx.isValid():
            self.statusBar().showMessage("Select a root folder (or a skill in it) to remove", 4000)
            return
        path = idx.data(PATH_ROLE)
        gone = [r for r in self.roots if path == r or path.startswith(r + os.sep)]
        if not gone:
            self.statusBar().showMessage(
                "That root comes from the profile, not from your folders", 5000
            )
            return
        # the folder given that holds this root (the deepest, when folders nest)
        folder = max(gone, key=len)
        if confirm and (
            QMessageBox.question(
                self,
                "Remove Root Folder",
                f"Stop showing {_folder_label(folder)}?\n\nNothing on disk is changed; "
                "Edit → Undo brings it back.",
            )
            != QMessageBox.StandardButton.Yes
        ):
            return
        self.changes.push_undo(
            "roots", list(self.roots), f"Remove {os.path.basename(folder) or folder}"
        )
        self.set_roots([r for r in self.roots if r != folder])
        self.statusBar().showMessage(
            f"Removed {_folder_label(folder)} from the set — Edit → Undo (Ctrl+Z) brings it back",
            10000,
        )

    def _show_undo(self, label: str) -> None:
        self.act_undo.setEnabled(bool(label))
        self.act_undo.setText(f"&Undo {label}" if label else "&Undo")

    def undo(self) -> None:
        """Take back the newest change: a folder's removal from the set, fixes written, a
        runtime's setting written (gui/changes.py)."""
        self.changes.undo()

    def quick_fix(self, key: str = "", code: str = "") -> None:
        """Ask for the fixes of skill `key` (the selected one by default); `code` is checked
        first in the dialog."""
        if self.loaded is not None:
            self.changes.quick_fix(key or self.selected_key, code)

    def fix_everywhere(self, code: str) -> None:
        """Ask for the fixes of `code` in every skill shown."""
        if self.loaded is not None:
            self.changes.fix_everywhere(code)

    def toggle_skill(self, enable: bool) -> None:
        """Turn the selected skill off (or on) through the runtime's own setting, after the user
        has seen the change."""
        if self.loaded is not None:
            self.changes.toggle_skill(self.selected_key, enable)

    def install(self, key: str = "") -> None:
        """Install skill `key` (the selected one by default) where the runtimes the user picks
        find it (gui/install_dialog.py)."""
        skill = self._skill(key or self.selected_key)
        if skill is not None:
            self.changes.install(skill.directory, self.runtimes, [self.profile], self.project)

    def install_from_folder(self) -> None:
        """Install every skill of a folder the user picks (a skill, a collection, a repository
        of plugins) where the runtimes they pick find it."""
        folder = QFileDialog.getExistingDirectory(
            self, "Install From (a skill folder or a repository)", self.project
        )
        if folder:
            self.changes.install(folder, self.runtimes, [self.profile], self.project)

    def _listing_changed(self) -> None:
        """A runtime's settings changed: the listing it makes is computed again."""
        self._budget_dirty = self._trigger_dirty = True
        self._request_budget_if_shown()
        self._request_trigger_if_shown()

    def set_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Project Folder", self.project)
        if folder:
            self.project = self.trigger.project = folder
            self.settings.setValue("project", folder)
            self.set_roots([])

    def _remember_recent(self, path: str) -> None:
        recent = [p for p in self.settings.value("recent", [], list) if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.value("recent", [], list)
        for path in recent:
            a = self.recent_menu.addAction(path)
            a.triggered.connect(lambda _c=False, p=path: self.set_roots([p]))
        self.recent_menu.setEnabled(bool(recent))

    def _current_path(self) -> str:
        idx = self.tree.currentIndex()
        return idx.data(PATH_ROLE) if idx.isValid() else ""

    def copy_path(self) -> None:
        path = self._current_path()
        if path:
            QGuiApplication.clipboard().setText(path)
            self.statusBar().showMessage(f"Copied {path}", 3000)

    def reveal(self) -> None:
        path = self._current_path()
        if path:
            folder = path if os.path.isdir(path) else os.path.dirname(path)
            # a folder, never a file to run
            if not QDesktopServices.openUrl(QUrl.fromLocalFile(folder)):
                self.statusBar().showMessage(
                    f"No file manager could open {_folder_label(folder)} (Copy Path copies it)",
                    8000,
                )

    def open_in_editor(self) -> None:
        """Open SKILL.md (at the line shown in Source) or a text file in the user's editor."""
        skill = self._skill(self.selected_key) if self.selected_key else None
        path = self._current_path() or (skill.path if skill is not None else "")
        line = 0
        if skill is not None and path == skill.path and self.tabs.currentWidget() is self.source:
            line = self.source.textCursor().blockNumber() + 1
        launch_editor(self, self.settings.value("editor", "", str), path, line)

    def export_report(self, path: str = "") -> None:
        """Write the review report for the runtime shown (format from the extension) through the
        Workspace, as `skillprism report` does; the status bar says when it is written or why
        not."""
        if self.loaded is None:
            return
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self,
                "Export Report",
                "skillprism-report.html",
                "HTML report (*.html);;Markdown for a pull request (*.md)",
            )
        if not path:
            return
        if not path.lower().endswith((".html", ".htm", ".md")):
            path += ".html"
        self._report_path = path
        self.statusBar().showMessage(f"Writing {path}…")
        self.engine.request("report", path, (self.profile,), self.budget.inputs())

    def _on_report_written(self, path: str, error: str) -> None:
        if error:
            QMessageBox.warning(self, APP_NAME, f"Could not write the report {path}:\n{error}")
        else:
            self.statusBar().showMessage(f"Report written to {path}", 8000)

    def set_editor_command(self) -> None:
        ask_editor_command(self, self.settings)

    def show_diagnostics_reference(self, code: str = "") -> None:
        """The codes reference in its own window (the skill's Overview stays as it is), at
        `code`; F1 with a finding selected in Problems or Risks opens it at that finding's code."""
        if not code:
            for view, proxy, model in (
                (self.problems, self.problems_proxy, self.problems_model),
                (self.risks.table, self.risks.proxy, self.risks.model),
            ):
                index = view.currentIndex()
                if view.hasFocus() and index.isValid():
                    code = model.diagnostic(proxy.mapToSource(index).row()).code
                    break
        self._reference_code = code
        if self._reference is None:
            self.engine.request("reference", self.dark)  # shown when the page arrives
            return
        self._show_reference_at(code)

    def _show_reference_page(self, page: Page) -> None:
        if self._reference is None:
            dialog, browser = self._browser_window()
            dialog.setWindowTitle(f"{page.title} — {APP_NAME}")
            browser.setHtml(page.html)
            browser.anchorClicked.connect(
                lambda url: browser.scrollToAnchor(url.fragment()) if url.hasFragment() else None
            )
            self._reference = (dialog, browser)
        self._show_reference_at(self._reference_code)

    def _show_reference_at(self, code: str) -> None:
        assert self._reference is not None
        dialog, browser = self._reference
        dialog.show()
        dialog.raise_()
        if code:
            browser.scrollToAnchor(code.lower())

    def _browser_window(self) -> tuple[Any, SafeBrowser]:
        """A window of its own (the reference, runtime details) holding one page browser."""
        from PySide6.QtWidgets import QDialog

        dialog = QDialog(self)
        dialog.resize(900, 700)
        browser = SafeBrowser()
        layout = QVBoxLayout(dialog)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(browser)
        return dialog, browser

    def show_runtime_details(self) -> None:
        """The chosen runtime's profile sheet in its own window: release, level, how each part
        was established, the folders it reads, its known differences and every cited source."""
        self.engine.request("runtime_details", self.profile, self.dark)

    def _show_runtime_page(self, page: Page) -> None:
        if self._details is None:
            self._details = self._browser_window()
        dialog, browser = self._details
        dialog.setWindowTitle(f"{page.title} — Runtime Details — {APP_NAME}")
        browser.setHtml(page.html)
        dialog.show()
        dialog.raise_()

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>One Agent Skills set, seen the way each agent runtime sees it.</p>"
            "<p>Licensed under the Apache License 2.0. Built with Qt and PySide6 (LGPL-3.0), "
            "PyYAML (MIT), Python-Markdown (BSD), Pygments (BSD), watchdog (Apache-2.0) and "
            "toktok-rs (MIT); see THIRD_PARTY_NOTICES.md.</p>",
        )

    # --- drag and drop, settings ------------------------------------------------------------------------

    def dragEnterEvent(self, event: Any) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: Any) -> None:
        folders = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        folders = [f for f in folders if os.path.exists(f)]
        if folders:
            self.set_roots(
                [
                    *self.roots,
                    *[os.path.abspath(f) for f in folders if os.path.abspath(f) not in self.roots],
                ]
            )
            event.acceptProposedAction()

    def _room_for_live_results(self) -> None:
        """A live run's results arrived: grow the Trigger Estimate dock (never shrink it, and to
        at most 60 % of the window) so that a few of their rows show without a resize."""
        missing = self.trigger.live.missing_height()
        if missing <= 0 or not self.trigger_dock.isVisible():
            return
        # (a row more than the table lacks: the panel's layout may hand some of it elsewhere;
        # the size asked for is the dock area's, which holds the tabified docks' tab bar too)
        missing += self.trigger.live.table.verticalHeader().defaultSectionSize()
        tabs = self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        bar = max((t.height() for t in tabs if t.isVisible()), default=0)
        height = min(self.trigger_dock.height() + missing, self.height() * 60 // 100)
        if height > self.trigger_dock.height():
            self.resizeDocks([self.trigger_dock], [height + bar], Qt.Orientation.Vertical)

    def fit_docks(self) -> None:
        """The bottom docks get about a third of the height (the budget table and listing need
        room); the previews keep the rest."""
        self._docks_placed = True
        self.resizeDocks([self.problems_dock], [self.height() * 36 // 100], Qt.Orientation.Vertical)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._docks_placed:  # docks only take a size once laid out: after this event
            QTimer.singleShot(0, self.fit_docks)

    def restore_state(self) -> None:
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("window_state")
        if isinstance(state, QByteArray) and self.restoreState(state):
            self._docks_placed = True  # the user's own dock sizes
        splitter = self.settings.value("splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)

    def closeEvent(self, event: Any) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.settings.setValue("splitter", self.splitter.saveState())
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop the engine (its watcher and workers with it; idempotent)."""
        self.engine.shutdown()

    def is_dark(self) -> bool:
        return self.palette().color(QPalette.ColorRole.Window).lightness() < 128
