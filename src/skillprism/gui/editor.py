"""Opening a file at a line in the user's editor, from the window.

The editor is the one the user set in the window (Skill > Set Editor Command), else $VISUAL, else
$EDITOR; with none set, the desktop's default application for text. Editors take a line in
different forms; the common ones are known here by their program name, and any other gets the
file alone. Only SKILL.md and text files are ever handed over: nothing a desktop would run."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from typing import Any

# Files the editor may open. Nothing a desktop would run or render with scripts (.html, .svg, .xml
# open in a browser by default), and no scripts: those are shown in the Files tab only.
TEXT_SUFFIXES = {".md", ".txt", ".yaml", ".yml", ".json", ".toml", ".csv", ".rst"}

# program name -> how it takes a file and a line
_GOTO = {"code", "code-insiders", "codium", "vscodium", "cursor", "windsurf"}  # -g file:line
_PLUS = {"vim", "nvim", "vi", "gvim", "nano", "micro", "emacs", "emacsclient", "kate", "gedit",
         "kak", "helix", "hx", "joe", "mg", "ne"}  # fmt: skip  # +line file
_COLON = {"subl", "sublime_text", "zed", "mate", "atom", "pulsar", "lapce"}  # file:line
_LINE_FLAG = {"idea", "pycharm", "webstorm", "clion", "goland", "rider", "studio"}  # --line N file
# Editors that run in the terminal: started without one they would have nowhere to draw.
TERMINAL_EDITORS = {"vim", "nvim", "vi", "nano", "micro", "emacs", "kak", "helix", "hx", "joe",
                    "mg", "ne"}  # fmt: skip


def chosen_editor(configured: str, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(command, where it came from): the configured command, else $VISUAL, else $EDITOR;
    ("", "") when none is set."""
    env = os.environ if env is None else env
    for command, source in (
        (configured, "the editor command set in Skill Prism"),
        (env.get("VISUAL", ""), "$VISUAL"),
        (env.get("EDITOR", ""), "$EDITOR"),
    ):
        if command.strip():
            return command.strip(), source
    return "", ""


def editor_argv(command: str, path: str, line: int = 0) -> list[str]:
    """The argument list that opens `path` at `line` (0: no line) with `command` (a program and
    its options, shell-quoted)."""
    argv = shlex.split(command)
    if not argv:
        raise ValueError("no editor command")
    program = os.path.basename(argv[0]).lower()
    if program.endswith(".exe"):
        program = program[:-4]
    if line <= 0:
        return [*argv, path]
    if program in _GOTO:
        return [*argv, "-g", f"{path}:{line}"]
    if program in _PLUS:
        return [*argv, f"+{line}", path]
    if program in _COLON:
        return [*argv, f"{path}:{line}"]
    if program in _LINE_FLAG:
        return [*argv, "--line", str(line), path]
    return [*argv, path]


def is_terminal_editor(command: str) -> bool:
    argv = shlex.split(command)
    return bool(argv) and os.path.basename(argv[0]).lower() in TERMINAL_EDITORS


def launch_editor(window: Any, configured: str, path: str, line: int = 0) -> None:
    """Open `path` (at `line`, 0 for none) in the editor for `window` (a QMainWindow: its status
    bar and message boxes say what happened)."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QMessageBox

    from skillprism import APP_NAME

    status = window.statusBar()
    if not path:
        status.showMessage("Select a skill or one of its files first", 4000)
        return
    if os.path.isdir(path) or os.path.splitext(path)[1].lower() not in TEXT_SUFFIXES:
        status.showMessage(
            "Only SKILL.md and text files open in the editor; scripts "
            "and other files are never handed to the desktop",
            6000,
        )
        return
    command, source = chosen_editor(configured)
    if not command:
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(path)):
            QMessageBox.information(
                window,
                APP_NAME,
                "No editor is set and the desktop has no application for text files.\n\n"
                "Set one with Skill → Set Editor Command…, or set $VISUAL or $EDITOR.",
            )
            return
        status.showMessage(
            "Opened with the desktop's default application (no line: set an editor with "
            "Skill → Set Editor Command…, or $VISUAL / $EDITOR, to open at the line)",
            8000,
        )
        return
    if is_terminal_editor(command):
        QMessageBox.information(
            window,
            APP_NAME,
            f"{source} is “{command}”, which runs in a terminal. Set a desktop editor "
            "(for example “code”, “gedit” or “kate”) with Skill → Set Editor Command….",
        )
        return
    try:
        subprocess.Popen(editor_argv(command, path, line), start_new_session=True)
    except (OSError, ValueError) as err:
        QMessageBox.warning(
            window, APP_NAME, f"Could not start the editor “{command}” ({source}):\n{err}"
        )
        return
    where = f"{os.path.basename(path)}:{line}" if line else os.path.basename(path)
    status.showMessage(f"Opened {where} with {command} ({source})", 5000)


def ask_editor_command(window: Any, settings: Any) -> None:
    """Ask for the editor command and keep it in `settings` (a QSettings)."""
    from PySide6.QtWidgets import QInputDialog

    current = settings.value("editor", "", str)
    text, ok = QInputDialog.getText(
        window,
        "Editor Command",
        "Command to open a file, e.g. “code”, “gedit” or “kate” (the file and, for "
        "editors that take one, the line are added). Empty = $VISUAL, $EDITOR or the "
        "desktop's default:",
        text=current,
    )
    if ok:
        settings.setValue("editor", text.strip())
