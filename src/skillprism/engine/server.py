"""The engine process: one `Workspace`, its file watcher and its worker pool, serving the window.

The window starts it (`skillprism engine --fd N`, engine/launch.py) and talks to it over a
socket pair (engine/protocol.py, docs/engine-protocol.md). A reader thread takes requests off the
socket; the main thread works through them one at a time and answers each with prepared view
data (engine/views.py). A newer request of a kind supersedes an older one: an older one still
waiting is dropped, and one already running stops at its next checkpoint (core/cancel.py). Files
changed on disk (the watcher) are refreshed between requests, and the result is sent without
being asked. Every unexpected error is answered as a failure with its traceback, which also goes
to the log under the user's state folder. When the window goes (its end of the socket closes, or
SIGTERM), the engine stops its watcher and workers and exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import itertools
import logging
import logging.handlers
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from skillprism import __version__
from skillprism.app.workspace import (
    RiskProgress,
    Update,
    Workspace,
    WorkspaceError,
    write_atomically,
)
from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.cancel import Cancelled, cancellable, stop_wanted
from skillprism.core.catalog import Catalog, SkillEntry, risk_of
from skillprism.core.fixes import Fix
from skillprism.core.layout import installable_units, layout_runtime
from skillprism.core.vocabulary import LEVEL_ORDER
from skillprism.engine import pages, prepare
from skillprism.engine.filter_index import FilterIndex
from skillprism.engine.protocol import (
    ANSWER,
    BYE,
    CANCEL,
    EVENT,
    FAILED,
    HELLO,
    PART,
    PROGRESS,
    PROTOCOL_VERSION,
    REQUEST,
    chunks,
    decode,
    encode,
    read_frames,
)
from skillprism.engine.rows import RowList
from skillprism.engine.views import (
    AdviceView,
    EngineInfo,
    EvalView,
    Failure,
    FileList,
    FilterQuery,
    FixesDone,
    FixesView,
    InstallPlanView,
    LiveComparison,
    LivePlanView,
    LiveRow,
    LiveRunView,
    LoadedView,
    MatrixData,
    OpenSpec,
    Page,
    PreviewPages,
    ProblemRow,
    RiskFill,
    RootRow,
    RuntimeEntry,
    SkillRow,
    Tier1View,
    TogglePlan,
    TreeView,
    TriggerView,
    WherePage,
)
from skillprism.paths import user_state_dir

log = logging.getLogger("skillprism.engine")

FILE_LIMIT = 500  # files of one skill the tree lists
# Kinds whose handler gets the job and answers it later from a thread of its own (a live trigger
# run: minutes of waiting on subprocesses that must not hold up the other kinds). They are
# superseded and cancelled as every kind is; their progress goes as `progress` messages.
BACKGROUND = frozenset({"live_run"})
_LATER = object()  # a handler's return: the answer comes later (or none is needed)
_VERIFY = ((), True)  # the arguments of the refresh that sets up the watch (`_verify_due`)
FILL_INTERVAL = 0.25  # seconds between two fills of risks sent while they are scanned
# skills in one fill at most: the window applies a fill in one go, so a scan that runs fast
# (the cache knows the skills) comes in several small fills rather than one that blocks it
FILL_MAX_SKILLS = 300
ENGINE_NICENESS = 10  # how much lower the engine's scheduling priority is than the window's
# Items per frame of a streamed answer: each frame is decoded by the window in one go, so it is
# kept to a few milliseconds of unpickling.
STREAMED: dict[str, dict[str, int]] = {
    "open": {"skills": 1500, "problems": 500},
    "refresh": {"skills": 1500, "problems": 500},
    "tier1": {"entries": 2000},
    "trigger": {"rows": 2000},
    "fixes": {"rows": 200},
    "matrix": {"rows": 400, "labels": 4000},
}


def log_path() -> str:
    return str(user_state_dir() / "engine.log")


def _setup_logging() -> None:
    """Warnings and errors of every module go to the log file (bounded, rotated)."""
    path = log_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=1_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.StreamHandler(sys.stderr)  # no state folder: stderr is the log
    handler.setFormatter(
        logging.Formatter("%(asctime)s engine[%(process)d] %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger("skillprism")
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def runtime_entries() -> tuple[RuntimeEntry, ...]:
    """Every shipped profile, grouped by level (LEVEL_ORDER), by title within a level."""
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile

    out = []
    for name in available_profiles():
        try:
            p = load_profile(name)
        except ProfileError as err:
            out.append(RuntimeEntry(name, name, "specified", "", "", str(err)))
            continue
        out.append(RuntimeEntry(name, p.title, p.runtime.level, p.runtime.release, p.provenance))
    rank = {level: i for i, level in enumerate(LEVEL_ORDER)}
    return tuple(sorted(out, key=lambda e: (rank.get(e.level, len(rank)), e.title.lower())))


@dataclass(frozen=True)
class _Job:
    id: int
    kind: str
    args: tuple[Any, ...]


class _Shown:
    """What the engine last sent the window about its catalog: the rows the window holds, the
    tree it shows and the index its filter is answered from."""

    def __init__(self) -> None:
        self.catalog: Catalog | None = None
        self.by_key: dict[str, SkillEntry] = {}
        self.roots: tuple[RootRow, ...] = ()
        self.skills: list[SkillRow] = []
        self.members: list[list[int]] = []
        self.index = FilterIndex(None)
        self.tree: TreeView | None = None
        self.shape: tuple[tuple[str, tuple[str, ...]], ...] = ()
        self.path_problems: tuple[Any, ...] = ()


class Engine:
    """Serves one window over `sock` until it goes (see the module doc). Without a socket it
    keeps what it would send in `sent`, and `handle` answers one request in-process (tests)."""

    def __init__(self, sock: socket.socket | None = None, *, workers: int | None = None) -> None:
        self.sock = sock
        self.sent: list[tuple[Any, ...]] = []
        self.workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
        self._send_lock = threading.Lock()
        self._cv = threading.Condition()
        self._queue: deque[_Job] = deque()
        self._newest: dict[str, int] = {}
        self._cancelled: set[int] = set()
        self._closing = False
        self._changes: set[str] = set()  # paths changed on disk and not refreshed yet
        self._own_ids = itertools.count(-1, -1)  # ids of answers sent unasked
        self._serials = itertools.count(1)
        self.workspace: Workspace | None = None
        self.spec: OpenSpec | None = None
        self.query = FilterQuery()
        self.generation = 0
        self.shown = _Shown()
        self.live = True
        self._watcher: Any = None
        self._watched: tuple[str, ...] = ()
        self._entries: tuple[RuntimeEntry, ...] | None = None
        # The security pass is on and the shown catalog was built without it: the risks are
        # scanned between requests (a job the engine gives itself) until they are all in.
        self._risks_due = False
        # The file watch is to be set up, then everything read before it was rescanned: an open
        # answers first, and a change made before the watch saw it is found by that rescan.
        self._verify_due = False
        # skills whose risks were sent for this generation, and the risk sent
        self._filled: dict[str, str] = {}
        self._risks_scanned = False  # every risk is in; the view with them is being sent
        self._offered: dict[int, Fix] = {}  # the quick fixes offered last, by their row's id
        self._install_plans: dict[int, Any] = {}  # the install planned last (core InstallPlan)
        self._plan_ids = itertools.count(1)

    # --- the loop ----------------------------------------------------------------------------------

    def handle(self, kind: str, *args: Any) -> Any:
        """Answer one request here and now (never superseded): its payload, or the exception."""
        handler: Callable[..., Any] = getattr(self, f"_do_{kind}")
        if kind in BACKGROUND:  # answered later, into `sent`, from its own thread
            job = _Job(next(self._serials), kind, args)
            self._newest[kind] = job.id  # the newest of its kind, as a request read would be
            return handler(job)
        return handler(*args)

    def serve(self) -> None:
        """Answer requests until the window goes."""
        assert self.sock is not None
        self._send((HELLO, self.info()))
        from skillprism.core.evaluator import warm_forkserver

        warm_forkserver()  # its start-up runs while the window loads, before the first open
        reader = threading.Thread(target=self._read, name="skillprism-engine-reader", daemon=True)
        reader.start()
        try:
            while True:
                job = self._next()
                if job is None:
                    break
                self._run(job)
        finally:
            self._stop_watch()
            with contextlib.suppress(OSError):
                self.sock.close()

    def stop(self) -> None:
        """Stop the file watch (an engine used in-process, `handle`)."""
        self._stop_watch()

    def info(self) -> EngineInfo:
        return EngineInfo(PROTOCOL_VERSION, os.getpid(), __version__, log_path(), self.entries())

    def entries(self) -> tuple[RuntimeEntry, ...]:
        if self._entries is None:
            self._entries = runtime_entries()
        return self._entries

    def close(self) -> None:
        """Stop after the work running now (its checkpoints see it at once)."""
        with self._cv:
            self._closing = True
            self._cv.notify_all()

    def _read(self) -> None:
        assert self.sock is not None
        try:
            for frame in read_frames(self.sock):
                message = decode(frame)
                tag = message[0]
                if tag == REQUEST:
                    _tag, job_id, kind, args = message
                    with self._cv:
                        self._newest[kind] = job_id
                        self._queue.append(_Job(job_id, kind, tuple(args)))
                        self._cv.notify_all()
                elif tag == CANCEL:
                    with self._cv:
                        self._cancelled.add(message[1])
                elif tag == BYE:
                    break
        except Exception:
            log.exception("the window's messages could not be read")
        finally:
            self.close()

    def _superseded(self, job: _Job) -> bool:
        if job.id < 0 and job.kind == "risks" and not self._risks_scanned:
            return bool(self._queue or self._changes)  # gives way to anything asked or changed
        if job.id < 0 and job.args == _VERIFY:
            return bool(self._queue)  # gives way to anything asked; runs again after it
        if job.id < 0:  # a refresh of changed files: an open makes it pointless
            return any(j.kind == "open" for j in self._queue)
        return job.id in self._cancelled or self._newest.get(job.kind) != job.id

    def _stop_wanted(self, job: _Job) -> bool:
        return self._closing or self._superseded(job)

    def _next(self) -> _Job | None:
        with self._cv:
            while not self._closing:
                while self._queue:
                    job = self._queue.popleft()
                    if not self._superseded(job):
                        return job
                if self._verify_due and self.workspace is not None:
                    return _Job(next(self._own_ids), "refresh", _VERIFY)
                if self._changes and self.workspace is not None:
                    return _Job(next(self._own_ids), "refresh", ())
                if self._risks_due and self.workspace is not None:
                    return _Job(next(self._own_ids), "risks", ())
                self._cv.wait()
        return None

    def _run(self, job: _Job) -> None:
        handler: Callable[..., Any] | None = getattr(self, f"_do_{job.kind}", None)
        if handler is None:
            self._fail(job, Failure(f"unknown request {job.kind!r}"))
            return
        try:
            with cancellable(lambda: self._stop_wanted(job)):
                payload = handler(*job.args) if job.kind not in BACKGROUND else handler(job)
                if payload is not _LATER:
                    self._answer(job, payload)
        except Cancelled:
            log.debug("%s %d superseded", job.kind, job.id)
        except WorkspaceError as err:
            self._fail(job, Failure(str(err)))
        except Exception as err:
            details = traceback.format_exc()
            log.error("%s failed:\n%s", job.kind, details)
            self._fail(
                job,
                Failure(f"Skill Prism failed: {type(err).__name__}: {err}", details, log_path()),
            )

    # --- sending -----------------------------------------------------------------------------------

    def _send(self, message: tuple[Any, ...]) -> None:
        if self.sock is None:
            self.sent.append(message)
            return
        data = encode(message)
        try:
            with self._send_lock:
                self.sock.sendall(data)
        except OSError:
            # the window is gone (its end closed): nothing more to send; the work running now
            # stops at its next checkpoint and the loop ends
            self.close()

    def _answer(self, job: _Job, payload: Any) -> None:
        """Send `payload`, its long lists in parts (STREAMED), then the answer itself."""
        streamed = STREAMED.get(job.kind, {})
        if streamed and dataclasses.is_dataclass(payload) and not isinstance(payload, type):
            emptied: dict[str, Any] = {}
            for name, size in streamed.items():
                items = getattr(payload, name)
                # a RowList goes as its plain tuples, and comes back one (engine_client)
                rows = items.plain if isinstance(items, RowList) else items
                for part in chunks(rows, size):
                    _check(job, self)
                    self._send((PART, job.id, name, part))
                emptied[name] = RowList(items.kind) if isinstance(items, RowList) else []
            payload = dataclasses.replace(payload, **emptied)
        _check(job, self)
        self._send((ANSWER, job.id, job.kind, payload))

    def _fail(self, job: _Job, failure: Failure) -> None:
        self._send((FAILED, job.id, job.kind, failure))

    def event(self, name: str, payload: Any) -> None:
        self._send((EVENT, name, payload))

    # --- the workspace and its watch ---------------------------------------------------------------

    def _workspace(self, spec: OpenSpec, cold: bool) -> tuple[Workspace, bool]:
        """The workspace for `spec` (a new one when the folders change); True when new."""
        if (
            cold
            or self.workspace is None
            or self.spec is None
            or (self.spec.workspace_key() != spec.workspace_key())
        ):
            self.workspace = None  # the old one goes now, while the window waits for nothing
            workspace = Workspace(
                spec.project,
                spec.paths,
                (spec.profile,),
                workers=self.workers,
                start_method="forkserver",  # this process has threads: never fork it
                install_into=spec.install_into,
                project_settings=spec.project_settings,
            )
            self.workspace, self.spec = workspace, spec
            with self._cv:
                self._changes.clear()  # a new workspace reads everything afresh
            return workspace, True
        self.workspace.choose((spec.profile,))
        self.spec = spec
        return self.workspace, False

    def _wanted_watch(self, workspace: Workspace, spec: OpenSpec) -> tuple[str, ...]:
        """The folders to watch for `workspace` (none when the window watches nothing)."""
        if not self.live:
            return ()
        paths = list(workspace.roots_to_watch())
        # Missing folders too: the watcher waits on their nearest existing parent, so a skills
        # folder created later (e.g. ~/.claude/skills) appears without a reload.
        paths += [
            p if os.path.isdir(p) or not os.path.exists(p) else os.path.dirname(p)
            for p in spec.paths
        ]
        return tuple(sorted(set(paths)))

    def _new_watch(self, workspace: Workspace, spec: OpenSpec) -> tuple[str, ...] | None:
        """The folders to watch when they are not what is watched now (the old watch is stopped
        then); None when the watch stays as it is (stopped when nothing is to be watched)."""
        wanted = self._wanted_watch(workspace, spec)
        if not wanted or (wanted == self._watched and self._watcher is not None):
            if not wanted:
                self._stop_watch()
            return None
        self._stop_watch()
        return wanted

    def _watch_later(self, workspace: Workspace, spec: OpenSpec) -> None:
        """An open: when the watch must change, drop the old one now and set up the new one
        after the answer (then everything read is rescanned: `_verify_due`). Setting up a watch
        walks every folder, which the window need not wait for."""
        if self._new_watch(workspace, spec) is not None:
            self._verify_due = True

    def _watch(self, workspace: Workspace, spec: OpenSpec) -> None:
        """Watch the folders `workspace` reads (changes made before this are found by the
        rescan that follows it, `_verify_due`)."""
        wanted = self._new_watch(workspace, spec)
        if wanted is None:
            return
        self._watched = wanted
        from skillprism.core.watch import SkillWatcher

        self.event("watch", ("starting", "setting up the file watch"))
        try:
            # on_mode: a restarted or polling watch is said at once (from the watcher's thread)
            watcher = SkillWatcher(
                list(wanted),
                self._on_changes,
                on_mode=lambda mode, reason: self.event("watch", (mode, reason)),
            )
            watcher.start()
        except Exception as err:  # a watch failure never takes the engine down
            log.warning("cannot watch %s", wanted, exc_info=True)
            self.event("watch", ("off", f"cannot watch: {err}"))
            return
        self._watcher = watcher
        self.event("watch", (watcher.mode, watcher.reason))

    def _stop_watch(self) -> None:
        watcher, self._watcher = self._watcher, None
        self._watched = ()
        if watcher is not None:
            try:
                watcher.stop()
            except Exception:
                log.warning("stopping the file watch failed", exc_info=True)

    def _on_changes(self, paths: Iterable[str]) -> None:
        """The watcher's callback (its own thread): remember the paths; the loop refreshes."""
        with self._cv:
            self._changes.update(paths)
            self._cv.notify_all()

    # --- catalogs ----------------------------------------------------------------------------------

    def _loaded(
        self,
        spec: OpenSpec,
        start: float,
        update: Update | None,
        changed: tuple[str, ...] = (),
        kind: str = "full",
    ) -> LoadedView:
        assert self.workspace is not None
        pending = self._risks_due
        catalog = self.workspace.catalog(spec.profile, security=False if pending else None)
        report = self.workspace.settings_report(
            (spec.profile,), security=False if pending else None
        )
        before = self.shown
        shown = _Shown()
        shown.catalog = catalog
        shown.by_key = catalog.by_key()
        roots = prepare.ordered_roots(catalog)
        shown.roots = prepare.root_rows(roots)
        shown.skills, shown.members = prepare.skill_rows(catalog, roots, not pending)
        if pending and before.skills:
            # while the risks are scanned again, a skill keeps the risk it was last shown with
            # (the status bar says the scan is under way; its fill brings the new one), rather
            # than every row of the tree flashing to "not scanned yet" on a reload
            known = {row.key: row.risk for row in before.skills if row.risk}
            if known:
                shown.skills = [
                    row._replace(risk=known[row.key]) if row.key in known else row
                    for row in shown.skills
                ]
        shown.index = FilterIndex(catalog)
        shown.path_problems = tuple(self.workspace.path_problems())
        self.shown = shown
        self.generation += 1
        self._filled = {}
        tree = self._tree(before, update.changed_keys if update is not None else None)
        return LoadedView(
            spec,
            self.generation,
            catalog.profile.title,
            time.perf_counter() - start,
            kind,
            catalog.summary(),
            shown.roots,
            tree,
            shown.path_problems,
            _moved(before.catalog, catalog, update),
            changed,
            self.workspace.security,
            tuple(report.lines()),
            report.relaxes,
            pending,
            RowList(SkillRow, shown.skills),
            RowList(ProblemRow, prepare.problem_rows(catalog)),
        )

    def _tree(self, before: _Shown, changed: frozenset[str] | None) -> TreeView:
        """The tree under the current filter, compared with the tree sent before (`before`
        holds it; it may be the state shown now, for a new filter of the same catalog)."""
        shown = self.shown
        base, base_shape = before.tree, before.shape
        keep = shown.index.matches(self.query)
        tree = prepare.tree_view(
            shown.roots, shown.skills, shown.members, self.query, keep, next(self._serials)
        )
        shape = prepare.tree_shape(tree, shown.roots, shown.skills)
        if base is not None:
            same = shape == base_shape
            if same and changed is None:
                # not said by a refresh (a reload, another runtime): which rows differ
                before_rows = {row.key: row for row in before.skills}
                changed = frozenset(
                    row.key for row in shown.skills if before_rows.get(row.key) != row
                )
            tree = dataclasses.replace(tree, base=base.serial, same_shape=same, changed=changed)
        shown.tree, shown.shape = tree, shape
        return tree

    def _do_open(self, spec: OpenSpec, cold: bool, query: FilterQuery, live: bool) -> LoadedView:
        start = time.perf_counter()
        self.query, self.live = query, live
        workspace, new = self._workspace(spec, cold)
        self._watch_later(workspace, spec)
        # With the security pass: the tree and the validation findings first, the risks after.
        self._risks_due = workspace.security
        update = None if new else workspace.refresh(security=False if self._risks_due else None)
        return self._loaded(spec, start, update)

    def _do_refresh(self, paths: Sequence[str] = (), verify: bool = False) -> Any:
        """Files changed on disk (`paths`, else those the watcher reported): refresh what they
        touch (a job the engine gives itself). `verify`: set up the file watch an open left for
        later, then rescan everything; answered only when something changed since the open."""
        assert self.workspace is not None and self.spec is not None
        start = time.perf_counter()
        if verify:
            self._watch(self.workspace, self.spec)
        with self._cv:
            self._changes.update(paths)
            if verify:
                # What the watch reports from its start on is left for the refresh after this
                # rescan: the rescan trusts what it holds for files it was not told of (a file
                # made beside an unchanged skill file), so a report taken here would be lost.
                changed: tuple[str, ...] = ()
            else:
                changed, self._changes = tuple(sorted(self._changes)), set()
        if not verify:
            self.event("working", "refresh")
        try:
            update = self.workspace.refresh(changed, security=False if self._risks_due else None)
        except BaseException:
            with self._cv:
                self._changes.update(changed)  # not done: the next refresh takes them again
            raise
        if verify:
            self._verify_due = False
            if not self._moved_since_shown(update):
                return _LATER  # nothing to say: the window shows what is on disk
        self._watch(self.workspace, self.spec)  # new roots may have appeared
        return self._loaded(self.spec, start, update, changed, update.refresh)

    def _moved_since_shown(self, update: Update) -> bool:
        """Whether a rescan found anything the shown catalog does not hold."""
        assert self.workspace is not None and self.spec is not None
        shown = self.shown
        if update.changed_keys or update.removed_keys or shown.catalog is None:
            return True
        security = False if self._risks_due else None
        now = self.workspace.catalog(self.spec.profile, security=security)
        return (
            now.summary() != shown.catalog.summary()
            or tuple(self.workspace.path_problems()) != shown.path_problems
        )

    def _do_risks(self) -> LoadedView:
        """Scan the shown skills for risks (a job the engine gives itself while they are due),
        sending them as they come in (RiskFill events, a few a second); when every skill is in,
        the catalog with the security pass (built from the scan, equal to a fresh check). A
        request or a change on disk pauses the scan; it goes on from there afterwards."""
        workspace = self._require()
        assert self.spec is not None
        profile = self.spec.profile
        start = time.perf_counter()
        generation = self.generation
        risks: list[tuple[str, str]] = []
        rows: list[ProblemRow] = []
        last = time.monotonic()

        def send(done: int, total: int) -> None:
            nonlocal last
            self.event(
                "risks", RiskFill(generation, done, total, tuple(risks), RowList(ProblemRow, rows))
            )
            risks.clear()
            rows.clear()
            last = time.monotonic()

        done = (0, 0)

        def progress(p: RiskProgress) -> None:
            nonlocal done
            done = (p.done, p.total)
            skill = self.shown.by_key.get(p.key)
            if skill is not None and p.key not in self._filled:
                found = p.diagnostics.get(profile, ())
                self._filled[p.key] = risk_of(found)
                risks.append((p.key, self._filled[p.key]))
                rows.extend(prepare.problem_row(d, skill) for d in found)
            if (
                time.monotonic() - last >= FILL_INTERVAL
                or len(risks) >= FILL_MAX_SKILLS
                or p.done == p.total
            ):
                send(p.done, p.total)

        self._risks_scanned = False
        try:
            finished = workspace.scan_risks(progress, stop_wanted)
        finally:
            if risks:  # what was scanned before a pause is sent, never dropped
                send(*done)
        if not finished:
            raise Cancelled  # paused: the next risks job goes on from what was scanned
        self._risks_due = False
        # from here on only an open stops the answer: the window must get the view whose rows
        # later answers (a filter's tree) are made of
        self._risks_scanned = True
        # the window shows the risks sent: the view with the pass changes only the rows that
        # differ from those (most often none), not every row
        filled = self._filled
        self.shown.skills = [
            row._replace(risk=filled[row.key]) if row.key in filled else row
            for row in self.shown.skills
        ]
        return self._loaded(self.spec, start, None, kind="risks")

    def _do_filter(self, query: FilterQuery) -> TreeView:
        self.query = query
        return self._tree(self.shown, frozenset())

    def _skill(self, key: str) -> SkillEntry:
        skill = self.shown.by_key.get(key)
        if skill is None:
            raise WorkspaceError("that skill is no longer in the set (it was moved or deleted)")
        return skill

    def _require(self) -> Workspace:
        if self.workspace is None or self.spec is None:
            raise WorkspaceError("nothing is open yet")
        return self.workspace

    # --- one skill ---------------------------------------------------------------------------------

    def _do_preview(self, key: str, open_file: str, dark: bool) -> PreviewPages:
        workspace = self._require()
        skill = self._skill(key)
        catalog = self.shown.catalog
        assert catalog is not None
        doc, stale = workspace.document(skill.path)
        text, diagnostics = pages.source_text(skill, doc)
        return PreviewPages(
            key,
            self.generation,
            skill.directory,
            pages.overview_html(skill, catalog, doc, dark=dark),
            text,
            diagnostics,
            pages.files_html(skill, dark=dark),
            self._file_page(skill, open_file, dark) if open_file else "",
            stale,
        )

    def _file_page(self, skill: SkillEntry, path: str, dark: bool) -> str:
        rel = os.path.relpath(path, skill.directory).replace(os.sep, "/")
        return self._resource_page(skill, rel, dark)

    def _resource_page(self, skill: SkillEntry, reference: str, dark: bool) -> str:
        assert self.spec is not None
        result = self._require().resource(self.spec.profile, skill.name, reference, path=skill.path)
        return pages.resource_html(skill, reference, result, dark=dark)

    def _do_files(self, key: str) -> FileList:
        skill = self._skill(key)
        entries, truncated = pages.file_entries(skill, FILE_LIMIT)
        return FileList(key, entries, truncated)

    def _do_link(self, key: str, reference: str, dark: bool) -> Page:
        skill = self._skill(key)
        return Page(key, reference, self._resource_page(skill, reference, dark))

    def _do_activate(
        self, key: str, args: str, invoker: str, first_activation: bool, dark: bool
    ) -> Page:
        from skillprism.core.activate import ActivationError, invocation_rules

        workspace = self._require()
        assert self.spec is not None
        skill = self._skill(key)
        profile = workspace.profile(self.spec.profile)
        try:
            activation = workspace.activate(
                self.spec.profile,
                skill.name,
                args=args,
                invoker=invoker,
                path=skill.path,
                first_activation=first_activation,
            )
        except ActivationError as err:
            body = f"<p style='color:#d23b3b'>{html.escape(str(err))}</p>"
            return Page(key, skill.name, pages.page(body, dark))
        page = pages.activation_html(
            activation,
            runtime=profile.title,
            dark=dark,
            invocation_rules=invocation_rules(profile),
        )
        return Page(key, skill.name, page)

    def _do_where(self, key: str, dark: bool) -> WherePage:
        from skillprism.core.placement import PlacementError
        from skillprism.core.profiles import available_profiles

        skill = self._skill(key)
        try:
            report = self._require().where(skill.directory, available_profiles())
        except PlacementError as err:
            return WherePage(key, "", (), str(err))
        levels = {e.name: e.level for e in self.entries()}
        head, blocks = pages.where_blocks(report, levels, dark=dark)
        return WherePage(key, head, blocks)

    # --- the whole set -----------------------------------------------------------------------------

    def _do_tier1(self, profile: str, inputs: BudgetInputs) -> Tier1View:
        workspace = self._require()
        settings, unread = workspace.budget_settings(profile, inputs)
        result = workspace.tier1_model(profile).compute(settings)
        return prepare.tier1_view(result, workspace.profile(profile).title, unread)

    def _do_trigger(self, profile: str, inputs: BudgetInputs, prompt: str, key: str) -> TriggerView:
        """`prompt` against the skills `profile`'s runtime lists under `inputs` (an estimate),
        seen from the skill `key`, with the skills whose entries say nearly what its entry
        says."""
        workspace = self._require()
        index = workspace.trigger_index(profile, inputs)
        return prepare.trigger_view(
            index,
            prompt,
            key,
            workspace.profile(profile).title,
            workspace.budget_settings(profile, inputs)[0].context_window,
            index.overlaps(key=key) if key else (),
        )

    def _do_trigger_evals(
        self,
        profile: str,
        inputs: BudgetInputs,
        key: str,
        path: str,
        edited: Sequence[tuple[str, bool]] | None = None,
    ) -> EvalView:
        """The eval set in the file `path` (skill-creator's format) run for the skill `key`, or,
        when given, the set as the user `edited` it ((query, should trigger) each)."""
        from skillprism.core.eval_sets import EvalItem, EvalSetError, load_eval_set
        from skillprism.core.trigger import run_eval_set

        workspace = self._require()
        source: str | None = None
        if edited is not None:
            items = tuple(EvalItem(query, should) for query, should in edited)
        else:
            try:
                source, items = load_eval_set(path)
            except EvalSetError as err:
                raise WorkspaceError(str(err)) from None
        index = workspace.trigger_index(profile, inputs)
        candidate = index.candidate(key)
        view = prepare.eval_view(
            run_eval_set(index, key, items),
            path,
            key,
            candidate.name if candidate is not None else "",
            workspace.profile(profile).title,
        )
        return dataclasses.replace(view, source=source)

    def _live_setup(
        self,
        profile: str,
        inputs: BudgetInputs,
        key: str,
        items: Sequence[tuple[str, bool]],
        runs: int,
        runtime_cli: str,
    ) -> tuple[Any, ...]:
        """Everything a live run needs from the workspace, read on the engine's own thread."""
        from skillprism.core.eval_sets import EvalItem
        from skillprism.core.live_trigger.plan import make_plan
        from skillprism.core.live_trigger.session import (
            LiveError,
            find_program,
            live_spec,
            review_set,
        )

        workspace = self._require()
        catalog = workspace.catalog(profile, security=False)
        skill = self._skill(key)
        intended = skill.qualified_name or skill.name
        evals = tuple(EvalItem(q, s) for q, s in items)
        plan = make_plan(
            [i.query for i in evals], max(1, runs), workspace.tier1(profile, inputs).text
        )
        skills = review_set(catalog)
        problem = program = ""
        spec = None
        try:
            spec = live_spec(catalog.profile)
            program = find_program(spec, runtime_cli or None)
        except LiveError as err:
            problem = str(err)
        if not problem and not any(s.name == intended for s in skills):
            problem = (
                f"{intended} is not in the skill set under review: a live run copies only those"
            )
        if not problem and not evals:
            problem = "the eval set holds no prompt"
        return catalog.profile, spec, program, skills, intended, evals, plan, problem

    def _do_live_plan(
        self,
        profile: str,
        inputs: BudgetInputs,
        key: str,
        items: Sequence[tuple[str, bool]],
        runs: int,
        runtime_cli: str,
    ) -> LivePlanView:
        """What a live run of the set `items` ((query, should trigger) each) for the skill `key`
        would do: calls, tokens, cost where a price is known, and whether it can run."""
        prof, spec, program, skills, intended, _evals, plan, problem = self._live_setup(
            profile, inputs, key, items, runs, runtime_cli
        )
        return LivePlanView(
            prof.title,
            intended,
            plan.prompts,
            plan.runs,
            plan.calls,
            plan.listing_tokens,
            plan.tokens_per_call,
            plan.input_tokens,
            plan.cost_usd,
            plan.price.source if plan.price else "",
            plan.text(),
            program,
            len(skills),
            spec.reason if spec is not None and spec.verified != "lab" else "",
            problem,
        )

    def _do_live_run(self, job: _Job) -> object:
        """Run the live plan (the same arguments as `live_plan`, then timeout, concurrency and
        the held-out share) in a thread: `progress` messages as results arrive, then the
        `LiveRunView`. A newer `live_run`, a cancel or the window going ends every running CLI."""
        profile, inputs, key, items, runs, runtime_cli, timeout, concurrency, holdout = job.args
        prof, spec, program, skills, intended, evals, _plan, problem = self._live_setup(
            profile, inputs, key, items, runs, runtime_cli
        )
        if problem:
            raise WorkspaceError(problem)
        thread = threading.Thread(
            target=self._live_thread,
            args=(
                job,
                prof,
                spec,
                program,
                skills,
                intended,
                evals,
                runs,
                timeout,
                concurrency,
                holdout,
            ),
            name="skillprism-live-run",
            daemon=True,
        )
        thread.start()
        return _LATER

    def _live_thread(
        self,
        job: _Job,
        prof: Any,
        spec: Any,
        program: str,
        skills: Any,
        intended: str,
        evals: Any,
        runs: int,
        timeout: float,
        concurrency: int,
        holdout: float,
    ) -> None:
        from skillprism.core.live_trigger.results import split_eval_set
        from skillprism.core.live_trigger.session import live_release, run_env, run_live

        def progress(result: Any, done: int, total: int) -> None:
            o = result.outcome
            what = o.outcome + (f" ({o.skill})" if o.outcome == "other" else "")
            self._send((PROGRESS, job.id, job.kind, done, total, f"{what}: {result.job.prompt}"))

        try:
            with cancellable(lambda: self._stop_wanted(job)):
                env = run_env(spec)
                results = run_live(
                    prof,
                    skills,
                    intended,
                    evals,
                    max(1, runs),
                    program=program,
                    env=env,
                    release=live_release(spec, program, env),
                    held_out=split_eval_set(evals, holdout)[1] if holdout else (),
                    timeout=timeout,
                    concurrency=concurrency,
                    on_result=progress,
                )
                self._answer(job, _live_view(prof.title, results))
        except Cancelled:
            log.debug("%s %d stopped", job.kind, job.id)
        except Exception as err:
            details = traceback.format_exc()
            log.error("%s failed:\n%s", job.kind, details)
            self._fail(
                job,
                Failure(f"the live run failed: {type(err).__name__}: {err}", details, log_path()),
            )

    def _do_save_live(self, path: str, text: str) -> str:
        """Write a finished live run's result (`text`, as `trigger --live --save` writes it) to
        `path`, which the user chose; refused when `text` is not such a result."""
        from skillprism.core.live_trigger.results import ResultsError, loads

        try:
            loads(text, "the live result")
        except ResultsError as err:
            raise WorkspaceError(str(err)) from None
        write_atomically(path, text)
        return path

    def _do_compare_live(self, path: str, current: str) -> LiveComparison:
        """The live run `current` (its saved text) against the result saved at `path`."""
        from skillprism.core.live_trigger.results import ResultsError, compare, loads

        try:
            with open(path, encoding="utf-8") as fh:
                before = loads(fh.read(), path)
            after = loads(current, "the run shown")
        except OSError as err:
            raise WorkspaceError(f"{path}: cannot read it: {err.strerror or err}") from None
        except ResultsError as err:
            raise WorkspaceError(str(err)) from None
        changes = compare(before, after)
        return LiveComparison(
            path,
            tuple((c.query, c.should_trigger, c.before) for c in changes),
            sum(1 for c in changes if c.better is True),
            sum(1 for c in changes if c.better is False),
        )

    def _do_save_evals(
        self, path: str, edited: Sequence[tuple[str, bool]], expected: str | None
    ) -> tuple[str, str]:
        """Write the eval set `edited` to `path` in skill-creator's format; refused when the file
        is no longer the text `expected` (as it was read or last saved; None: a new file, which
        the window's Save As asked about). Returns (path, the text written)."""
        from skillprism.core.eval_sets import EvalItem, eval_set_text

        if expected is not None:
            try:
                with open(path, encoding="utf-8-sig", newline="") as fh:
                    now = fh.read()
            except FileNotFoundError:
                now = None
            except OSError as err:
                raise WorkspaceError(f"{path}: cannot read it again: {err.strerror}") from None
            if now != expected:
                raise WorkspaceError(
                    f"{path} changed on disk since it was opened: nothing was written. Open it "
                    "again to see the change, or save your set under another name."
                )
        text = eval_set_text([EvalItem(query, should) for query, should in edited])
        write_atomically(path, text)
        return path, text

    def _do_fixes(self, key: str, code: str) -> FixesView:
        """The quick fixes for the skill `key` ("": every skill shown), of `code` ("": all),
        under the runtime shown; kept here until applied or offered again."""
        workspace = self._require()
        paths: tuple[str, ...] = ()
        if key:
            entry = self._skill(key)
            paths = (entry.real_path or os.path.realpath(entry.path),)
        found = workspace.fixes(paths, codes=[code] if code else None)
        self._offered = {}
        rows = []
        for at, fix in enumerate(found, 1):
            self._offered[at] = fix
            rows.append(prepare.fix_row(at, fix, self._key_of(fix.path), workspace.project))
        catalog = self.shown.catalog
        return FixesView(key, code, catalog.profile.title if catalog else "", tuple(rows))

    def _do_advise(self, profile: str, inputs: BudgetInputs) -> AdviceView:
        """What it takes for every skill `profile` lists under `inputs` to keep its full
        description (core/advisor.py): the description cuts, offered as quick fixes (kept here
        like any offer), and the change of the runtime's own settings that turns skills off."""
        from skillprism.core.fixes import combined_edits
        from skillprism.formats.advice_text import render_advice
        from skillprism.formats.diff import unified_diff

        workspace = self._require()
        plan = workspace.advise(profile, inputs)
        text = render_advice(plan, plan.context_window, relative=False)
        ids: list[int] = []
        diff = ""
        self._offered = {}
        if plan.shorten:
            fixes = workspace.plan_fixes(plan)
            groups: dict[str, list[Fix]] = {}
            for at, fix in enumerate(fixes, 1):
                self._offered[at] = fix
                ids.append(at)
                groups.setdefault(fix.path, []).append(fix)
            diff = "".join(
                unified_diff(
                    g[0].snapshot.data, g[0].snapshot.apply(combined_edits(g)), p.lstrip("/")
                )
                for p, g in groups.items()
            )
        toggle: TogglePlan | None = None
        problem = ""
        if plan.disable and not plan.already_full:
            try:
                change = workspace.plan_disable(profile, plan)
                toggle = TogglePlan(
                    workspace.profile(profile).title,
                    f"{len(plan.disable)} skill(s)",
                    False,
                    change.path,
                    change.entry,
                    change.diff(),
                    change,
                )
            except WorkspaceError as err:
                problem = str(err)
        return AdviceView(
            workspace.profile(profile).title,
            plan.already_full,
            text,
            tuple(ids),
            diff,
            toggle,
            len(plan.disable or ()),
            problem,
        )

    def _key_of(self, path: str) -> str:
        """The key of the shown skill whose file is `path` (a real path), "" when none is."""
        for entry in self.shown.catalog.skills if self.shown.catalog else ():
            if (entry.real_path or os.path.realpath(entry.path)) == path:
                return entry.path
        return ""

    def _do_apply_fixes(self, ids: Sequence[int]) -> FixesDone:
        """Write the offered fixes `ids` as one batch (the user applied them): a file changed
        since they were offered is refused, with what differs."""
        from skillprism.formats.diff import unified_diff

        workspace = self._require()
        fixes = [self._offered[i] for i in ids if i in self._offered]
        if not fixes:
            raise WorkspaceError("these fixes are no longer offered: ask for them again")
        outcome = workspace.apply_fixes(fixes)
        self._offered = {}
        files = {w.path for w in outcome.batch.files}
        parts = [f"{len(outcome.applied)} fix(es) written to {len(files)} file(s)"]
        if outcome.skipped:
            parts.append(f"{len(outcome.skipped)} left out (they edit what another fix edits)")
        if outcome.refused:
            parts.append(
                f"{len(outcome.refused)} file(s) refused: changed since the fixes were offered"
            )
        return FixesDone(
            "; ".join(parts) + ".",
            tuple(sorted(files)),
            tuple(
                (r.path, unified_diff(r.expected.encode(), r.current.encode(), r.path.lstrip("/")))
                for r in outcome.refused
            ),
            outcome.batch.folder if files else "",
        )

    def _do_plan_toggle(self, key: str, enable: bool) -> TogglePlan:
        """The change of the shown runtime's own settings that turns skill `key` off (or on);
        nothing is written."""
        from skillprism.formats.diff import unified_diff

        workspace = self._require()
        entry = self._skill(key)
        assert self.spec is not None
        name = entry.qualified_name or entry.name
        change = workspace.plan_toggle(self.spec.profile, name, enable=enable)
        shown = change.path.lstrip("/")
        return TogglePlan(
            workspace.profile(self.spec.profile).title,
            name,
            enable,
            change.path,
            change.entry,
            unified_diff((change.before or "").encode(), (change.after or "").encode(), shown),
            change,
        )

    def _do_apply_toggle(self, change: Any, undo: bool = False) -> FixesDone:
        """Write a planned change of a runtime's settings (the user confirmed it), or put back
        what it replaced (`undo`); refused when the file changed in between."""
        workspace = self._require()
        if undo:
            workspace.undo_change(change)
            return FixesDone(f"Put back {change.path} as it was.", (change.path,))
        workspace.apply_change(change)
        return FixesDone(f"Wrote {change.entry} to {change.path}.", (change.path,))

    def _do_plan_install(
        self,
        source: str,
        profiles: Sequence[str],
        scope: str,
        mode: str = "copy",
        replace: bool = False,
    ) -> InstallPlanView:
        """Where each skill of `source` (a skill folder or a repository) would go for each of
        `profiles` in `scope`, with the runtime's verdicts and every clash; nothing is written.
        The plan is kept for `apply_install` (only the newest)."""
        from skillprism.formats.install_text import render_plan

        workspace = self._require()
        plan = workspace.plan_install(
            source, list(profiles) or None, scope=scope, mode=mode, replace=replace
        )
        plan_id = next(self._plan_ids)
        self._install_plans = {plan_id: plan}
        return InstallPlanView(
            plan_id,
            plan.source,
            plan.scope,
            plan.mode,
            render_plan(plan),
            len(plan.todo),
            len(plan.blocked),
            sum(len(p.clashes) for p in plan.placed),
            tuple(a.target for a in plan.todo),
        )

    def _do_plan_update(self, profiles: Sequence[str] = ()) -> InstallPlanView:
        """Every copy Skill Prism installed (for `profiles`, when given) and how it stands
        against its source, and the update of the stale ones (kept for `apply_install`); nothing
        is written."""
        from skillprism.formats.install_text import render_plan, render_status

        workspace = self._require()
        plan, statuses = workspace.plan_update(list(profiles))
        plan_id = next(self._plan_ids)
        self._install_plans = {plan_id: plan}
        text = render_status(statuses)
        if plan.actions:
            text += "\n" + render_plan(plan)
        return InstallPlanView(
            plan_id,
            "",
            "update",
            "copy",
            text,
            len(plan.todo),
            len(plan.blocked),
            sum(len(p.clashes) for p in plan.placed),
            tuple(a.target for a in plan.todo),
        )

    def _do_apply_install(self, plan_id: int) -> FixesDone:
        """Do the install planned as `plan_id` (the user confirmed it); refused, nothing
        written, when a source or target changed since it was planned."""
        workspace = self._require()
        plan = self._install_plans.pop(plan_id, None)
        if plan is None:
            raise WorkspaceError("this install is no longer planned: plan it again")
        done = workspace.apply_install(plan)
        kept = f"; {len(done.replaced)} replaced (kept in the backups)" if done.replaced else ""
        return FixesDone(f"Installed {len(done.installed)} folder(s){kept}.", tuple(done.installed))

    def _do_undo_install(self) -> FixesDone:
        """Take back the last install or update (the user asked)."""
        done = self._require().undo_install()
        if done is None:
            return FixesDone("There is no install to undo.", ())
        return FixesDone(
            f"Undid the last install: {len(done.installed)} folder(s) removed, "
            f"{len(done.restored)} put back.",
            tuple(done.installed),
        )

    def _do_undo_fixes(self) -> FixesDone:
        """Undo the last batch of fixes (the user asked)."""
        batch = self._require().undo_fixes()
        if batch is None:
            return FixesDone("There are no fixes to undo.", ())
        paths = tuple(sorted(w.path for w in batch.files))
        renamed = f" and {len(batch.renamed)} folder(s) renamed back" if batch.renamed else ""
        return FixesDone(f"Undid the last fixes: {len(paths)} file(s) restored{renamed}.", paths)

    def _do_matrix(self, profiles: Sequence[str], inputs: BudgetInputs) -> MatrixData:
        return prepare.matrix_view(self._require().matrix(profiles, inputs))

    def _do_report(self, path: str, profiles: Sequence[str], inputs: BudgetInputs) -> str:
        workspace = self._require()
        text = workspace.report(workspace.report_format(path), profiles, inputs)
        write_atomically(path, text)
        return path

    def _do_runtime_details(self, profile: str, dark: bool) -> Page:
        from skillprism.core.profiles import ProfileError, load_profile

        try:
            loaded = load_profile(profile)
        except ProfileError as err:
            raise WorkspaceError(str(err)) from None
        return Page("", loaded.title, pages.runtime_details_html(loaded, dark=dark))

    def _do_reference(self, dark: bool) -> Page:
        return Page("", "Diagnostics Reference", pages.diagnostics_reference_html(dark=dark))

    def _do_start_roots(self, saved: Sequence[str], profile: str, project: str) -> list[str]:
        """Saved roots that still exist, else the profile's own roots (answered as [] = use
        them) when any exists here, else the bundled demo set."""
        from skillprism.core.profiles import ProfileError, load_profile
        from skillprism.core.roots import profile_roots
        from skillprism.paths import demo_skills_dir

        kept = [r for r in saved if os.path.exists(r)]
        if kept:
            return kept
        try:
            roots = profile_roots(
                load_profile(profile), project, os.path.expanduser("~"), os.environ
            )
        except ProfileError:
            roots = []
        if any(r.exists for r in roots):
            return []
        return [str(demo_skills_dir())]

    def _do_layout_runtime(self, folders: Sequence[str]) -> tuple[str, str]:
        """The runtime whose own skill folders the folders are laid out with, and why, for a
        first start without a chosen runtime."""
        return layout_runtime(folders)

    def _do_units(self, folder: str) -> int:
        """How many installable units `folder` holds when it is a repository to review as
        installed (0: a skills folder, or a project or home laid out with runtimes' own skill
        folders, shown as it is)."""
        return len(installable_units(folder))


def _check(job: _Job, engine: Engine) -> None:
    if engine._stop_wanted(job):
        raise Cancelled


def _moved(old: Catalog | None, new: Catalog, update: Update | None) -> dict[str, str]:
    """Skills whose folder was renamed or moved: old key -> the one new skill with the same name,
    description and skill-file name, where no copy is left at the old place."""
    if old is None or update is None or not update.removed_keys:
        return {}
    before = old.by_key()
    fresh: dict[tuple[str, str | None, str], list[str]] = {}
    now = {s.key for s in new.skills}
    for s in new.skills:
        if s.key not in before:
            fresh.setdefault((s.name, s.description, os.path.basename(s.path)), []).append(s.key)
    out = {}
    for key in update.removed_keys:
        gone = before.get(key)
        if gone is None or key in now:
            continue
        same = fresh.get((gone.name, gone.description, os.path.basename(gone.path)), [])
        if len(same) == 1:
            out[key] = same[0]
    return out


def main(fd: int) -> int:
    """Serve the window on the inherited socket `fd`; 0 when the window went away."""
    _setup_logging()
    # Background work: when the machine is busy, the window (and the user's other programs)
    # get the processor first; the engine, its fork server and its workers take what is left.
    with contextlib.suppress(AttributeError, OSError):
        os.nice(ENGINE_NICENESS)
    sock = socket.socket(fileno=fd)
    engine = Engine(sock)

    def stop(_signum: int, _frame: object) -> None:
        engine.close()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    with contextlib.suppress(AttributeError, ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in the window's terminal is its own
    # BrokenPipe, ConnectionReset: the window went away while an answer was on its way.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        engine.serve()
    return 0


def _live_view(title: str, results: Any) -> LiveRunView:
    """A finished live run as the window shows it."""
    rows = []
    for p in results.prompts:
        c = p.counts
        errors = [o.message for o in p.outcomes if o.outcome in ("error", "timeout") and o.message]
        rows.append(
            LiveRow(
                p.query,
                p.should_trigger,
                p.held_out,
                p.rate,
                p.passed,
                c["intended"],
                c["other"],
                c["none"],
                c["error"],
                c["timeout"],
                ", ".join(f"{n} x{k}" for n, k in p.others.items()),
                errors[0] if errors else "",
            )
        )
    s = results.scores()
    return LiveRunView(
        title,
        results.skill,
        results.release,
        tuple(results.models),
        results.date,
        results.fingerprint,
        s.precision,
        s.recall,
        s.passed,
        s.failed,
        s.unanswered,
        tuple(rows),
        results.dumps(),
    )
