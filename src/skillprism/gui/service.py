"""Catalog building off the GUI thread, and the file watcher adapted to Qt signals.

The worker owns its DocumentCache (only its thread touches it), so a rescan after an edit
re-parses only the changed files. Results come back as queued signals and are applied on the GUI
thread; a generation number drops results that a newer request has overtaken.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from skillprism.core.catalog import Catalog


@dataclass(frozen=True)
class LoadRequest:
    profile: str
    paths: tuple[str, ...]
    project: str
    changed: tuple[str, ...] = ()
    generation: int = 0
    full: bool = False  # a reload asked for by the user: start from a cold cache


@dataclass(frozen=True)
class LoadResult:
    catalog: Catalog
    seconds: float
    generation: int
    changed: tuple[str, ...] = field(default=())


class _Worker(QObject):
    sig_done = Signal(object)
    """A LoadResult is ready."""
    sig_failed = Signal(str, int)
    """Loading failed: (message, generation)."""

    def __init__(self) -> None:
        super().__init__()
        self._live: Any = None  # core.watch.LiveCatalog: owns the cache, rebuilds what changed
        self._key: tuple[str, tuple[str, ...], str] | None = None

    @Slot(object)
    def load(self, request: LoadRequest) -> None:
        from skillprism.core.profiles import ProfileError, load_profile
        from skillprism.core.resolve import DocumentCache
        from skillprism.core.watch import LiveCatalog

        start = time.perf_counter()
        try:
            profile = load_profile(request.profile)
            key = (request.profile, request.paths, request.project)
            live = self._live
            if request.full or live is None or key != self._key or profile != live.profile:
                # The document cache survives a profile switch; a user's reload starts cold.
                cache = live.cache if live is not None and not request.full else DocumentCache()
                live = LiveCatalog(
                    profile, list(request.paths) or None, project=request.project, cache=cache
                )
                live.workers = min(os.cpu_count() or 1, 4)
                live.start_method = "forkserver"  # this process has threads: never fork it
                self._live, self._key = live, key
                catalog = live.catalog
            else:
                catalog = live.refresh(request.changed)
        except ProfileError as err:
            self.sig_failed.emit(str(err), request.generation)
            return
        except Exception as err:  # a bug must not kill the worker thread; say what happened
            self.sig_failed.emit(f"could not build the skill catalog: {err!r}", request.generation)
            return
        self.sig_done.emit(
            LoadResult(catalog, time.perf_counter() - start, request.generation, request.changed)
        )


def _start_fork_server() -> None:
    try:
        import multiprocessing
        from multiprocessing import forkserver

        if "forkserver" in multiprocessing.get_all_start_methods():
            multiprocessing.get_context("forkserver").set_forkserver_preload(
                ["skillprism.core.resolve"]
            )
            forkserver.ensure_running()
    except Exception:  # an optimisation only: the pool starts the server itself if needed
        pass


class CatalogService(QObject):
    """Loads catalogs in a worker thread; the newest request wins."""

    sig_loaded = Signal(object)
    """A new Catalog (in a LoadResult) is ready on the GUI thread."""
    sig_failed = Signal(str)
    """The latest request failed; the message says why."""
    sig_busy = Signal(bool)
    """A load started (True) or the last one finished (False)."""
    _sig_request = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._generation = 0
        self._thread = QThread()
        self._thread.setObjectName("skillprism-catalog")
        self._worker = _Worker()
        self._worker.moveToThread(self._thread)
        self._sig_request.connect(self._worker.load)
        self._worker.sig_done.connect(self._on_done)
        self._worker.sig_failed.connect(self._on_failed)
        self._thread.start()
        # The first scan evaluates through a fork server; start it now, beside the window.
        threading.Thread(
            target=_start_fork_server, daemon=True, name="skillprism-forkserver"
        ).start()

    def request(
        self,
        profile: str,
        paths: list[str],
        project: str,
        changed: tuple[str, ...] = (),
        *,
        full: bool = False,
    ) -> int:
        self._generation += 1
        self.sig_busy.emit(True)
        self._sig_request.emit(
            LoadRequest(profile, tuple(paths), project, changed, self._generation, full)
        )
        return self._generation

    def _on_done(self, result: LoadResult) -> None:
        if result.generation == self._generation:
            self.sig_busy.emit(False)
            self.sig_loaded.emit(result)

    def _on_failed(self, message: str, generation: int) -> None:
        if generation == self._generation:
            self.sig_busy.emit(False)
            self.sig_failed.emit(message)

    def shutdown(self) -> None:
        self._thread.quit()
        self._thread.wait(60_000)  # a running QThread must never be destroyed


class WatchBridge(QObject):
    """The core watcher's callback (on its own thread) turned into a queued Qt signal. Setting up
    a recursive watch over thousands of folders takes a while, so it starts on a plain thread and
    is handed back to the GUI thread when ready."""

    sig_changed = Signal(list)
    """Paths changed on disk (debounced)."""
    sig_state = Signal(str, str)
    """Watching mode changed: ("native" | "polling" | "off" | "starting", reason)."""
    _sig_started = Signal(object, int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watcher: Any = None
        self._token = 0
        self.mode = "off"
        self.reason = ""
        self._paths: tuple[str, ...] = ()
        self._sig_started.connect(self._on_started)
        self._start_thread: threading.Thread | None = None
        self._pending: Any = None
        self._closed = False

    def watch(self, paths: list[str]) -> None:
        wanted = tuple(sorted(set(paths)))
        if wanted == self._paths and (self._watcher is not None or self.mode == "starting"):
            return
        self.stop()
        self._paths = wanted
        if not wanted:
            return
        self._token += 1
        self._set_mode("starting", "setting up the file watch")
        self._start_thread = threading.Thread(
            target=self._start,
            args=(wanted, self._token),
            daemon=True,
            name="skillprism-watch-start",
        )
        self._start_thread.start()

    def _start(self, paths: tuple[str, ...], token: int) -> None:
        try:
            from skillprism.core.watch import SkillWatcher

            watcher = SkillWatcher(list(paths), self.sig_changed.emit)
            self._pending = watcher  # so close() can stop it if it is never handed over
            watcher.start()
        except Exception as err:  # never let a watch failure take the window down
            if not self._closed:
                self._sig_started.emit(f"cannot watch: {err}", token)
            return
        if not self._closed:
            self._sig_started.emit(watcher, token)

    def _on_started(self, watcher: Any, token: int) -> None:
        if isinstance(watcher, str):
            if token == self._token:
                self._set_mode("off", watcher)
            return
        if token != self._token:  # superseded while starting
            threading.Thread(target=watcher.stop, daemon=True).start()
            return
        self._watcher, self._pending = watcher, None
        self._set_mode(watcher.mode, watcher.reason)
        # Anything saved while the watch was being set up produced no event: catch up once.
        self.sig_changed.emit(list(self._paths))

    def _set_mode(self, mode: str, reason: str) -> None:
        self.mode, self.reason = mode, reason
        self.sig_state.emit(mode, reason)

    def close(self) -> None:
        """Stop for good: wait for a watch still being set up (so no thread signals this object
        after it is gone) and stop whatever it started."""
        self._closed = True
        self.stop()
        thread = self._start_thread
        if thread is not None and thread.is_alive():
            thread.join(timeout=30)
        pending, self._pending = self._pending, None
        if pending is not None and pending is not self._watcher:
            pending.stop()

    def stop(self) -> None:
        self._token += 1
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self._paths = ()
        if self.mode != "off":
            self._set_mode("off", "")
