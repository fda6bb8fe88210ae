"""The window and the CLI go through the same Workspace: for one project with a settings file, the
window shows the findings `check` reports, the listing `prompt` prints, the budget outcomes of
`prompt --format json`, and exports the report `skillprism report` writes, byte for byte (with
SOURCE_DATE_EPOCH pinning the time stamp)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings

from skillprism.gui.main_window import MainWindow

PROFILE = "claude-code"


def _skill(root: Path, name: str, extra: str = "", description: str = "") -> None:
    d = root / name
    d.mkdir(parents=True)
    text = description or f"Handles {name} work in detail. " * 12
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {text}\n{extra}---\n# {name}\n\nDo it.\n",
        encoding="utf-8",
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    proj = tmp_path / "proj"
    root = proj / "skills"
    _skill(root, "alpha", "bogus: 1\n")  # SP216 (unknown field): ignored by the settings file
    _skill(root, "Beta_Bad")  # a name the spec refuses: still reported
    for i in range(40):
        _skill(root, f"bulk-{i:02}")
    _skill(root, "shell-out", description="Runs things.", extra="allowed-tools: Bash\n")
    (proj / ".skillprism.toml").write_text('ignore_codes = ["SP216"]\n', encoding="utf-8")
    return proj


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillprism", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _window(qtbot, project: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    settings = QSettings(str(project.parent / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(project / "skills")],
        profile=PROFILE,
        project=str(project),
        dark=False,
        settings=settings,
    )
    w.live = False
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=30000):
        w.reload()
    return w


def test_window_shows_what_the_cli_reports(qtbot, project: Path) -> None:  # type: ignore[no-untyped-def]
    w = _window(qtbot, project)
    try:
        roots = [str(project / "skills")]
        # Findings: the same codes on the same files, the ignored code in neither.
        check = _cli(project, "check", "--profile", PROFILE, "--format", "json", *roots)
        assert check.returncode in (0, 1), check.stderr
        (result_json,) = json.loads(check.stdout)["results"]
        cli_findings = {
            (s["path"], d["code"]) for s in result_json["skills"] for d in s["diagnostics"]
        }
        assert w.catalog is not None
        window_findings = {(s.path, d.code) for s in w.catalog.skills for d in s.diagnostics}
        assert window_findings == cli_findings
        assert not any(code == "SP216" for _p, code in window_findings)
        assert any(code.startswith("SP7") for _p, code in window_findings)  # security, too

        # The tier-1 listing and each skill's budget outcome.
        qtbot.waitUntil(lambda: w.budget._result is not None, timeout=20000)
        result = w.budget._result
        prompt = _cli(project, "prompt", "--profile", PROFILE, *roots)
        assert prompt.returncode == 0, prompt.stderr
        assert prompt.stdout.rstrip("\n") == result.text
        outcomes = _cli(project, "prompt", "--profile", PROFILE, "--format", "json", *roots)
        cli_outcomes = {e["path"]: e["outcome"] for e in json.loads(outcomes.stdout)["skills"]}
        assert cli_outcomes == {e.path: e.outcome for e in result.entries}

        # The report, byte for byte.
        for name in ("report.html", "report.md"):
            mine, theirs = project.parent / f"window-{name}", project.parent / f"cli-{name}"
            with qtbot.waitSignal(w.sig_report_written, timeout=30000) as written:
                w.export_report(str(mine))
            assert written.args == [str(mine), ""]
            report = _cli(project, "report", "--profile", PROFILE, "-o", str(theirs), *roots)
            assert report.returncode in (0, 1), report.stderr
            assert mine.read_bytes() == theirs.read_bytes(), name
    finally:
        w.shutdown()
