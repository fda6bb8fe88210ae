"""Installing from the window: the Where tab's Install opens a dialog that plans as the user
chooses (runtimes, scope, copy or link), shows a skill of the same name side by side and never
puts the new one over it unless Replace is ticked; nothing is written before Install; Edit → Undo
takes the install back (a replaced skill comes back)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings, Qt

from skillprism.gui.main_window import MainWindow


def skill(root: Path, name: str, description: str) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nBody.\n",
        encoding="utf-8",
    )
    return d


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    created: list[MainWindow] = []

    def make(root: Path) -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        w = MainWindow(
            roots=[str(root)],
            profile="claude-code",
            project=str(tmp_path / "project"),
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


def open_dialog(w: MainWindow, qtbot, key: str):  # type: ignore[no-untyped-def]
    w.select_skill(key)
    w.tabs.setCurrentWidget(w.where_view)
    qtbot.waitUntil(lambda: w.where_view.install.isEnabled(), timeout=20000)
    w.where_view.install.click()
    dialog = w.changes.install_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.plan is not None, timeout=20000)
    return dialog


def test_install_from_where_then_undo(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "project").mkdir()
    root = tmp_path / "work"
    skill(root, "pdf-tools", "Fills PDF forms. Use when a PDF form must be filled.")
    w = window(root)
    key = str(root / "pdf-tools" / "SKILL.md")
    dialog = open_dialog(w, qtbot, key)
    target = Path(os.environ["HOME"]) / ".claude" / "skills" / "pdf-tools" / "SKILL.md"
    assert dialog.profiles() == ["claude-code"] and dialog.scope() == "personal"
    assert str(target.parent) in dialog.plan.text and dialog.plan.todo == 1
    assert not target.exists()  # planned, nothing written

    # a second runtime: planned again, both targets shown
    for row in range(dialog.runtime_list.count()):
        item = dialog.runtime_list.item(row)
        if item.data(Qt.ItemDataRole.UserRole + 1) == "codex":
            item.setCheckState(Qt.CheckState.Checked)
    qtbot.waitUntil(
        lambda: dialog.plan is not None and sorted(dialog.profiles()) == ["claude-code", "codex"],
        timeout=20000,
    )
    qtbot.waitUntil(lambda: dialog.plan is not None and "Codex" in dialog.plan.text, timeout=20000)
    assert not target.exists()

    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000) as done:
        dialog.install_button.click()
    assert target.read_text(encoding="utf-8").startswith("---\nname: pdf-tools")
    assert target.parent.resolve() != (root / "pdf-tools").resolve()  # a copy, not the source
    assert len(done.args[0].paths) >= 2  # Claude Code's folder and Codex's
    assert w.act_undo.isEnabled() and "Install" in w.act_undo.text()

    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        w.undo()
    assert not target.exists()
    assert (root / "pdf-tools" / "SKILL.md").exists()  # the source is never touched


def test_a_skill_of_the_same_name_is_shown_and_kept_unless_replace(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "project").mkdir()
    home = Path(os.environ["HOME"])
    there = skill(home / ".claude" / "skills", "notes", "The notes skill already installed.")
    before = (there / "SKILL.md").read_bytes()
    root = tmp_path / "work"
    skill(root, "notes", "A new notes skill under review.")
    w = window(root)
    dialog = open_dialog(w, qtbot, str(root / "notes" / "SKILL.md"))
    plan = dialog.plan
    assert "The notes skill already installed." in plan.text
    assert "A new notes skill under review." in plan.text
    assert plan.todo == 0 and plan.blocked == 1 and not dialog.install_button.isEnabled()
    assert "keeps using the skill already there" in plan.text

    dialog.replace.setChecked(True)
    qtbot.waitUntil(lambda: dialog.plan is not None and dialog.plan.todo == 1, timeout=20000)
    assert dialog.install_button.isEnabled() and "uses the new copy" in dialog.plan.text
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        dialog.install_button.click()
    assert b"under review" in (there / "SKILL.md").read_bytes()

    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        w.undo()
    assert (there / "SKILL.md").read_bytes() == before  # the replaced skill is back


def test_installed_copies_show_a_stale_one_and_update_it(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "project").mkdir()
    root = tmp_path / "work"
    source = skill(root, "notes", "Keeps notes. Use when asked to note something.")
    w = window(root)
    dialog = open_dialog(w, qtbot, str(source / "SKILL.md"))
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        dialog.install_button.click()
    copy = Path(os.environ["HOME"]) / ".claude" / "skills" / "notes" / "SKILL.md"
    assert copy.exists()

    w.act_installed.trigger()
    updates = w.changes.update_dialog
    qtbot.waitUntil(lambda: updates.plan is not None, timeout=20000)
    assert "up-to-date" in updates.plan.text and not updates.update_button.isEnabled()
    updates.close()

    (source / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Keeps better notes.\n---\n# notes\n", encoding="utf-8"
    )
    w.act_installed.trigger()
    updates = w.changes.update_dialog
    qtbot.waitUntil(lambda: updates.plan is not None, timeout=20000)
    assert "stale" in updates.plan.text and updates.plan.todo == 1
    assert b"better" not in copy.read_bytes()  # shown, not written
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        updates.update_button.click()
    assert b"Keeps better notes." in copy.read_bytes()

    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        w.undo()
    assert b"Keeps notes." in copy.read_bytes()  # the copy as it was before the update
