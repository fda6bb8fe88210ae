"""core and render must never import Qt (or the gui layer): checked statically and at run time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "skillprism"
FORBIDDEN = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "skillprism.gui")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_and_render_sources_import_no_qt() -> None:
    offenders = []
    for layer in ("core", "render"):
        for path in (SRC / layer).rglob("*.py"):
            for name in _imports(path):
                if name.startswith(FORBIDDEN):
                    offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert offenders == []


def test_core_does_not_import_markdown_or_pygments() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {n}"
        for p in (SRC / "core").rglob("*.py")
        for n in _imports(p)
        if n.split(".")[0] in ("markdown", "pygments")
    ]
    assert offenders == []


def test_check_command_loads_no_qt_at_run_time(tmp_path: Path) -> None:
    code = (
        "import sys, skillprism.cli as c; c.main(['check', sys.argv[1], '--format', 'json']);"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')];"
        "print('QT', bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True
    )
    assert "QT []" in out.stdout, out.stdout + out.stderr
