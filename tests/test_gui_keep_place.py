"""The window keeps the user's place: a save keeps the selection, the scroll positions of Overview
and Source and the file open in Files; a renamed folder keeps the selection; filtering keeps a
selection that still matches; the last selection comes back on the next start."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings

from skillprism.gui.main_window import MainWindow
from skillprism.gui.tree_model import KEY_ROLE


def _skill(root: Path, name: str, lines: int = 3, description: str = "") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    body = "\n".join(f"Line {i} of {name}." for i in range(lines))
    text = description or f"Does {name} things. Use when asked."
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {text}\n---\n# {name}\n\n{body}\n", encoding="utf-8"
    )
    return d


def _window(qtbot, tmp_path: Path, roots: list[str]) -> MainWindow:  # type: ignore[no-untyped-def]
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=roots, profile="agentskills", project=str(tmp_path), dark=False, settings=settings
    )
    w.live = False  # the test drives refreshes itself, as the watcher would
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
        w.reload()
    return w


def _refresh(qtbot, w: MainWindow, *paths: Path) -> None:  # type: ignore[no-untyped-def]
    with (
        qtbot.waitSignal(w.sig_catalog_applied, timeout=30000),
        qtbot.waitSignal(w.sig_skill_shown, timeout=30000),
    ):
        w.files_changed([str(p) for p in paths])


def test_a_save_keeps_selection_scroll_and_open_file(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    long = _skill(root, "long", lines=400)
    (long / "references").mkdir()
    (long / "references" / "notes.md").write_text("Notes to keep open.\n", encoding="utf-8")
    other = _skill(root, "other")
    w = _window(qtbot, tmp_path, [str(root)])
    try:
        key = str(long / "SKILL.md")
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w.select_skill(key)
        w.tabs.setCurrentWidget(w.source)
        w.source.verticalScrollBar().setValue(200)
        w.tabs.setCurrentWidget(w.overview)
        w.overview.verticalScrollBar().setValue(300)
        source_at = w.source.verticalScrollBar().value()
        overview_at = w.overview.verticalScrollBar().value()
        assert source_at > 0 and overview_at > 0
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w._show_file(str(long / "references" / "notes.md"))
        assert "Notes to keep open." in w.files_view.toPlainText()
        # another skill saved, then this one
        (other / "SKILL.md").write_text(
            "---\nname: other\ndescription: Changed. Use when asked.\n---\nNew.\n", encoding="utf-8"
        )
        _refresh(qtbot, w, other / "SKILL.md")
        text = (long / "SKILL.md").read_text(encoding="utf-8")
        (long / "SKILL.md").write_text(text + "\nOne more line.\n", encoding="utf-8")
        _refresh(qtbot, w, long / "SKILL.md")
        assert w.selected_key == key
        assert w.tree.currentIndex().data(KEY_ROLE) == key
        assert w.source.verticalScrollBar().value() == source_at
        assert w.overview.verticalScrollBar().value() == overview_at
        assert "Notes to keep open." in w.files_view.toPlainText()
        assert "One more line." in w.source.toPlainText()
    finally:
        w.shutdown()


def test_a_renamed_folder_keeps_the_selection(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    _skill(root, "alpha")
    d = _skill(root, "beta", description="The one to follow. Use when asked.")
    w = _window(qtbot, tmp_path, [str(root)])
    try:
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w.select_skill(str(d / "SKILL.md"))
        os.rename(d, root / "beta-renamed")
        _refresh(qtbot, w, d, root / "beta-renamed")
        assert w.selected_key == str(root / "beta-renamed" / "SKILL.md")
    finally:
        w.shutdown()


def test_filtering_keeps_a_selection_that_still_matches(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    d = _skill(root, "pdf-tools")
    _skill(root, "csv-tools")
    w = _window(qtbot, tmp_path, [str(root)])
    try:
        key = str(d / "SKILL.md")
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w.select_skill(key)
        w.filter_edit.setText("pdf")
        qtbot.waitUntil(lambda: w.tree_model.filtered, timeout=10000)
        assert w.selected_key == key
        assert w.tree.currentIndex().data(KEY_ROLE) == key
    finally:
        w.shutdown()


def test_the_last_selection_comes_back_on_the_next_start(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    _skill(root, "alpha")
    d = _skill(root, "beta")
    w = _window(qtbot, tmp_path, [str(root)])
    with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
        w.select_skill(str(d / "SKILL.md"))
    w.close()
    again = _window(qtbot, tmp_path, [str(root)])
    try:
        assert again.selected_key == str(d / "SKILL.md")
        assert "skills" in again.windowTitle() and "Agent Skills" in again.windowTitle()
    finally:
        again.shutdown()


def test_the_restored_selection_is_shown_in_the_middle_of_the_tree(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    names = [f"skill-{i:03d}" for i in range(120)]
    for name in names:
        _skill(root, name)
    key = str(root / names[90] / "SKILL.md")
    w = _window(qtbot, tmp_path, [str(root)])
    with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
        w.select_skill(key)
    w.close()
    again = _window(qtbot, tmp_path, [str(root)])
    try:
        assert again.selected_key == key
        rect = again.tree.visualRect(again.tree.currentIndex())
        height = again.tree.viewport().height()
        # in the middle, not on the bottom edge where scrolling just far enough would leave it
        assert height / 4 < rect.center().y() < height * 3 / 4
    finally:
        again.shutdown()
