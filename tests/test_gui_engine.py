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

from skillprism.engine.server import ENGINE_NICENESS
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
        # background work: the engine gives the window the processor first
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(ours + ENGINE_NICENESS, 19)
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


def test_reloads_do_not_grow_the_window(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import gc

    root = tmp_path / "skills"
    for i in range(200):
        _skill(root, f"skill-{i:03d}")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="claude-code",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    w.live = False
    qtbot.addWidget(w)
    w.show()
    try:
        counts = []
        for _ in range(5):
            with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
                w.reload()
            qtbot.wait(50)
            gc.collect()
            counts.append(len(gc.get_objects()))
        assert max(counts[1:]) - min(counts[1:]) < counts[1] * 0.02, counts
    finally:
        w.shutdown()


def test_a_launch_reads_the_set_once(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The set is shown once: the rescan after the watch is set up finds nothing new and sends
    nothing (issue: every launch scanned twice)."""
    root = tmp_path / "skills"
    for name in ("alpha", "beta"):
        _skill(root, name)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="claude-code",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    w.show()
    try:
        loads: list[object] = []
        w.sig_catalog_applied.connect(loads.append)
        w.reload()
        qtbot.waitUntil(lambda: w.watch_mode[0] in ("native", "polling"), timeout=30000)
        qtbot.waitUntil(lambda: bool(loads), timeout=30000)
        qtbot.wait(1500)  # a catch-up rescan would arrive by now

        def reads() -> list[object]:  # the risks filling in is not a read of the set
            return [v for v in loads if getattr(v, "refresh", "") != "risks"]

        assert len(reads()) == 1
        _skill(root, "gamma")  # and the watch is live
        qtbot.waitUntil(lambda: len(reads()) == 2, timeout=15000)
        assert {s.name for s in w.loaded.skills} == {"alpha", "beta", "gamma"}
    finally:
        w.shutdown()


def test_a_first_start_picks_the_runtime_the_set_is_laid_out_for(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """No runtime chosen yet (a first start) on the demo set, which holds .claude/skills folders:
    it is shown as Claude Code sees it, and the status bar says why (issue: it opened under the
    specification's profile, with Claude Code's fields as red errors)."""
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=None,
        profile="agentskills",
        project=str(tmp_path),
        dark=False,
        settings=settings,
        choose_profile=True,
    )
    w.live = False
    qtbot.addWidget(w)
    w.show()
    try:
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.reload()
        assert w.profile == "claude-code" and w.loaded.spec.profile == "claude-code"
        assert "demo" in w.roots[0] or w.roots[0].endswith("skills")
        assert "Claude Code" in w.statusBar().currentMessage()
    finally:
        w.shutdown()


def test_the_layout_runtime_is_the_most_specific_reader(tmp_path: Path) -> None:
    from skillprism.core.installed import layout_runtime

    (tmp_path / "a" / ".gemini" / "skills").mkdir(parents=True)
    (tmp_path / "b" / ".claude" / "skills").mkdir(parents=True)
    reads = {
        "claude": frozenset({(".claude", "skills")}),
        "many": frozenset({(".claude", "skills"), (".agents", "skills")}),
        "gemini": frozenset({(".gemini", "skills"), (".agents", "skills")}),
    }
    assert layout_runtime([str(tmp_path / "b")], reads)[0] == "claude"
    assert layout_runtime([str(tmp_path / "a")], reads)[0] == "gemini"
    assert layout_runtime([str(tmp_path)], reads) == ("", "")  # nobody reads both
    assert layout_runtime([str(tmp_path / "none")], reads) == ("", "")


def test_the_projects_own_settings_are_said_and_a_reviewer_can_set_them_aside(
    qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A folder's .skillprism.toml that hides findings is named in the window, never silently;
    View → Ignore the Folder's Own Settings shows what it hid (issue 22, item 2)."""
    project = tmp_path / "repo"
    root = project / "skills"
    d = _skill(root, "alpha")
    (d / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Does alpha. Use when asked.\nbogus: 1\n---\nBody.\n",
        encoding="utf-8",
    )
    (project / ".skillprism.toml").write_text('ignore_codes = ["SP216"]\n', encoding="utf-8")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="agentskills",
        project=str(project),
        dark=False,
        settings=settings,
    )
    w.live = False
    qtbot.addWidget(w)
    w.show()
    try:
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.reload()
        assert w.problems_model.rowCount() == 0
        assert "relax" in w.settings_label.text()
        assert ".skillprism.toml" in w.settings_label.toolTip()
        assert "SP216" in w.settings_label.toolTip()
        assert "own settings relax" in w.problems_panel.placeholder()
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.act_reviewer.setChecked(True)
        codes = {w.problems_model.diagnostic(r).code for r in range(w.problems_model.rowCount())}
        assert "SP216" in codes
        assert "Reviewer's mode" in w.settings_label.text()
        assert settings.value("project_settings", True, bool) is False
    finally:
        w.shutdown()
