"""Reviewing a repository in the window: a folder that holds plugins and collections is shown as
installed into the project's skills folder (as `check --install-into project` does), and the
plain view is one menu choice away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings

from skillprism.app.workspace import Workspace
from skillprism.gui.main_window import MainWindow


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name} things. Use when asked.\n---\nBody.\n",
        encoding="utf-8",
    )


def test_a_repository_opens_as_installed_and_switches_back(qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo, project = tmp_path / "repo", tmp_path / "project"
    plugin = repo / "plugins" / "pdfkit"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "pdfkit", "version": "1.0.0"}), encoding="utf-8"
    )
    _skill(plugin / "skills" / "pdf-fill", "pdf-fill")
    _skill(repo / "skills" / "notes", "notes")
    project.mkdir()
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(repo)],
        profile="claude-code",
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
        assert w.install_into == ""
        # File → Open Folder (and `gui PATH`) on a repository: the engine finds installable
        # units, and the window shows them as installed into the project, in one scan
        opened: list[object] = []
        w.sig_catalog_applied.connect(
            lambda view: view.refresh != "risks" and opened.append(view)  # not a read of the set
        )
        w.open_paths([str(repo)])
        qtbot.waitUntil(lambda: bool(opened), timeout=30000)
        qtbot.wait(200)
        assert len(opened) == 1
        assert w.install_into == "project"
        assert w.install_actions["project"].isChecked()
        assert "as installed" in w.windowTitle()
        expected = Workspace(
            str(project), [str(repo)], ["claude-code"], install_into="project"
        ).catalog("claude-code")
        assert w.loaded is not None
        shown = [(s.name, s.status, w.loaded.roots[s.root].path) for s in w.loaded.skills]
        assert shown == [
            (s.qualified_name or s.name, s.status, s.root.path) for s in expected.skills
        ]
        assert "pdf-fill" in {s.name for s in w.loaded.skills}  # plugins as plain skills
        # the plain view, one click away
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.install_actions[""].trigger()
        assert w.install_into == "" and "as installed" not in w.windowTitle()
    finally:
        w.shutdown()
