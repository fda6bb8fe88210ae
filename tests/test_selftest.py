"""`skillprism self-test` and the app's desktop identity: the self-test passes on a working
install, says which check fails (and exits 1) on a broken one, and never touches the user's
settings; the application id is the desktop file name and window class."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from skillprism import APP_ID, APP_NAME
from skillprism.cli import selftest

CHECKS = (
    "bundle",
    "profiles",
    "check",
    "tokenizer",
    "security",
    "render",
    "processes",
    "window",
    "preview",
    "watcher",
)


def test_self_test_passes_in_process(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    shot = tmp_path / "self-test.png"
    assert selftest.run_self_test(screenshot=str(shot), out=out) == 0, out.getvalue()
    text = out.getvalue()
    for name in CHECKS:
        assert f"ok   {name}" in text, name
    assert "self-test passed: 12 of 12 checks ok" in text
    assert "via native events" in text or "via polling" in text
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_broken_bundle_fails_with_a_reason(qapp, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "no-skills"
    empty.mkdir()
    monkeypatch.setattr("skillprism.paths.demo_skills_dir", lambda: empty)
    monkeypatch.setattr("skillprism.paths.app_icon_path", lambda: tmp_path / "missing.svg")
    out = io.StringIO()
    assert selftest.run_self_test(out=out) == 1
    text = out.getvalue()
    assert "FAIL bundle     missing from the build: " in text
    assert "missing.svg" in text
    assert "self-test FAILED" in text
    assert "Traceback" not in text


def test_a_missing_tokenizer_is_named(qapp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from skillprism.core import tokens

    monkeypatch.setattr(tokens, "default_counter", lambda: tokens.get_counter(tokens.ESTIMATE))
    test = selftest.SelfTest(io.StringIO())
    with pytest.raises(selftest.SelfTestFailure, match="toktok-rs is missing"):
        test.steps.check_tokenizer()


def test_processes_that_cannot_start_are_a_warning_not_a_failure(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import multiprocessing.process

    def no_process(*_a, **_k):  # type: ignore[no-untyped-def]
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork refused

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_process)
    out = io.StringIO()
    test = selftest.SelfTest(out)
    test._run_step("processes", test.steps.check_processes)
    assert test.results[0].ok and test.results[0].warning
    assert "warn processes  worker processes cannot start here" in out.getvalue()


def test_application_identity(qapp) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QGuiApplication

    from skillprism.gui.app import make_application

    app = make_application()
    assert QGuiApplication.applicationName() == APP_ID  # X11 WM_CLASS class
    assert QGuiApplication.desktopFileName() == APP_ID  # Wayland app_id, desktop file
    assert QGuiApplication.applicationDisplayName() == APP_NAME  # what people read
    assert not app.windowIcon().isNull()
    assert app.windowIcon().pixmap(64, 64).width() == 64


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    return subprocess.run(
        [sys.executable, "-m", "skillprism", *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_self_test_command_leaves_no_settings(tmp_path: Path) -> None:
    result = _cli("self-test", home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("self-test passed: 12 of 12")
    assert "propagateSizeHints" not in result.stderr
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert leftovers == [], leftovers  # nothing saved: settings went to a temporary file


def test_gui_exit_when_ready_reports_the_first_scan(tmp_path: Path) -> None:
    result = _cli("gui", "--exit-when-ready", home=tmp_path)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert re.fullmatch(
        rf"{APP_NAME}: window ready \(11 skills; the engine took \d+\.\d\d s\)", line
    ), line


def test_missing_x11_libraries_are_named_before_qt_aborts(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from skillprism import system_libraries
    from skillprism.gui import app

    monkeypatch.setattr(app.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(system_libraries, "loadable", lambda soname: soname != "libxcb-icccm.so.4")
    assert app.run_gui([], None, None, None) == 2
    err = capsys.readouterr().err
    assert "missing: libxcb-icccm.so.4." in err
    assert "sudo apt-get install libxcb-icccm4" in err
    # Offscreen needs none of them.
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert app._x11_libraries_or_explain()


def test_every_x11_library_has_a_package() -> None:
    from skillprism.system_libraries import SONAME_PACKAGES, XCB_PLATFORM_LIBRARIES, loadable

    assert set(XCB_PLATFORM_LIBRARIES) <= set(SONAME_PACKAGES)
    assert loadable("libc.so.6") and not loadable("libskillprism-nonexistent.so.9")


def test_missing_qt_names_every_package_qt_needs(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import builtins

    from skillprism.gui import app

    real_import = builtins.__import__

    def no_qt(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name.startswith("PySide6"):
            raise ImportError("libEGL.so.1: cannot open shared object file")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_qt)
    assert not app.qt_or_explain()
    err = capsys.readouterr().err
    assert "libEGL.so.1: cannot open shared object file" in err
    for package in ("libegl1", "libxcb-cursor0", "libglib2.0-0", "fonts-dejavu-core"):
        assert package in err
