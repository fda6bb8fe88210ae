"""Imports only go downwards (cli > gui > app > formats | render > core) and nothing below the
window imports Qt: checked by import-linter's contracts, and at run time for headless commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "skillprism"


def test_import_contracts_hold() -> None:
    """The layers and the Qt/Markdown bans of pyproject.toml's [tool.importlinter], checked by
    import-linter itself (make test also runs lint-imports)."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=SRC.parents[1],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


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
