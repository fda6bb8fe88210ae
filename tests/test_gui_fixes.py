"""Quick fixes in the window: a finding with a fix shows a light bulb; Quick Fix… shows the fixes
with their diffs; Apply writes them (and only then), the set is rescanned and the finding is gone;
Edit → Undo puts the file back byte for byte; a file changed after the offer is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings, Qt

from skillprism.gui.main_window import MainWindow

SKILL = "---\r\nname: Old Name\r\ndescription: Does one thing.\r\n---\r\nBody.\r\n"


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    created: list[MainWindow] = []

    def make(root: Path) -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        w = MainWindow(
            roots=[str(root)],
            profile="agentskills",
            project=str(tmp_path),
            dark=False,
            settings=settings,
        )
        qtbot.addWidget(w)
        w.resize(1200, 800)
        w.show()
        created.append(w)
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
            w.reload()
        return w

    yield make
    for w in created:
        w.shutdown()


def codes(w: MainWindow) -> set[str]:
    return {row.diagnostic.code for row in w.loaded.problems} if w.loaded else set()


def select_problem(w: MainWindow, code: str) -> None:
    panel = w.problems_panel
    for r in range(panel.proxy.rowCount()):
        index = panel.proxy.index(r, 1)
        if index.data() == code:
            panel.table.setCurrentIndex(index)
            panel.table.selectRow(r)
            return
    raise AssertionError(f"no {code} row")


def test_fix_preview_apply_and_undo(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    (root / "tidy").mkdir(parents=True)
    target = root / "tidy" / "SKILL.md"
    target.write_bytes(SKILL.encode())
    w = window(root)
    assert "SP208" in codes(w) or "SP203" in codes(w)
    code = "SP208" if "SP208" in codes(w) else "SP203"
    select_problem(w, code)
    index = w.problems_panel.table.currentIndex()
    bulb = index.data(Qt.ItemDataRole.DecorationRole)  # the code column of a fixable finding
    assert bulb is not None and not bulb.isNull()
    assert w.problems_panel.act_fix.isEnabled()
    with qtbot.waitSignal(w.sig_fixes_shown, timeout=20000):
        w.problems_panel.act_fix.trigger()
    dialog = w.changes.fix_dialog
    assert dialog is not None and dialog.list.count() >= 1
    assert (
        "name: tidy" in dialog.diff.toPlainText() and "-name: Old Name" in dialog.diff.toPlainText()
    )
    assert target.read_bytes() == SKILL.encode()  # nothing written by offering or previewing
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000) as done:
        dialog.apply.click()
    assert done.args[0].paths == (str(target.resolve()),)
    fixed = target.read_bytes()
    assert b"name: tidy\r\n" in fixed and fixed.count(b"\r\n") == SKILL.count("\r\n")
    qtbot.waitUntil(lambda: code not in codes(w), timeout=20000)  # the view followed
    assert w.act_undo.isEnabled() and "Fixes" in w.act_undo.text()
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        w.act_undo.trigger()
    assert target.read_bytes() == SKILL.encode()
    qtbot.waitUntil(lambda: code in codes(w), timeout=20000)


def test_a_file_changed_after_the_offer_is_refused(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    (root / "tidy").mkdir(parents=True)
    target = root / "tidy" / "SKILL.md"
    target.write_bytes(SKILL.encode())
    w = window(root)
    with qtbot.waitSignal(w.sig_fixes_shown, timeout=20000):
        w.quick_fix(w.loaded.skills[0].key)
    dialog = w.changes.fix_dialog
    for i in range(dialog.list.count()):  # (fixes to review start unchecked)
        dialog.list.item(i).setCheckState(Qt.CheckState.Checked)
    theirs = SKILL.replace("Does one thing.", "Does another thing.").encode()
    target.write_bytes(theirs)
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000) as done:
        dialog.apply.click()
    assert done.args[0].refused and "Does another thing." in done.args[0].refused[0][1]
    assert target.read_bytes() == theirs
    assert not w.act_undo.isEnabled()


def test_turning_a_skill_off_for_a_runtime_is_confirmed_written_and_undone(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os

    from PySide6.QtWidgets import QMessageBox

    root = tmp_path / "skills"
    (root / "tidy").mkdir(parents=True)
    (root / "tidy" / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidies things.\n---\nBody.\n", encoding="utf-8"
    )
    config = tmp_path / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "o3"\n', encoding="utf-8")
    os.environ["CODEX_HOME"] = str(config.parent)  # (the engine process reads it too)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)], profile="codex", project=str(tmp_path), dark=False, settings=settings
    )
    qtbot.addWidget(w)
    w.show()
    try:
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
            w.reload()
        w.select_skill(w.loaded.skills[0].key)
        with qtbot.waitSignal(w.sig_toggle_planned, timeout=20000) as planned:
            w.act_turn_off.trigger()
        plan = planned.args[0]
        assert plan.path == str(config) and "enabled = false" in plan.diff
        assert config.read_text(encoding="utf-8") == '# mine\nmodel = "o3"\n'  # asked first
        with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
            w.changes.confirm_box.button(QMessageBox.StandardButton.Yes).click()
        written = config.read_text(encoding="utf-8")
        assert written.startswith('# mine\nmodel = "o3"\n') and "enabled = false" in written
        assert "Turn Off tidy" in w.act_undo.text()
        with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
            w.act_undo.trigger()
        assert config.read_text(encoding="utf-8") == '# mine\nmodel = "o3"\n'
    finally:
        os.environ.pop("CODEX_HOME", None)
        w.shutdown()


def test_the_source_gutter_light_bulb_offers_the_fixes_of_its_line(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    root = tmp_path / "skills"
    (root / "tidy").mkdir(parents=True)
    (root / "tidy" / "SKILL.md").write_bytes(SKILL.encode())
    w = window(root)
    with qtbot.waitSignal(w.sig_skill_shown, timeout=20000):
        w.select_skill(w.loaded.skills[0].key)
    w.tabs.setCurrentWidget(w.source)
    source = w.source
    line = next(n for n in range(1, 6) if source.fixable_at(n))
    assert source.fixable_at(line) in ("SP208", "SP203", "SP204", "SP207")
    assert "light bulb" in source.mark_at(line)
    block = source.document().findBlockByNumber(line - 1)
    y = int(source.blockBoundingGeometry(block).translated(source.contentOffset()).top()) + 3
    with qtbot.waitSignal(w.sig_fixes_shown, timeout=20000) as shown:
        QTest.mouseClick(source._gutter, Qt.MouseButton.LeftButton, pos=QPoint(24, y))
    assert shown.args[0].rows and w.changes.fix_dialog is not None
