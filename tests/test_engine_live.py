"""The engine's live trigger kinds: `live_plan` answers at once; `live_run` runs in a thread of
its own, sends `progress` as results arrive and answers with the `LiveRunView`, and a cancel
ends every running CLI without an answer. The CLI is a stand-in (a program this test writes)
printing a stream captured from the real Claude Code in the lab."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

from engine_helpers import open_view

from skillprism.core.budget_inputs import BudgetInputs
from skillprism.engine.protocol import ANSWER, FAILED, PROGRESS
from skillprism.engine.views import LivePlanView, LiveRunView

STREAMS = Path(__file__).parent / "data" / "live_streams"


def _set(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name in ("alpha", "beta"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {name} converts CSV files\n---\n", encoding="utf-8"
        )
    return root


def _stand_in(tmp_path: Path, stream: str) -> Path:
    program = tmp_path / "claude"
    body = (
        "time.sleep(60)\n"
        if stream == "hang"
        else f"sys.stdout.write(open({str(STREAMS / f'claude-code-{stream}.jsonl')!r}).read())\n"
    )
    program.write_text(
        f"#!{sys.executable}\nimport sys, time, os\n"
        "if sys.argv[1:] == ['--version']:\n    print('2.1.330 (Claude Code)')\n    sys.exit()\n"
        f"open({str(tmp_path / 'pids')!r}, 'a').write(str(os.getpid()) + '\\n')\n" + body,
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


ITEMS = (("turn data.csv into xlsx", True), ("what is the weather", False))


def _wait(engine, kinds, timeout=60.0):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = [m for m in engine.sent if m[0] in kinds and m[2] == "live_run"]
        if done:
            return done[-1]
        time.sleep(0.05)
    return None


def test_live_plan_and_run(tmp_path: Path) -> None:
    root = _set(tmp_path)
    engine, view = open_view([str(root)], "claude-code", str(tmp_path))
    key = next(s.key for s in view.skills if s.name == "alpha")
    program = str(_stand_in(tmp_path, "intended"))
    inputs = BudgetInputs()
    plan: LivePlanView = engine.handle("live_plan", "claude-code", inputs, key, ITEMS, 3, program)
    assert (plan.calls, plan.skills, plan.problem, plan.program) == (6, 2, "", program)
    missing = engine.handle("live_plan", "claude-code", inputs, key, ITEMS, 3, "/nope/claude")
    assert "not an executable" in missing.problem
    engine.handle("live_run", "claude-code", inputs, key, ITEMS, 2, program, 30.0, 2, 0.0)
    answer = _wait(engine, (ANSWER, FAILED))
    assert answer is not None and answer[0] == ANSWER, answer
    result: LiveRunView = answer[3]
    assert [r.rate for r in result.rows] == [1.0, 1.0]
    assert result.models == ("claude-opus-5-5",) and result.passed == 1
    progress = [m for m in engine.sent if m[0] == PROGRESS]
    assert [m[3] for m in progress] == [1, 2, 3, 4] and all(m[4] == 4 for m in progress)
    assert '"runs_per_prompt": 2' in result.saved
    engine.stop()


def _alive(pids_file: Path, at_least: int) -> list[int]:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if pids_file.exists() and len(pids_file.read_text().split()) >= at_least:
            break
        time.sleep(0.05)
    alive = []
    for pid in (int(p) for p in pids_file.read_text().split()):
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
    return alive


def test_a_cancelled_live_run_ends_its_clis_and_never_answers(tmp_path: Path) -> None:
    root = _set(tmp_path)
    engine, view = open_view([str(root)], "claude-code", str(tmp_path))
    key = next(s.key for s in view.skills if s.name == "alpha")
    hang = str(_stand_in(tmp_path, "hang"))
    engine.handle("live_run", "claude-code", BudgetInputs(), key, ITEMS, 1, hang, 60.0, 2, 0.0)
    assert len(_alive(tmp_path / "pids", 2)) >= 2
    engine._cancelled.add(engine._newest["live_run"])  # the window's ("cancel", id)
    time.sleep(1.5)
    assert len(_alive(tmp_path / "pids", 2)) == 0
    assert _wait(engine, (ANSWER, FAILED), timeout=1) is None
    engine.stop()


def test_a_newer_live_run_supersedes_the_running_one(tmp_path: Path) -> None:
    root = _set(tmp_path)
    engine, view = open_view([str(root)], "claude-code", str(tmp_path))
    key = next(s.key for s in view.skills if s.name == "alpha")
    hang = str(_stand_in(tmp_path, "hang"))
    engine.handle("live_run", "claude-code", BudgetInputs(), key, ITEMS, 1, hang, 60.0, 2, 0.0)
    first = engine._newest["live_run"]
    _alive(tmp_path / "pids", 2)
    used = tmp_path / "used"
    used.mkdir()
    program = str(_stand_in(used, "intended"))
    engine.handle("live_run", "claude-code", BudgetInputs(), key, ITEMS, 1, program, 30.0, 2, 0.0)
    answer = _wait(engine, (ANSWER, FAILED))
    assert answer is not None and answer[0] == ANSWER and answer[1] != first
    assert [r.rate for r in answer[3].rows] == [1.0, 1.0]
    time.sleep(1.0)
    assert not _alive(tmp_path / "pids", 2)
    assert not [m for m in engine.sent if m[0] in (ANSWER, FAILED) and m[1] == first]
    engine.stop()
