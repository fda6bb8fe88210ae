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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """With SKILLPRISM_LAB_REQUIRED set (`make lab-tests`, CI), a lab test that skips because a
    runtime is missing from the lab's cache fails instead: there the lab must hold it."""
    outcome = yield
    report = outcome.get_result()
    if (
        os.environ.get("SKILLPRISM_LAB_REQUIRED")
        and report.skipped
        and item.path.name.endswith("_lab.py")
    ):
        report.outcome = "failed"
        report.longrepr = f"skipped where the lab is required (make lab-tests): {report.longrepr}"
