"""Where shipped data lives: inside the installed package (wheel), in a source checkout, or in a
frozen app. One function per kind of data, so nothing else guesses paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    candidates = []
    if frozen:
        candidates.append(Path(frozen) / "skillprism" / name)
    candidates.append(_PKG / name)  # wheel: force-included into the package
    candidates.append(_PKG.parent.parent / name)  # checkout / editable install: top-level folder
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[-1]


def resources_dir() -> Path:
    return _data_dir("resources")


def shipped_profiles_dir() -> Path:
    return resources_dir() / "profiles"


def app_icon_path() -> Path:
    """The SVG master of the application icon (packaging generates every raster size from it)."""
    from skillprism import APP_ID

    return resources_dir() / "icons" / f"{APP_ID}.svg"


def demo_skills_dir() -> Path:
    return _data_dir("skills")


def user_config_dir() -> Path:
    """The app's per-user config folder (XDG on Linux); user profiles live in its `profiles/`."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "skillprism"


def user_profiles_dir() -> Path:
    return user_config_dir() / "profiles"


def user_state_dir() -> Path:
    """The app's per-user state folder (XDG on Linux): logs of unexpected errors live here."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "skillprism"
