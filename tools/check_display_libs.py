"""`make run` asks this first, before building anything: on X11, are the libraries Qt's X11
platform plugin needs installed? If not, say exactly what to install and stop (exit 1).
Standard library only: it runs with the system's python3, before the virtual environment exists."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def main() -> int:
    if sys.platform != "linux" or (os.environ.get("QT_QPA_PLATFORM") or "xcb") != "xcb":
        return 0
    if os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("QT_QPA_PLATFORM"):
        return 0  # Qt picks its Wayland plugin
    path = Path(__file__).resolve().parents[1] / "src" / "skillprism" / "system_libraries.py"
    spec = importlib.util.spec_from_file_location("system_libraries", path)
    assert spec is not None and spec.loader is not None
    libs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(libs)
    missing = libs.missing_libraries(libs.XCB_PLATFORM_LIBRARIES)
    if not missing:
        return 0
    print(
        "Skill Prism's window needs these libraries, which this machine lacks: "
        f"{', '.join(missing)}.\nInstall them first (Debian or Ubuntu):\n  "
        f"{libs.install_hint(missing)}\n(`make test` and `skillprism check` work without them.)",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
