"""The self-test's checks of the window (cli/selftest.py runs them after the checks that need no
window): the Qt binding, the main window on the demo set through its engine process, a preview,
and a file-watch round trip in a temporary folder. The window is offscreen; its settings go to a
temporary file."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillprism import APP_ID

WINDOW_TIMEOUT_S = 30.0  # the first scan starts the engine and its worker processes
WATCH_TIMEOUT_S = 15.0  # polling fallback checks once a second


class WindowChecks:
    """The window's checks in order; they share one QApplication and one MainWindow. Failures
    raise `failure` (the driver's SelfTestFailure)."""

    def __init__(self, tmp: str, failure: type[Exception], screenshot: str = "") -> None:
        self.tmp = tmp
        self.failure = failure
        self.screenshot = screenshot
        self._app: Any = None
        self._window: Any = None

    def _wait(self, condition: Callable[[], bool], timeout: float) -> bool:
        from PySide6.QtCore import QEventLoop, QTimer

        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                return False
            loop = QEventLoop()
            QTimer.singleShot(20, loop.quit)
            loop.exec()
        return True

    def check_binding(self) -> str:
        """The Qt binding does not over-release None (or the app's guard covers it)."""
        from PySide6 import __version__ as pyside_version

        from skillprism.gui.none_guard import guard_none, none_is_mortal, void_calls_leak_none

        if not none_is_mortal():
            return f"PySide6 {pyside_version}: None is immortal on this Python"
        if not void_calls_leak_none():
            return f"PySide6 {pyside_version}: void calls keep None's reference count"
        guard_none()
        if void_calls_leak_none() and sys.getrefcount(None) < 1 << 40:
            raise self.failure(f"PySide6 {pyside_version} drops None references, unguarded")
        return f"PySide6 {pyside_version} drops None references; the app's guard covers it"

    def check_window(self) -> str:
        from PySide6.QtCore import QSettings
        from PySide6.QtGui import QGuiApplication

        from skillprism.gui.app import make_application, quiet_platform_noise
        from skillprism.gui.main_window import MainWindow
        from skillprism.paths import demo_skills_dir

        quiet_platform_noise()
        self._app = make_application()
        if QGuiApplication.desktopFileName() != APP_ID:
            raise self.failure(f"desktop file name is {QGuiApplication.desktopFileName()!r}")
        if self._app.windowIcon().isNull():
            raise self.failure("the application icon did not load (SVG icon engine missing?)")
        settings = QSettings(os.path.join(self.tmp, "settings.ini"), QSettings.Format.IniFormat)
        window = self._window = MainWindow(
            roots=[str(demo_skills_dir())],
            profile="agentskills",
            project=self.tmp,
            dark=False,
            settings=settings,
        )
        window.resize(1280, 800)
        window.show()
        window.reload()
        if not self._wait(
            lambda: window.loaded is not None or window.engine.dead, WINDOW_TIMEOUT_S
        ):
            raise self.failure(f"the first scan did not arrive within {WINDOW_TIMEOUT_S:.0f} s")
        if window.engine.dead:
            raise self.failure(window.engine.dead)
        rows = window.tree_model.rowCount()
        skills = len(window.skills)
        if rows == 0 or skills == 0:
            raise self.failure(f"the tree is empty ({rows} roots, {skills} skills)")
        return (
            f"main window ({QGuiApplication.platformName()}) shows the demo set from its engine "
            f"process (pid {window.engine.pid}): {rows} roots, {skills} skills"
        )

    def check_preview(self) -> str:
        window = self._window
        if window is None or window.loaded is None:
            raise self.failure("no window to preview in (see the window check)")
        skill = next((s for s in window.skills.values() if s.status in ("ok", "warning")), None)
        if skill is None:
            raise self.failure("no active skill to preview")
        shown: list[str] = []
        window.sig_skill_shown.connect(shown.append)
        window.select_skill(skill.key)  # its pages are prepared in the engine
        if not self._wait(lambda: skill.key in shown, WINDOW_TIMEOUT_S):
            raise self.failure(f"the pages of {skill.name!r} did not arrive")
        text = window.overview.toPlainText()
        if skill.name not in text:
            raise self.failure(f"the overview does not show {skill.name!r}")
        if not window.source.toPlainText().strip():
            raise self.failure("the Source tab is empty")
        picture = window.grab()
        if picture.isNull() or picture.width() < 100:
            raise self.failure("the window did not render")
        if self.screenshot and not picture.save(self.screenshot, "PNG"):
            raise self.failure(f"could not write the screenshot to {self.screenshot}")
        saved = f", saved to {self.screenshot}" if self.screenshot else ""
        return f"overview and source of {skill.name!r} rendered ({picture.width()}x{picture.height()}{saved})"

    def check_watcher(self) -> str:
        window = self._window
        if window is None:
            raise self.failure("no window to watch with (see the window check)")
        root = Path(self.tmp) / "skills"
        _write_skill(root, "alpha")
        window.set_roots([str(root)])
        if not self._wait(
            lambda: (
                _names(window) == {"alpha"}
                and window.loaded is not None
                and not window.loaded.risks_pending
            ),  # its risks in: the view is complete
            WINDOW_TIMEOUT_S,
        ):
            raise self.failure(f"the temporary skill set did not load (saw {_names(window)})")
        if not self._wait(lambda: window.watch_mode[0] in ("native", "polling"), WATCH_TIMEOUT_S):
            raise self.failure(f"the watcher did not start (mode {window.watch_mode[0]!r})")
        updates: list[tuple[str, ...]] = []
        window.sig_catalog_applied.connect(lambda loaded: updates.append(loaded.changed_paths))
        beta = root / "beta"
        start = time.perf_counter()
        _write_skill(root, "beta")
        mode, reason = window.watch_mode
        if not self._wait(lambda: "beta" in _names(window), WATCH_TIMEOUT_S):
            raise self.failure(
                f"a new skill written to a watched folder did not appear within "
                f"{WATCH_TIMEOUT_S:.0f} s (watch mode {mode})"
            )
        events = [p for changed in updates for p in changed]
        if not any(Path(p) == beta or beta in Path(p).parents for p in events):
            raise self.failure(f"the new skill appeared without a file event for it ({events})")
        latency = (time.perf_counter() - start) * 1000
        how = "native events" if mode == "native" else "polling"
        return f"a new SKILL.md reached the window in {latency:.0f} ms via {how}" + (
            f" ({reason})" if reason else ""
        )

    def close(self) -> None:
        if self._window is not None:
            self._window.shutdown()
            self._window.deleteLater()
            self._window = None


def _names(window: Any) -> set[str]:
    return {s.name for s in window.skills.values()} if window.loaded is not None else set()


def _write_skill(root: Path, name: str) -> None:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: Self-test skill {name}. Use when testing.\n---\n\n# {name}\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
