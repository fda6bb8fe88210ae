"""Live runs in the window's trigger view: the plan (calls, tokens, the CLI) is on screen before
anything runs and nothing runs until Start; progress comes in as runs finish; the result shows
each prompt's rate and outcomes, can be saved and compared with a saved one; Cancel stops every
running CLI. The CLI is a stand-in this test writes, printing a stream captured from the real
Claude Code in the lab (tests/data/live_streams)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings

from skillprism.gui.main_window import MainWindow

STREAMS = Path(__file__).parent / "data" / "live_streams"


def stand_in(tmp_path: Path, stream: str) -> tuple[Path, Path]:
    """A program that records each run (a line in `ran`) and prints Claude Code's captured
    stream `stream` ("hang": never answers)."""
    program = tmp_path / "bin" / "claude"
    program.parent.mkdir(exist_ok=True)
    ran = tmp_path / f"ran-{stream}.txt"
    body = (
        "time.sleep(120)\n"
        if stream == "hang"
        else f"sys.stdout.write(open({str(STREAMS / f'claude-code-{stream}.jsonl')!r}).read())\n"
    )
    program.write_text(
        f"#!{sys.executable}\nimport os, sys, time\n"
        "if sys.argv[1:] == ['--version']:\n    print('2.1.330 (Claude Code)')\n    sys.exit()\n"
        f"open({str(ran)!r}, 'a').write(str(os.getpid()) + '\\n')\n" + body,
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program, ran


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    for name, text in (
        ("alpha", "Convert CSV files into Excel workbooks with formatted headers."),
        ("beta", "Draft release notes from a git log."),
    ):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {text}\n---\n# {name}\n", encoding="utf-8"
        )
    evals = root / "alpha" / "evals.json"
    evals.write_text(
        json.dumps(
            [
                {"query": "turn data.csv into an xlsx", "should_trigger": True},
                {"query": "what is the weather", "should_trigger": False},
            ]
        ),
        encoding="utf-8",
    )
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="claude-code",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    w.resize(1300, 900)
    w.show()
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
        w.reload()
    w.select_skill(str(root / "alpha" / "SKILL.md"))
    w.trigger_dock.raise_()
    w.trigger.sig_evals_requested.emit(str(evals))
    qtbot.waitUntil(lambda: w.trigger._live_items() != [], timeout=20000)
    w.trigger.tabs.setCurrentWidget(w.trigger.live)
    yield w
    w.shutdown()


def plan_with(qtbot, w, program: Path):  # type: ignore[no-untyped-def]
    live = w.trigger.live
    live.runs.setValue(2)
    live.cli.setText(str(program))
    live.replan()
    qtbot.waitUntil(
        lambda: live.plan is not None and live.plan.program == str(program), timeout=20000
    )
    return live


def test_the_plan_comes_first_then_a_run_saved_and_compared(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    program, ran = stand_in(tmp_path, "intended")
    live = plan_with(qtbot, window, program)
    assert live.plan.calls == 4 and not live.plan.problem
    assert "4</b> model call(s)" in live.plan_label.text()
    assert live.start.isEnabled() and live.start.text() == "Start 4 Model Calls"
    assert not ran.exists()  # planned, nothing run

    progress: list[tuple[int, int]] = []
    window.engine.sig_progress.connect(
        lambda kind, done, total, _what: kind == "live_run" and progress.append((done, total))
    )
    live.start.click()
    assert live.cancel.isEnabled() and not live.start.isEnabled()
    qtbot.waitUntil(lambda: live.result is not None, timeout=60000)
    assert len(ran.read_text().split()) == 4
    assert progress and progress[-1] == (4, 4)
    rows = {(r.query, r.should_trigger): r for r in live.result.rows}
    assert rows[("turn data.csv into an xlsx", True)].intended == 2
    assert rows[("turn data.csv into an xlsx", True)].passed is True
    assert rows[("what is the weather", False)].passed is False  # it used alpha: a false alarm
    assert "precision" in live.summary.text() and "2.1.330" in live.summary.text()

    saved = tmp_path / "before.json"
    # (the save's own answer: another request's may come in first)
    with qtbot.waitSignal(
        window.engine.sig_answer,
        timeout=20000,
        check_params_cb=lambda kind, _result: kind == "save_live",
    ):
        live.sig_save.emit(str(saved), live.result.saved)
    assert json.loads(saved.read_text(encoding="utf-8"))["skill"] == "alpha"

    live.sig_compare.emit(str(saved))
    qtbot.waitUntil(lambda: "Compared with" in live.last.text(), timeout=20000)
    assert live.model.before  # the saved rate beside each prompt's
    assert "0 prompt(s) moved the right way" in live.last.text()


def test_the_saved_runs_column_shows_only_once_compared(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from skillprism.gui.live_runs import BEFORE_COLUMN

    live = window.trigger.live
    assert live.table.isColumnHidden(BEFORE_COLUMN)  # no run yet: nothing to compare with
    program, _ran = stand_in(tmp_path, "intended")
    plan_with(qtbot, window, program)
    live.start.click()
    assert live.table.isColumnHidden(BEFORE_COLUMN)  # running
    qtbot.waitUntil(lambda: live.result is not None, timeout=60000)
    assert live.table.isColumnHidden(BEFORE_COLUMN)
    saved = tmp_path / "before.json"
    with qtbot.waitSignal(
        window.engine.sig_answer,
        timeout=20000,
        check_params_cb=lambda kind, _result: kind == "save_live",
    ):
        live.sig_save.emit(str(saved), live.result.saved)
    live.sig_compare.emit(str(saved))
    qtbot.waitUntil(lambda: not live.table.isColumnHidden(BEFORE_COLUMN), timeout=20000)


def test_cancel_stops_every_running_cli(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    program, ran = stand_in(tmp_path, "hang")
    live = plan_with(qtbot, window, program)
    live.start.click()
    qtbot.waitUntil(lambda: ran.exists() and len(ran.read_text().split()) >= 2, timeout=30000)
    pids = [int(p) for p in ran.read_text().split()]
    live.cancel.click()
    assert not live.running and live.start.isEnabled()

    def gone(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split()[2] == "Z"  # ended, not yet reaped

    qtbot.waitUntil(lambda: all(gone(p) for p in pids), timeout=20000)
    assert live.result is None  # nothing answered for a cancelled run


def test_a_runtime_without_a_live_mode_says_why(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.profile_combo.setCurrentIndex(window.profile_combo.findData("cline"))
    qtbot.waitUntil(lambda: window.loaded.spec.profile == "cline", timeout=20000)
    live = window.trigger.live
    live.replan()
    qtbot.waitUntil(lambda: live.plan is not None, timeout=20000)
    assert live.plan.problem and "no live mode" in live.plan.problem
    assert not live.start.isEnabled() and "Cannot run" in live.plan_label.text()


def test_a_long_prompt_shown_as_it_runs_does_not_widen_the_window(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    long = "turn data.csv into an xlsx " + "with the totals per region and what changed " * 12
    evals = tmp_path / "long.json"
    evals.write_text(json.dumps([{"query": long, "should_trigger": True}]), encoding="utf-8")
    window.trigger.sig_evals_requested.emit(str(evals))
    qtbot.waitUntil(lambda: window.trigger._live_items() == [(long, True)], timeout=20000)
    window.trigger.tabs.setCurrentWidget(window.trigger.live)
    program, _ran = stand_in(tmp_path, "intended")
    live = plan_with(qtbot, window, program)
    width = window.width()
    assert live.fontMetrics().horizontalAdvance(long) > 2 * width  # it cannot fit

    shown: list[tuple[str, str, int]] = []

    def progress_shown() -> None:
        qtbot.wait(20)  # the layout pass a new text asks for
        shown.append((live.last.text(), live.last.toolTip(), window.width(), live.last.isVisible()))

    window.engine.sig_progress.connect(lambda kind, *_: kind == "live_run" and progress_shown())
    live.start.click()
    qtbot.waitUntil(lambda: live.result is not None, timeout=60000)
    assert shown and all(long in text and long in tip for text, tip, _w, _v in shown)
    assert all(visible for _t, _tip, _w, visible in shown)
    assert [w for _t, _tip, w, _v in shown] == [width] * len(shown)
    assert window.width() == width


def test_the_results_get_room_to_show(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A short dock would show the results' header and no row: when they arrive the dock grows
    # (never past 60 % of the window) until they show.
    from PySide6.QtCore import Qt

    program, _ran = stand_in(tmp_path, "intended")
    live = plan_with(qtbot, window, program)
    window.resizeDocks([window.trigger_dock], [120], Qt.Orientation.Vertical)
    qtbot.wait(200)
    before = window.trigger_dock.height()
    live.start.click()
    qtbot.waitUntil(lambda: live.result is not None, timeout=60000)
    qtbot.waitUntil(lambda: live.missing_height() == 0, timeout=5000)
    assert before < window.trigger_dock.height() <= window.height() * 60 // 100
    rows = live.table.viewport().height() // live.table.verticalHeader().defaultSectionSize()
    assert rows >= live.model.rowCount() == 2


def test_the_progress_and_the_last_line_show_only_while_there_is_something_to_say(
    window, qtbot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    # Before a run and after it the progress bar is hidden (no "4 of 4 runs" left standing) and
    # keeps its room (the buttons beside it stay put); an empty "Last:" line gives up its row.
    program, _ran = stand_in(tmp_path, "intended")
    live = plan_with(qtbot, window, program)
    assert not live.progress.isVisible() and not live.last.isVisible()
    save_x = live.save.x()
    seen: list[tuple[bool, bool, str]] = []
    window.engine.sig_progress.connect(
        lambda kind, *_: (
            kind == "live_run"
            and seen.append(
                (live.progress.isVisible(), live.last.isVisible(), live.progress.text())
            )
        )
    )
    settings = (live.runs, live.timeout, live.concurrency, live.holdout, live.cli, live.browse)
    assert all(w.isEnabled() for w in settings)
    live.start.click()
    assert live.progress.isVisible() and live.last.isVisible()
    assert live.last.text() == "Starting…" and live.progress.text() == "0 of 4 runs"
    assert not any(w.isEnabled() for w in settings)  # a run keeps the settings it started with
    qtbot.waitUntil(lambda: live.result is not None, timeout=60000)
    assert seen and all(bar and line for bar, line, _text in seen)
    assert seen[-1][2] == "4 of 4 runs"
    assert not live.progress.isVisible() and live.last.text() == ""
    assert not live.last.isVisible()
    assert all(w.isEnabled() for w in settings)
    qtbot.wait(50)  # the layout pass the hidden widgets ask for
    assert live.save.x() == save_x
    assert live.summary.y() < live.start.y() + live.start.height() + live.last.height()

    live.start.click()  # again: both come back, then the run is cancelled
    assert live.progress.isVisible() and live.progress.text() == "0 of 4 runs"
    live.cancel.click()
    assert not live.progress.isVisible()
    assert live.last.isVisible() and live.last.text().startswith("Cancelled")
