"""The window's actions, toolbar and menus, built once for a MainWindow (its slots do the work).

Kept apart from gui/main_window.py so the window's class holds behaviour, not the long list of
what is in which menu."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QToolBar

if TYPE_CHECKING:
    from skillprism.gui.main_window import MainWindow


def build_actions(window: MainWindow) -> None:
    """Make the window's actions (window.act_*), its toolbar with the runtime choice and its
    menus."""

    def act(text: str, slot: Any, shortcut: Any = None, tip: str = "") -> QAction:
        a = QAction(text, window)
        a.triggered.connect(slot)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        return a

    window.act_open = act(
        "&Open Folder…",
        window.open_folder,
        QKeySequence.StandardKey.Open,
        "Show the skills in one folder",
    )
    window.act_open_skill = act(
        "Open &Skill…",
        window.open_skill,
        "Ctrl+Shift+O",
        "Open a single skill folder or SKILL.md",
    )
    window.act_add_root = act("&Add Root Folder…", window.add_root, "Ctrl+Shift+A")
    window.act_remove_root = act(
        "&Remove Root Folder",
        window.remove_root,
        None,
        "Remove the selected root folder from the set",
    )
    window.act_project = act(
        "Set &Project Folder…",
        window.set_project,
        None,
        "Use a profile's own roots for this project (clears explicit roots)",
    )
    window.act_reload = act("&Reload", window.reload)
    # F5 and the platform's Refresh key, each once: on Linux Refresh is F5 itself, and the
    # same sequence twice on one action is an "ambiguous shortcut" that does nothing.
    reload_keys = [
        QKeySequence("F5"),
        *QKeySequence.keyBindings(QKeySequence.StandardKey.Refresh),
    ]
    window.act_reload.setShortcuts(
        list({k.toString(): k for k in reload_keys if not k.isEmpty()}.values())
    )
    window.act_export = act(
        "&Export Report…",
        window.export_report,
        "Ctrl+Shift+E",
        "Write a review report (HTML or Markdown) of this skill set",
    )
    window.act_quit = act("&Quit", window.close, QKeySequence.StandardKey.Quit)
    window.act_undo = act("&Undo", window.undo, QKeySequence.StandardKey.Undo)
    window.act_undo.setEnabled(False)
    window.act_quick_fix = act(
        "&Quick Fixes…",
        lambda: window.quick_fix(),
        None,
        "The fixes offered for the selected skill, each with its diff; nothing is written until "
        "you apply",
    )
    window.act_turn_off = act(
        "Turn &Off for This Runtime…",
        lambda: window.toggle_skill(False),
        None,
        "Write the runtime's own setting that keeps the selected skill out of its listing "
        "(you see the change first)",
    )
    window.act_install = act(
        "&Install for Other Runtimes…",
        lambda: window.install(),
        None,
        "Copy or link the selected skill where the runtimes you choose find it (you see the "
        "plan, with every skill of the same name, before anything is written)",
    )
    window.act_install_folder = act(
        "Install Skills From &Folder…",
        window.install_from_folder,
        None,
        "Install a skill, a collection or a repository of plugins where the runtimes you "
        "choose find them",
    )
    window.act_installed = act(
        "Installed &Copies…",
        lambda: window.changes.update_installed(),
        None,
        "Every copy Skill Prism installed, whether it is stale against its source, and an "
        "update of the stale ones (you see it first)",
    )
    window.act_turn_on = act(
        "Turn O&n for This Runtime…",
        lambda: window.toggle_skill(True),
        None,
        "Take the selected skill out of the runtime's own setting that keeps it out of its listing",
    )
    window.act_find = act(
        "&Find", lambda: window.filter_edit.setFocus(), QKeySequence.StandardKey.Find
    )
    window.act_copy_path = act("&Copy Path", window.copy_path, "Ctrl+Shift+C")
    window.act_reveal = act("Reveal in &File Manager", window.reveal, None)
    window.act_editor = act(
        "Open in &Editor",
        window.open_in_editor,
        "Ctrl+E",
        "Open SKILL.md or a text file in your editor",
    )
    window.act_editor_cmd = act("Set Editor Command…", window.set_editor_command)
    window.act_diag_ref = act(
        "&Diagnostics Reference", lambda: window.show_diagnostics_reference(), "F1"
    )
    window.act_runtime_details = act("&Runtime Details", window.show_runtime_details)
    window.act_runtime_details.setToolTip(
        "The chosen runtime's release, how well it is known, the folders it reads, its known "
        "differences and every source"
    )
    window.act_about = act("&About Skill Prism", window.show_about)

    bar = QToolBar("Main")
    bar.setObjectName("main-toolbar")
    bar.setMovable(False)
    window.addToolBar(bar)
    bar.addWidget(QLabel(" Runtime: "))
    window.profile_combo = QComboBox()
    window.profile_combo.setMinimumContentsLength(26)
    # As wide as its longest runtime once they are listed (the first show sees only the one it
    # starts with): the level after the name ("· partly verified") is what the choice tells.
    window.profile_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    window.profile_combo.setMaxVisibleItems(24)
    # filled with every runtime once the engine lists them (_fill_runtimes)
    window.profile_combo.addItem(os.path.basename(window.profile), window.profile)
    window.profile_combo.currentIndexChanged.connect(window._on_profile_changed)
    bar.addWidget(window.profile_combo)
    bar.addSeparator()
    for a in (window.act_open, window.act_add_root, window.act_remove_root, window.act_reload):
        bar.addAction(a)

    mb = window.menuBar()
    m_file = mb.addMenu("&File")
    for a in (window.act_open, window.act_open_skill, window.act_project):
        m_file.addAction(a)
    window.recent_menu = m_file.addMenu("Open &Recent")
    m_file.addSeparator()
    for a in (window.act_add_root, window.act_remove_root, window.act_reload):
        m_file.addAction(a)
    m_file.addSeparator()
    m_file.addAction(window.act_export)
    m_file.addAction(window.act_install_folder)
    m_file.addAction(window.act_installed)
    m_file.addSeparator()
    m_file.addAction(window.act_quit)
    m_edit = mb.addMenu("&Edit")
    m_edit.addAction(window.act_undo)
    m_edit.addSeparator()
    m_edit.addAction(window.act_find)
    m_edit.addAction(window.act_copy_path)
    m_skill = mb.addMenu("&Skill")
    for a in (window.act_quick_fix, window.act_editor, window.act_reveal, window.act_editor_cmd):
        m_skill.addAction(a)
    m_skill.addSeparator()
    m_skill.addAction(window.act_turn_off)
    m_skill.addAction(window.act_turn_on)
    m_skill.addAction(window.act_install)
    m_view = mb.addMenu("&View")
    window.install_group = QActionGroup(window)
    window.install_actions: dict[str, QAction] = {}
    for mode, label, tip in (
        ("", "As &Laid Out", "Show the folders as they are"),
        (
            "personal",
            "As Installed in &Personal Skills",
            "Show the repository's skills and plugins as an installer would put them in the "
            "runtime's personal skills folder, beside what is there",
        ),
        (
            "project",
            "As Installed in P&roject Skills",
            "Show the repository's skills and plugins as an installer would put them in this "
            "project's skills folder, beside what is there",
        ),
    ):
        action = QAction(label, window, checkable=True)
        action.setStatusTip(tip)
        action.setChecked(mode == window.install_into)
        action.triggered.connect(lambda _c=False, m=mode: window.set_install_into(m))
        window.install_group.addAction(action)
        window.install_actions[mode] = action
        m_view.addAction(action)
    m_view.addSeparator()
    window.act_reviewer = QAction("Ignore the Folder's Own &Settings (Reviewer's Mode)", window)
    window.act_reviewer.setCheckable(True)
    window.act_reviewer.setChecked(not window.project_settings)
    window.act_reviewer.setStatusTip(
        "Do not apply the reviewed folder's .skillprism.toml or [tool.skillprism]: it cannot "
        "switch the security pass off or hide findings"
    )
    window.act_reviewer.toggled.connect(lambda on: window.set_project_settings(not on))
    m_view.addAction(window.act_reviewer)
    m_view.addSeparator()
    m_view.addAction(window.problems_dock.toggleViewAction())
    m_view.addAction(window.risks_dock.toggleViewAction())
    m_view.addAction(window.budget_dock.toggleViewAction())
    m_view.addAction(window.matrix_dock.toggleViewAction())
    m_view.addAction(window.trigger_dock.toggleViewAction())
    m_help = mb.addMenu("&Help")
    m_help.addAction(window.act_diag_ref)
    m_help.addAction(window.act_runtime_details)
    m_help.addAction(window.act_about)
    window._refresh_recent_menu()
