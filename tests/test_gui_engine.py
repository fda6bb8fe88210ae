"""The window as a client of its engine process: killed mid-session, the engine is reported
within a second, the window keeps what it shows, a restart brings back the same place, and no
process of the old engine is left."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings
from test_engine import _alive, _descendants

from skillprism.gui.main_window import MainWindow
from skillprism.gui.tree_model import KEY_ROLE


def _skill(root: Path, name: str) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name}. Use when asked.\n---\n# {name}\n\nBody.\n",
        encoding="utf-8",
    )
    return d


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_killed_engine_is_said_kept_on_screen_and_restarted_in_place(
    qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    for name in ("alpha", "beta", "gamma"):
        _skill(root, name)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="agentskills",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    w.resize(1100, 700)
    w.show()
    try:
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.reload()
        key = str(root / "beta" / "SKILL.md")
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w.select_skill(key)
        w.filter_edit.setText("beta gamma")  # no skill matches both words... then one that does
        w.filter_edit.setText("beta")
        qtbot.waitUntil(lambda: w.tree_model.filtered, timeout=10000)
        pid = w.engine.pid
        family = _descendants(pid)
        overview = w.overview.toPlainText()

        died: list[str] = []
        w.engine.sig_died.connect(died.append)
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        qtbot.waitUntil(lambda: bool(died), timeout=5000)
        assert time.monotonic() - killed_at < 1.5  # said within a second (and a little slack)
        assert "SIGKILL" in died[0]
        assert w.banner.isVisible() and "SIGKILL" in w.banner.label.text()
        # what it showed is still there
        assert w.overview.toPlainText() == overview
        assert w.tree.currentIndex().data(KEY_ROLE) == key
        assert "Not watching" in w.watch_label.text()
        # asking a dead engine fails at once, with the reason, not silently
        failed: list[object] = []
        w.engine.sig_failed.connect(lambda _kind, failure: failed.append(failure))
        w.engine.request("where", key, False)
        qtbot.waitUntil(lambda: bool(failed), timeout=2000)

        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.banner.restart.click()
        assert w.engine.pid != pid and not w.banner.isVisible()
        assert w.selected_key == key and w.tree.currentIndex().data(KEY_ROLE) == key
        assert w.tree_model.filtered  # the filter came back with the set
        qtbot.waitUntil(lambda: w.watch_mode[0] in ("native", "polling"), timeout=10000)
        deadline = time.monotonic() + 10
        while _alive([pid, *family]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive([pid, *family])  # no orphan of the old engine
    finally:
        w.shutdown()
    assert not _alive([w.engine.pid]) if w.engine.pid else True


def test_an_unexpected_error_offers_its_details_for_a_bug_report(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from skillprism.engine.views import Failure

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(tmp_path)],
        profile="agentskills",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    w.show()
    try:
        assert not w.failure.button.isVisible()
        failure = Failure(
            "Skill Prism failed: RuntimeError: boom",
            "Traceback (most recent call last):\n  boom",
            "/x/engine.log",
        )
        w._on_request_failed("tier1", failure)
        assert w.failure.button.isVisible()
        text = w.failure.report_text()
        assert "RuntimeError: boom" in text and "Traceback" in text
        w.failure.open()
        assert not w.failure.button.isVisible()
    finally:
        w.shutdown()
