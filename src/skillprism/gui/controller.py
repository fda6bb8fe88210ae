"""The window's one mechanism for background work: a worker thread that owns one `Workspace`.

Everything the window asks of the pipeline is a request to this worker: opening a set of folders,
a refresh after files changed, switching the runtime, a filter query, the tier-1 listing of the
budget view, the matrix, a report to export. The worker answers with prepared results (catalogs,
key sets, computed listings, matrices) that the GUI thread only applies. Each kind of request has
its own generation: a newer request of a kind overtakes an older one, whose result is dropped.

Because the window goes through the same `Workspace` as the CLI, both read the project's settings
file, build findings through one policy and give the same results (docs/architecture.md).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from skillprism.app.filter_index import FilterIndex, FilterQuery
from skillprism.app.release import Graveyard
from skillprism.app.workspace import BudgetInputs, Update, Workspace, WorkspaceError
from skillprism.core.catalog import Catalog


@dataclass(frozen=True)
class OpenSpec:
    """What the window shows: the project, the folders (empty: the runtime's own roots), the
    runtime profile and how the folders are reviewed ("" as laid out, or installed into the
    "personal" or "project" skills folder)."""

    project: str
    paths: tuple[str, ...]
    profile: str
    install_into: str = ""

    def workspace_key(self) -> tuple[str, tuple[str, ...], str]:
        return (self.project, self.paths, self.install_into)


@dataclass(frozen=True)
class Loaded:
    """A catalog ready to show, with what changed and its filter index."""

    catalog: Catalog
    update: Update | None
    index: FilterIndex
    seconds: float
    spec: OpenSpec
    warnings: tuple[str, ...] = ()
    changed: tuple[str, ...] = field(default=())
    problems: list[Any] = field(default_factory=list)  # the Problems table's rows, prepared
    tree: Any = None  # the tree's nodes under the worker's current filter (tree_model.build_tree)
    risks: list[Any] = field(default_factory=list)  # the Risks view's rows, prepared
    summary: dict[str, Any] = field(default_factory=dict)  # catalog.summary(), for the status bar


@dataclass(frozen=True)
class Preview:
    """The pages of one skill, rendered: Overview, Source (text and findings), Files (the list,
    or the page of the file open there)."""

    key: str
    overview: str
    source: str
    diagnostics: list[Any]
    files: str
    file_page: str = ""


# The longest the worker waits for the window to apply an answer before it goes on.
APPLY_WAIT_S = 1.0
# After an answer the window lays out and repaints in several passes of its event loop. The worker
# holds still until the GUI thread has gone one tick of SETTLE_TICK_MS using less than
# SETTLE_CPU_S of processor time: then what applying set off has run.
SETTLE_TICK_MS = 2
SETTLE_CPU_S = 0.001
# How long the worker releases a replaced workspace at a time, between requests.
DIG_SLICE_S = 0.004
# How long a thread that wants the interpreter lock waits before it asks for it (see Controller).
SWITCH_INTERVAL_S = 0.00005


@dataclass(frozen=True)
class _Request:
    kind: str
    generation: int
    args: tuple[Any, ...]


class _Worker(QObject):
    sig_answer = Signal(str, int, object)
    """A request is answered: (kind, generation, result)."""
    sig_error = Signal(str, int, str)
    """A request failed: (kind, generation, message for the user)."""

    def __init__(self) -> None:
        super().__init__()
        self.workspace: Workspace | None = None
        self.key: tuple[str, tuple[str, ...], str] | None = None
        self.index = FilterIndex(None)
        self.query = FilterQuery()  # the filter the window shows: every tree is built with it
        # A workspace that is replaced (a reload, other folders) is let go a little at a time,
        # between requests: freed at once it would hold the interpreter lock for tens of ms.
        self.graveyard = Graveyard()
        self._digging = False  # one release chain at a time
        self.catalog: Catalog | None = None
        self.applied = threading.Event()  # set by the GUI thread once an answer is applied

    # --- requests --------------------------------------------------------------------------------

    @Slot(object)
    def run(self, request: _Request) -> None:
        handler = getattr(self, f"_do_{request.kind}")
        # A large catalog is millions of objects that live until the next one. The cyclic
        # collector's passes over them hold the interpreter lock for a tenth of a second and more,
        # and the window waits (bench/bench_stall.py shows those waits). So it does not run while
        # a request is worked on, and what the answer holds is frozen (skipped by later passes);
        # all of it is still freed by reference counting when replaced. What is built here is
        # kept free of reference cycles (the tree's nodes hold their parents weakly), so the cost,
        # garbage in cycles that is never collected, stays small.
        gc.disable()
        try:
            result = handler(*request.args)
        except WorkspaceError as err:
            self.sig_error.emit(request.kind, request.generation, str(err))
            return
        except Exception as err:  # a bug must not kill the worker thread; say what happened
            self.sig_error.emit(
                request.kind, request.generation, f"Skill Prism failed: {type(err).__name__}: {err}"
            )
            return
        finally:
            gc.freeze()
            gc.enable()
        self.applied.clear()
        self.sig_answer.emit(request.kind, request.generation, result)
        # Hold still while the window applies the answer: both threads need the interpreter
        # lock, and a worker busy with the next request would take it every few milliseconds,
        # so applying would take twice as long. Bounded, in case the answer is never applied,
        # and not at all once the window is closing.
        thread = QThread.currentThread()
        deadline = time.monotonic() + APPLY_WAIT_S
        while not self.applied.wait(0.02):
            if thread.isInterruptionRequested() or time.monotonic() > deadline:
                break
        if self.graveyard and not self._digging:
            self._digging = True
            QTimer.singleShot(0, self._dig)

    @Slot()
    def _dig(self) -> None:
        """Release a few milliseconds' worth of what was replaced; go on after pending events."""
        done = self.graveyard.dig(DIG_SLICE_S)
        if done or QThread.currentThread().isInterruptionRequested():
            self._digging = False
        else:
            QTimer.singleShot(1, self._dig)

    def _workspace(self, spec: OpenSpec, cold: bool) -> tuple[Workspace, bool]:
        """The workspace for `spec` (a new one when the folders change); True when new."""
        if cold or self.workspace is None or self.key != spec.workspace_key():
            if self.workspace is not None:
                self.graveyard.bury(self.workspace)
            workspace = Workspace(
                spec.project,
                spec.paths,
                (spec.profile,),
                workers=min(os.cpu_count() or 1, 4),
                start_method="forkserver",  # this process has threads: never fork it
                install_into=spec.install_into,
            )
            self.workspace, self.key = workspace, spec.workspace_key()
            return workspace, True
        self.workspace.choose((spec.profile,))
        return self.workspace, False

    def _loaded(
        self, spec: OpenSpec, start: float, update: Update | None, changed: tuple[str, ...] = ()
    ) -> Loaded:
        from skillprism.gui.problems_model import prepare_problem_rows
        from skillprism.gui.risks_view import security_rows
        from skillprism.gui.tree_model import build_tree

        assert self.workspace is not None
        catalog = self.workspace.catalog(spec.profile)
        base, self.catalog = self.catalog, catalog
        self.index = FilterIndex(catalog)

        problems = prepare_problem_rows(catalog)
        return Loaded(
            catalog,
            update,
            self.index,
            time.perf_counter() - start,
            spec,
            tuple(self.workspace.path_problems()),
            changed,
            problems,
            build_tree(catalog, self.index.matches(self.query), base),
            security_rows(problems),
            catalog.summary(),
        )

    def _do_open(self, spec: OpenSpec, cold: bool) -> Loaded:
        start = time.perf_counter()
        workspace, new = self._workspace(spec, cold)
        update = None if new else workspace.refresh()
        return self._loaded(spec, start, update)

    def _do_refresh(self, spec: OpenSpec, changed: tuple[str, ...]) -> Loaded:
        start = time.perf_counter()
        workspace, new = self._workspace(spec, False)
        update = None if new else workspace.refresh(changed)
        return self._loaded(spec, start, update, changed)

    def _do_filter(self, query: FilterQuery) -> tuple[FilterQuery, Any]:
        from skillprism.gui.tree_model import build_tree

        self.query = query
        return query, build_tree(self.catalog, self.index.matches(query), self.catalog)

    def _do_tier1(self, spec: str, inputs: BudgetInputs) -> tuple[Any, list[str]]:
        workspace = self._require()
        settings, unread = workspace.budget_settings(spec, inputs)
        result = workspace.tier1_model(spec).compute(settings)
        _ = result.entries  # outcomes are built lazily: here, not on the GUI thread
        return result, unread

    def _do_matrix(self, specs: tuple[str, ...], inputs: BudgetInputs) -> Any:
        """The matrix, with its skill labels and each column's texts (matrix_view)."""
        from skillprism.gui.matrix_view import cell_texts, matrix_labels

        matrix = self._require().matrix(specs, inputs)
        return matrix, matrix_labels(matrix), cell_texts(matrix)

    def _do_report(self, path: str, specs: tuple[str, ...], inputs: BudgetInputs) -> str:
        from skillprism.app.workspace import write_atomically

        workspace = self._require()
        text = workspace.report(workspace.report_format(path), specs, inputs)
        write_atomically(path, text)
        return path

    def _do_where(self, key: str, skill_dir: str) -> tuple[str, Any]:
        """Where every runtime would find the skill (all profiles, not only the one shown)."""
        from skillprism.core.placement import PlacementError
        from skillprism.core.profiles import available_profiles

        try:
            return key, self._require().where(skill_dir, available_profiles())
        except PlacementError as err:
            return key, str(err)

    def _do_preview(self, skill: Any, catalog: Catalog, dark: bool, open_file: str) -> Preview:
        from skillprism.gui.preview import file_html, files_html, overview_html, source_text

        text, diagnostics = source_text(skill)
        return Preview(
            skill.key,
            overview_html(skill, catalog, dark=dark),
            text,
            diagnostics,
            files_html(skill, dark=dark),
            file_html(skill, open_file, dark=dark) if open_file else "",
        )

    def _require(self) -> Workspace:
        if self.workspace is None:
            raise WorkspaceError("nothing is open yet")
        return self.workspace


def _start_fork_server() -> None:
    try:
        import multiprocessing
        from multiprocessing import forkserver

        if "forkserver" in multiprocessing.get_all_start_methods():
            multiprocessing.get_context("forkserver").set_forkserver_preload(
                ["skillprism.core.resolve", "skillprism.core.workers"]
            )
            forkserver.ensure_running()
    except Exception:  # an optimisation only: the pool starts the server itself if needed
        pass


class Controller(QObject):
    """The window's door to the pipeline (see the module doc). `request(kind, *args)` returns the
    generation; answers arrive as `sig_answer(kind, result)` on the GUI thread, only for the
    newest request of each kind."""

    sig_answer = Signal(str, object)
    """The newest request of a kind is answered: (kind, result)."""
    sig_failed = Signal(str, str)
    """The newest request of a kind failed: (kind, message)."""
    sig_busy = Signal(bool)
    """Work started (True) or nothing is pending any more (False)."""
    _sig_request = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._generations: dict[str, int] = {}
        self._pending: dict[str, int] = {}
        # While the worker runs Python, each call from Qt into Python on the GUI thread (a
        # model's data(), a paint handler) waits for the interpreter lock up to the switch
        # interval, and painting one view makes hundreds of such calls: the default 5 ms would
        # stretch a repaint to a fraction of a second. The interval only matters while another
        # thread waits, so a short one costs the worker little.
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._thread = QThread()
        self._thread.setObjectName("skillprism-controller")
        self._worker = _Worker()
        self._worker.moveToThread(self._thread)
        self._sig_request.connect(self._worker.run)
        self._worker.sig_answer.connect(self._on_answer)
        self._worker.sig_error.connect(self._on_error)
        # Ticks after each answer until the window has settled (see SETTLE_CPU_S).
        self._settle_timer = QTimer(self)
        self._settle_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._settle_timer.setInterval(SETTLE_TICK_MS)
        self._settle_timer.timeout.connect(self._check_settled)
        self._settle_cpu = 0.0
        self._settle_deadline = 0.0
        self._thread.start()
        # The first scan evaluates through a fork server; start it now, beside the window.
        threading.Thread(
            target=_start_fork_server, daemon=True, name="skillprism-forkserver"
        ).start()

    def request(self, kind: str, *args: Any) -> int:
        generation = self._generations.get(kind, 0) + 1
        self._generations[kind] = generation
        if not self._pending:
            self.sig_busy.emit(True)
        self._pending[kind] = generation
        self._sig_request.emit(_Request(kind, generation, args))
        return generation

    def pending(self, kind: str) -> bool:
        return kind in self._pending

    def _settle(self, kind: str, generation: int) -> bool:
        """Whether this answer is the newest of its kind (and then it is no longer pending)."""
        if generation != self._generations.get(kind):
            return False
        self._pending.pop(kind, None)
        if not self._pending:
            self.sig_busy.emit(False)
        return True

    def _on_answer(self, kind: str, generation: int, result: object) -> None:
        try:
            if self._settle(kind, generation):
                self.sig_answer.emit(kind, result)
        finally:
            # Not yet: applying posts layout and repaint work that runs in later passes of the
            # event loop, through the models' Python methods. Were the worker to start on the next
            # request now, each of those calls would wait for the interpreter lock.
            self._settle_cpu = time.thread_time()
            self._settle_deadline = time.monotonic() + APPLY_WAIT_S
            self._settle_timer.start()

    def _check_settled(self) -> None:
        """Let the worker go on once a tick passed with the GUI thread (nearly) idle."""
        cpu = time.thread_time()
        if cpu - self._settle_cpu < SETTLE_CPU_S or time.monotonic() > self._settle_deadline:
            self._settle_timer.stop()
            self._worker.applied.set()
        self._settle_cpu = cpu

    def _on_error(self, kind: str, generation: int, message: str) -> None:
        if self._settle(kind, generation):
            self.sig_failed.emit(kind, message)

    def shutdown(self) -> None:
        self._settle_timer.stop()
        self._thread.requestInterruption()
        self._worker.applied.set()
        self._thread.quit()
        self._thread.wait(60_000)  # a running QThread must never be destroyed
