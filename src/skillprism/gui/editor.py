"""Which command opens a file at a line in the user's editor.

The editor is the one the user set in the window (Skill > Set Editor Command), else $VISUAL, else
$EDITOR. Editors take a line in different forms; the common ones are known here by their program
name, and any other gets the file alone."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

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
