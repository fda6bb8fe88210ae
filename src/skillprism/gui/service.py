"""The file watcher adapted to Qt signals (the pipeline itself runs in gui/controller.py)."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal


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
