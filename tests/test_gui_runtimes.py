"""Thirty runtimes stay usable: the runtime picker groups them by how well each is known and names
the level and provenance; Compare Runtimes can search them, choose all or none, and remembers the
set chosen; the matrix header names each runtime's level."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings, Qt

from skillprism.core.profiles import available_profiles
from skillprism.core.vocabulary import LEVEL_ORDER
from skillprism.engine.server import runtime_entries
from skillprism.gui.main_window import MainWindow


def _window(qtbot, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills" / "alpha"
    root.mkdir(parents=True, exist_ok=True)
    (root / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Does alpha. Use when asked.\n---\nBody.\n",
        encoding="utf-8",
    )
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root.parent)],
        profile="claude-code",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    w.live = False
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
        w.reload()
    qtbot.waitUntil(lambda: bool(w.runtimes), timeout=30000)  # the engine lists them
    return w


def test_entries_are_grouped_by_level() -> None:
    entries = runtime_entries()
    assert {e.name for e in entries} == set(available_profiles())
    ranks = [LEVEL_ORDER.index(e.level) for e in entries]
    assert ranks == sorted(ranks)


def test_picker_and_matrix_name_levels_and_remember_the_set(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w = _window(qtbot, tmp_path)
    try:
        combo = w.profile_combo
        names = [combo.itemData(i) for i in range(combo.count()) if combo.itemData(i)]
        assert set(names) == set(available_profiles())
        headers = [combo.itemText(i) for i in range(combo.count()) if not combo.itemData(i)]
        assert headers and all(h.startswith("— ") for h in headers)
        i = combo.findData("oh-my-pi")
        assert "verified" in combo.itemText(i)
        assert "verified against" in combo.itemData(i, Qt.ItemDataRole.ToolTipRole)
        m = w.matrix
        m.search.setText("codex")
        visible = [
            m.profiles.item(r).data(Qt.ItemDataRole.UserRole)
            for r in range(m.profiles.count())
            if not m.profiles.item(r).isHidden()
        ]
        assert visible == ["codex"]
        m.search.setText("")
        m.set_chosen(["codex", "pi"])
        with qtbot.waitSignal(w.engine.sig_answer, timeout=30000):
            m.compare()
        qtbot.waitUntil(lambda: m.model.matrix is not None, timeout=30000)
        header = m.model.headerData(1, Qt.Orientation.Horizontal)
        assert "(" in header and ")" in header  # the level under the name
        assert w.settings.value("matrix_runtimes", [], list) == ["codex", "pi"]
    finally:
        w.shutdown()
    again = _window(qtbot, tmp_path)
    try:
        assert sorted(again.matrix.chosen()) == ["codex", "pi"]
        # and the comparison itself comes back when its tab is shown
        again.matrix_dock.raise_()
        qtbot.waitUntil(lambda: again.matrix.model.matrix is not None, timeout=30000)
        assert again.matrix.model.matrix.profiles == ("codex", "pi")
    finally:
        again.shutdown()


def test_matrix_filters_skills_freezes_their_column_and_marks_warnings(
    qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from skillprism.core.matrix import MatrixCell, MatrixRow
    from skillprism.engine.prepare import matrix_view
    from skillprism.gui.matrix_view import MatrixView

    view = MatrixView()
    qtbot.addWidget(view)
    view.resize(700, 300)
    view.show()
    rows = tuple(
        MatrixRow(
            f"/s/{name}/SKILL.md",
            name,
            (
                MatrixCell("full", "", "warning" if name == "pdf-fill" else "ok", "full"),
                MatrixCell("not-discovered", "too deep", "not-discovered", ""),
            ),
        )
        for name in ("pdf-fill", "csv-clean", "pdf-merge")
    )
    from skillprism.core.matrix import Matrix

    view.show_matrix(matrix_view(Matrix(("codex", "pi"), ("OpenAI Codex", "pi"), rows)))
    assert not view.frozen.isColumnHidden(0) and view.frozen.isColumnHidden(1)
    assert view.table.isColumnHidden(0) and not view.table.isColumnHidden(1)
    cells = {view.model.index(r, 0).data(): view.model.index(r, 1).data() for r in range(3)}
    assert cells["pdf-fill"] == "full ⚠" and cells["csv-clean"] == "full"
    view.skill_filter.setText("pdf")
    qtbot.waitUntil(lambda: view.proxy.rowCount() == 2, timeout=5000)
    clicked: list[tuple[str, str]] = []
    view.sig_select.connect(lambda key, profile: clicked.append((key, profile)))
    view._on_clicked(view.proxy.index(1, 2))  # through the filter: the right skill and runtime
    assert clicked == [("/s/pdf-merge/SKILL.md", "pi")]
    view.table.verticalScrollBar().setValue(0)
    assert view.frozen.verticalScrollBar().value() == view.table.verticalScrollBar().value()


def test_runtime_details_show_the_chosen_runtimes_sheet_and_follow_the_picker(
    qtbot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from skillprism.gui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(tmp_path)],
        profile="copilot-cli",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    w.live = False
    try:
        qtbot.waitUntil(lambda: bool(w.runtimes), timeout=30000)  # the engine lists them
        w.act_runtime_details.trigger()  # the sheet is made in the engine
        qtbot.waitUntil(lambda: w._details is not None, timeout=30000)
        dialog, browser = w._details
        assert "GitHub Copilot CLI" in dialog.windowTitle()
        text = browser.toPlainText()
        assert "Known differences from the runtime" in text and "Sources" in text
        assert "1.0.102" in text
        w.profile_combo.setCurrentIndex(w.profile_combo.findData("codex"))
        qtbot.waitUntil(lambda: "Codex" in dialog.windowTitle(), timeout=30000)
        assert "0.169.0" in browser.toPlainText()
    finally:
        w.shutdown()


def test_the_picker_shows_the_whole_name_and_level_of_its_runtime(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Sized once the runtimes are listed, not at its first show (when it held one name): wide
    enough for its longest entry, so the level after the name ("· partly verified") is not cut
    off whichever runtime is chosen."""
    w = _window(qtbot, tmp_path)
    try:
        combo = w.profile_combo
        longest = max(
            (combo.itemText(i) for i in range(combo.count()) if combo.itemData(i)), key=len
        )
        qtbot.waitUntil(
            lambda: combo.width() > combo.fontMetrics().horizontalAdvance(longest), timeout=5000
        )
    finally:
        w.shutdown()
