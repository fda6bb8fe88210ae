"""Defects a new user met in the window, each pinned: F5 reloads (one shortcut, not an ambiguous
pair); Remove Root Folder removes only the chosen folder, asks first and can be undone; Open in
Editor passes the line in each editor's own form and falls back to $VISUAL / $EDITOR."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox

from skillprism.gui.editor import chosen_editor, editor_argv, is_terminal_editor
from skillprism.gui.main_window import MainWindow
from skillprism.gui.tree_model import KIND_ROLE, PATH_ROLE


def _skill(root: Path, name: str) -> None:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name}. Use when asked.\n---\nBody.\n",
        encoding="utf-8",
    )


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    made: list[MainWindow] = []

    def make(roots: list[str]) -> MainWindow:
        settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
        w = MainWindow(
            roots=roots, profile="agentskills", project=str(tmp_path), dark=False, settings=settings
        )
        w.live = False
        qtbot.addWidget(w)
        w.show()
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
            w.reload()
        made.append(w)
        return w

    yield make
    for w in made:
        w.shutdown()


def test_f5_is_bound_once_and_reloads(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "a"
    _skill(root, "alpha")
    w = window([str(root)])
    keys = [k.toString() for k in w.act_reload.shortcuts()]
    assert "F5" in keys and len(keys) == len(set(keys))
    everywhere = [k.toString() for a in w.findChildren(type(w.act_reload)) for k in a.shortcuts()]
    assert everywhere.count("F5") == 1  # no other action claims it: no ambiguous overload
    _skill(root, "beta")
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
        qtbot.keyClick(w, Qt.Key.Key_F5)
    assert {s.name for s in w.loaded.skills} == {"alpha", "beta"}


def test_remove_root_removes_only_that_folder_asks_and_undoes(  # type: ignore[no-untyped-def]
    window, qtbot, tmp_path, monkeypatch
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _skill(a, "alpha")
    _skill(b, "beta")
    w = window([str(a), str(b)])
    model = w.tree_model
    root_b = next(
        model.index(r, 0)
        for r in range(model.rowCount())
        if model.index(r, 0).data(PATH_ROLE) == str(b)
    )
    assert root_b.data(KIND_ROLE) == "root"
    w.tree.setCurrentIndex(root_b)
    asked: list[str] = []

    def answer(choice):  # type: ignore[no-untyped-def]
        def ask(*args, **_kw):  # type: ignore[no-untyped-def]
            asked.append(args[2])
            return choice

        return ask

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.No))
    w.remove_root()
    assert asked and w.roots == [str(a), str(b)]  # asked, declined: nothing removed
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
        w.remove_root()
    assert w.roots == [str(a)]
    assert {s.name for s in w.loaded.skills} == {"alpha"}
    assert w.act_undo.isEnabled()
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
        w.act_undo.trigger()
    assert w.roots == [str(a), str(b)]
    assert {s.name for s in w.loaded.skills} == {"alpha", "beta"}
    assert not w.act_undo.isEnabled()


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("code", ["code", "-g", "/s/SKILL.md:12"]),
        ("codium --new-window", ["codium", "--new-window", "-g", "/s/SKILL.md:12"]),
        ("gvim", ["gvim", "+12", "/s/SKILL.md"]),
        ("emacsclient -c", ["emacsclient", "-c", "+12", "/s/SKILL.md"]),
        ("kate", ["kate", "+12", "/s/SKILL.md"]),
        ("gedit", ["gedit", "+12", "/s/SKILL.md"]),
        ("subl", ["subl", "/s/SKILL.md:12"]),
        ("zed", ["zed", "/s/SKILL.md:12"]),
        ("/opt/idea/bin/idea", ["/opt/idea/bin/idea", "--line", "12", "/s/SKILL.md"]),
        ("mousepad", ["mousepad", "/s/SKILL.md"]),
    ],
)
def test_editor_commands_take_the_line_in_their_own_form(command: str, argv: list[str]) -> None:
    assert editor_argv(command, "/s/SKILL.md", 12) == argv
    assert editor_argv(command, "/s/SKILL.md", 0)[-1] == "/s/SKILL.md"


def test_the_editor_comes_from_settings_then_visual_then_editor() -> None:
    assert chosen_editor("kate", {"VISUAL": "code", "EDITOR": "vim"})[0] == "kate"
    assert chosen_editor("", {"VISUAL": "code", "EDITOR": "vim"}) == ("code", "$VISUAL")
    assert chosen_editor(" ", {"EDITOR": "gedit"}) == ("gedit", "$EDITOR")
    assert chosen_editor("", {}) == ("", "")
    assert is_terminal_editor("vim -p") and not is_terminal_editor("gvim")
    with pytest.raises(ValueError):
        editor_argv("", "/s/SKILL.md", 3)


def test_no_editor_set_is_said_not_silent(window, qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "a"
    _skill(root, "alpha")
    w = window([str(root)])
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "vim")  # a terminal editor: the window cannot start it
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **_k: told.append(a[2]))
    with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
        w.select_skill(str(root / "alpha" / "SKILL.md"))
    w.open_in_editor()
    assert told and "$EDITOR" in told[0] and "terminal" in told[0]
    assert QKeySequence("Ctrl+E") == w.act_editor.shortcut()


def test_make_run_names_the_missing_x11_libraries_before_building(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import sys

    from skillprism.system_libraries import (
        XCB_PLATFORM_LIBRARIES,
        install_hint,
        missing_libraries,
    )

    script = Path(__file__).resolve().parents[1] / "tools" / "check_display_libs.py"
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["QT_QPA_PLATFORM"] = "xcb"
    # the system's python3, as `make run` runs it: no virtual environment needed
    run = subprocess.run(
        [sys.executable, "-I", str(script)], env=env, capture_output=True, text=True, check=False
    )
    missing = missing_libraries(XCB_PLATFORM_LIBRARIES)
    if missing:
        assert run.returncode == 1
        assert install_hint(missing) in run.stderr
    else:
        assert run.returncode == 0 and run.stderr == ""
    offscreen = subprocess.run(
        [sys.executable, "-I", str(script)],
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        check=False,
    )
    assert offscreen.returncode == 0


def test_a_png_is_named_as_an_image_not_text(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import struct
    import zlib

    root = tmp_path / "a"
    _skill(root, "alpha")
    assets = root / "alpha" / "assets"
    assets.mkdir()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
        + chunk(
            b"IDAT", zlib.compress(b"\x00" + b"\xff\x00\x00" * 2 + b"\x00" + b"\x00\xff\x00" * 2)
        )
        + chunk(b"IEND", b"")
    )
    (assets / "logo.png").write_bytes(png)
    (assets / "blob.bin").write_bytes(bytes(range(256)) * 4)
    w = window([str(root)])
    with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
        w.select_skill(str(root / "alpha" / "SKILL.md"))
    for name, kind in (("logo.png", "PNG"), ("blob.bin", "binary")):
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w._show_file(str(assets / name))
        text = w.files_view.toPlainText()
        first = text.split("bytes · ", 1)[1].splitlines()[0]
        assert not first.startswith("text/plain"), first
        assert kind.lower() in first.lower(), first


def test_problem_locations_keep_their_line_and_column_in_sight(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "a"
    _skill(root, "alpha")
    w = window([str(root)])
    assert w.problems.textElideMode() == Qt.TextElideMode.ElideMiddle
    header = w.problems.horizontalHeader()
    assert header.sectionResizeMode(4) == header.ResizeMode.Interactive


def test_f1_opens_the_reference_apart_at_the_selected_problems_code(
    window, qtbot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "a"
    _skill(root, "alpha")
    (root / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Does alpha. Use when asked.\nbogus: 1\n---\nBody.\n",
        encoding="utf-8",
    )
    w = window([str(root)])
    overview_before = w.overview.toPlainText()
    row = next(
        r
        for r in range(w.problems_proxy.rowCount())
        if w.problems_proxy.index(r, 1).data() == "SP216"
    )
    w.problems.setFocus()
    w.problems.setCurrentIndex(w.problems_proxy.index(row, 0))
    qtbot.waitUntil(w.problems.hasFocus, timeout=5000)
    w.act_diag_ref.trigger()  # the reference is made in the engine
    qtbot.waitUntil(lambda: w._reference is not None, timeout=30000)
    dialog, browser = w._reference
    assert dialog.isVisible()
    text = browser.toPlainText()
    assert "SP216" in text and '<a id="' not in text  # anchors, not raw markup
    assert w.overview.toPlainText() == overview_before  # the Overview is left alone
    assert 'name="sp216"' in browser.toHtml()
    assert browser.verticalScrollBar().value() > 0  # scrolled to the code


def test_source_marks_list_every_finding_and_underline_the_column(qtbot) -> None:  # type: ignore[no-untyped-def]
    from skillprism.core.diagnostics import Diagnostic, Severity
    from skillprism.gui.source_view import SourceView

    view = SourceView()
    qtbot.addWidget(view)
    text = "---\nname: alpha\nbogus: 1\nother: two words\n---\nBody.\n"
    found = [
        Diagnostic("SP216", Severity.WARNING, "unknown field 'other'", "/s", 4, 1,
                   effect="ignored", hint="remove it"),
        Diagnostic("SP120", Severity.ERROR, "bad value", "/s", 4, 8, effect="refused",
                   hint="quote it"),
        Diagnostic("SP216", Severity.WARNING, "unknown field 'bogus'", "/s", 3, 0),
    ]  # fmt: skip
    view.set_source(text, found)
    tip = view.mark_at(4)
    assert "SP120" in tip and "SP216" in tip  # both findings of line 4
    assert tip.index("SP120") < tip.index("SP216")  # the most severe first
    assert "Effect: refused" in tip and "Fix: quote it" in tip
    # column 8 ("two") is underlined for SP120, not the whole line
    assert "SP120" in view.tooltip_at(4, 7) and "SP120" not in view.tooltip_at(4, 0)
    assert "SP216" in view.tooltip_at(4, 0)
    assert view.tooltip_at(4, 16) == "" or "SP120" not in view.tooltip_at(4, 16)
    # no column: the whole line
    assert "bogus" in view.tooltip_at(3, 0) and "bogus" in view.tooltip_at(3, 7)
    assert view.tooltip_at(6, 0) == ""


def test_an_unchecked_box_is_visible_in_the_dark_palette(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QApplication, QCheckBox, QStyle, QStyleOptionButton

    from skillprism.gui.app import contrast_style, dark_palette

    app = QApplication.instance()
    old_style, old_palette = app.style().name(), app.palette()
    style = contrast_style()
    app.setStyle(style)
    app.setPalette(dark_palette())
    try:
        box = QCheckBox("unchecked")
        qtbot.addWidget(box)
        box.resize(160, 30)
        box.show()
        image = box.grab().toImage()
        option = QStyleOptionButton()
        option.initFrom(box)
        rect = style.subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        background = image.pixelColor(box.width() - 2, box.height() - 2).lightness()
        edge = max(
            image.pixelColor(x, rect.top() + 1).lightness()
            for x in range(rect.left(), rect.right() + 1)
        )
        assert edge - background >= 60, (edge, background)
    finally:
        app.setStyle(old_style)
        app.setPalette(old_palette)
