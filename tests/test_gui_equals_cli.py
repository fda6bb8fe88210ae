"""The window and the CLI go through the same Workspace: for one project with a settings file, the
window shows the findings `check` reports, the listing `prompt` prints, the budget outcomes of
`prompt --format json`, what `activate` delivers (its cost by the same counter, its findings),
what `resource` answers for a followed link (a refusal, under the project's settings) and where
`where` says each runtime finds a skill, and exports the report `skillprism report` writes, byte
for byte (with SOURCE_DATE_EPOCH pinning the time stamp)."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings, QUrl

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
    # a long body (over a runtime's guidance?) and links a runtime would refuse
    linker = root / "linker"
    linker.mkdir()
    (linker / "SKILL.md").write_text(
        "---\nname: linker\ndescription: Follows links. Use when linking.\n---\n# linker\n\n"
        + "Read [the notes](references/missing.md) and [that](../../outside.md).\n"
        + "More words to count. " * 400,
        encoding="utf-8",
    )
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
    # the tree comes first; the view with the risks in follows the risk scan
    qtbot.waitUntil(lambda: w.loaded is not None and not w.loaded.risks_pending, timeout=30000)
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
        assert w.loaded is not None
        window_findings = {
            (w.skills[row.key].path, row.diagnostic.code) for row in w.loaded.problems if row.key
        }
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

        # Activation: the same content, cost (the same counter) and findings.
        linker = str(project / "skills" / "linker" / "SKILL.md")
        cli = _cli(project, "activate", "linker", "--profile", PROFILE, "--format", "json", *roots)
        assert cli.returncode in (0, 1), cli.stderr
        activated = json.loads(cli.stdout)
        with qtbot.waitSignal(w.sig_skill_shown, timeout=30000):
            w.select_skill(linker)
        w.tabs.setCurrentWidget(w.activation)
        qtbot.waitUntil(lambda: "Cost:" in w.activation.view.toPlainText(), timeout=30000)
        page = w.activation.view.toPlainText()
        assert (
            f"{activated['chars']:,} characters, {activated['tokens']:,} tokens "
            f"({activated['counter']})" in page
        )
        for d in activated.get("diagnostics", []):
            assert d["code"] in page

        # A followed link: the runtime's refusal, with the code `resource` gives.
        for reference in ("references/missing.md", "../../outside.md"):
            cli = _cli(
                project,
                "resource",
                "linker",
                reference,
                "--profile",
                PROFILE,
                "--format",
                "json",
                *roots,
            )
            assert cli.returncode == 1, cli.stdout + cli.stderr
            refusal = json.loads(cli.stdout)["refusal"]
            w.files_view.setHtml("")
            w._on_link(QUrl(reference))
            qtbot.waitUntil(lambda: "would refuse" in w.files_view.toPlainText(), timeout=30000)
            shown = w.files_view.toPlainText()
            assert refusal["code"] in shown and refusal["message"] in shown

        # Where: the same runtimes find it where it is.
        cli = _cli(project, "where", str(project / "skills" / "linker"), "--format", "json")
        assert cli.returncode in (0, 1), cli.stderr
        found = {p["title"] for p in json.loads(cli.stdout)["profiles"] if p["found"]}
        w.tabs.setCurrentWidget(w.where_view)
        qtbot.waitUntil(lambda: w.where_view.page is not None, timeout=30000)
        blocks = [block for _hay, block in w.where_view.page.blocks]
        shown_found = {b.split("</h3>")[0] for b in blocks if "finds it here" in b}
        assert len(shown_found) == len(found)
        assert all(any(html.escape(t) in b for b in shown_found) for t in found)

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
