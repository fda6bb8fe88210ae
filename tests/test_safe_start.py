"""No process of Skill Prism imports code from the folder it is started in or reviews: the window
started inside a folder of booby-trapped modules (one for every module name its processes load:
`threading.py`, `re.py`, `socket.py`, `struct.py`, `skillprism.py`, ...) runs none of them, with the
engine, its fork server and its worker processes all at work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

# What the engine and its helpers load: the engine's own modules, the worker pool's and the fork
# server's (measured in a child of the same interpreter, so the list follows the code).
_LOADED = (
    "import sys, multiprocessing.forkserver, multiprocessing.resource_tracker;"
    "import skillprism.engine.server, skillprism.core.workers, skillprism.core.security.preload;"
    "print('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
)


def _module_names() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-I", "-c", _LOADED], capture_output=True, text=True, check=True
    ).stdout.split()
    names = {n for n in out if n.isidentifier() and not n.startswith("_")}
    return sorted(names | {"skillprism", "threading", "re", "socket", "struct", "multiprocessing"})


def _booby_trap(folder: Path, names: list[str]) -> None:
    for name in names:
        (folder / f"{name}.py").write_text(
            f"import os\nopen(os.path.join({str(folder.parent)!r}, 'PWNED-{name}'), 'w').close()\n",
            encoding="utf-8",
        )


@pytest.mark.skipif(sys.platform != "linux", reason="the fork server is Linux's")
def test_the_window_started_in_a_trapped_folder_runs_none_of_it(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    demo.mkdir()
    names = _module_names()
    assert len(names) > 40  # the list is real: the engine loads many modules
    _booby_trap(demo, names)
    for i in range(450):  # enough skills for the worker pool and its fork server to start
        d = demo / f"skill-{i:03d}"
        d.mkdir()
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:03d}\ndescription: Demo {i}. Use when demoing.\n---\nBody.\n",
            encoding="utf-8",
        )
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    skillprism = Path(sys.executable).with_name("skillprism")
    done = subprocess.run(
        [str(skillprism), "gui", "--exit-when-ready", "."],
        cwd=demo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "window ready (450 skills;" in done.stdout
    assert sorted(p.name for p in tmp_path.glob("PWNED-*")) == []
