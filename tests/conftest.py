"""Test isolation: never touch the real home or config, and run Qt offscreen."""

from __future__ import annotations

import os

import pytest
import settrace_guard

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
settrace_guard.install()  # CPython 3.11 + coverage: threads must not die as they start


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", raising=False)
