"""Whether a live trigger run blocks the window: 50 prompts x 3 runs on 1,000 skills.

The real window (offscreen) opens N generated skills under Claude Code, selects one, loads an eval
set of 50 prompts for it and starts a live run of 3 runs per prompt from the trigger view's Live
Runs tab, as a user does, and lets it run in a Qt event loop, as the app's own. The CLI is
Claude Code 2.1.330 itself, from the conformance lab's cache, talking to the lab's scripted model
server on 127.0.0.1 inside a network namespace of its own (conformance/netns_run.py; nothing
else reachable), through a wrapper this bench writes and names as the tab's "Runtime CLI". Without the lab's binary (or without `unshare`), a stand-in that prints
a stream captured from the real CLI is used instead, and the output says so.

Measured: the longest the GUI thread went without ticking (a heartbeat timer, as bench_stall.py)
while pressing Start, while the runs come in and when the result is shown, beside the same window
idle for 3 s before the run (the baseline); how long the run took and how many progress messages
came in. The machine is shared: beside each block's wall time, the GUI thread's CPU time in it and
how long it waited for a core (Linux's schedstat), the longest block once that wait is taken out,
and the most CPU time the GUI thread spent in one block, so that being descheduled is told apart
from the window's own work.

Target: no block over 50 ms.

    QT_QPA_PLATFORM=offscreen python bench/bench_live_window.py [-n 1000] [--prompts 50] [--runs 3]
        [--stand-in] [--repeat N]   # N runs in fresh processes: the worst and the median
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "conformance"))

from bench_stall import TICK_MS, Heartbeat  # noqa: E402
from gen_skills import generate  # noqa: E402

BLOCK_TARGET_MS = 50.0
CHECK_MS = 10  # how often the bench looks whether what it waits for happened
STREAMS = REPO / "tests" / "data" / "live_streams"
WORDS = ("report", "chart", "deploy", "release", "invoice", "summary", "review", "schema")


def prompt(i: int) -> str:
    """The eval set's prompt `i`: short ones, and every third as long as skill-creator asks real
    ones to be (a few sentences of context, a path), which is what the window shows as it runs."""
    word = WORDS[i % len(WORDS)]
    text = f"prepare the {word} for case {i}"
    if i % 3 == 0:
        text += (
            f": my manager sent over ./shared/q3/{word}-{i}.xlsx this morning and wants it "
            "turned into something she can read in five minutes before the board call, with "
            "the totals per region, what changed since last quarter and anything that looks off"
        )
    return text


def lab_wrapper(tmp: Path, home: Path, skill: str) -> tuple[Path, str]:
    """A program that runs the lab's Claude Code beside the scripted model server, which answers
    every main turn with a use of `skill`; (path, what it is). Raises LookupError without the lab."""
    import binlab

    from skillprism.core.profiles import load_profile

    spec = load_profile("claude-code").live
    if spec is None:
        raise LookupError("the claude-code profile has no [live_trigger]")
    try:
        claude = binlab.binary_path("claude-code")
        prefix = binlab.no_network_prefix()
    except binlab.LabError as err:
        raise LookupError(str(err)) from None
    for name, text in spec.lab.files:
        target = home / name.removeprefix("~/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    script = tmp / "script.json"
    tool_input = json.loads(json.dumps(dict(spec.lab.tool_input)).replace("{skill}", skill))
    script.write_text(json.dumps({"kind": "tool", "tool": spec.lab.tool, "input": tool_input}))
    argv = [*prefix, sys.executable, str(REPO / "conformance" / "netns_run.py")]
    argv += ["--script", str(script)]
    for key, value in spec.lab.env:
        argv += ["--env", f"{key}={value}"]
    argv += ["--", str(claude)]
    wrapper = tmp / "bin" / "claude"
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    quoted = " ".join(f"'{a}'" for a in argv)
    extra = " ".join(f"'{a}'" for a in spec.lab.args)
    wrapper.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then exec ' + f"'{claude}' --version; fi\n"
        f'exec {quoted} "$@" {extra}\n',
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper, f"Claude Code from the lab ({claude.name}) and the scripted model server"


def stand_in(tmp: Path, skill: str) -> tuple[Path, str]:
    """A program printing the stream captured from the real Claude Code, naming `skill`."""
    stream = (STREAMS / "claude-code-intended.jsonl").read_text(encoding="utf-8")
    data = tmp / "stream.jsonl"
    data.write_text(stream.replace('"alpha"', json.dumps(skill)), encoding="utf-8")
    program = tmp / "bin" / "claude"
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text(
        f"#!{sys.executable}\nimport sys, time\n"
        "if sys.argv[1:] == ['--version']:\n    print('2.1.330 (Claude Code)')\n    sys.exit()\n"
        f"time.sleep(0.5)\nsys.stdout.write(open({str(data)!r}).read())\n",
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program, "a stand-in printing a stream captured from Claude Code 2.1.330"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--prompts", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--at-once", type=int, default=4)
    parser.add_argument("--stand-in", action="store_true", help="do not use the lab's CLI")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run the bench N times in fresh processes"
    )
    parser.add_argument("--json", help=argparse.SUPPRESS)  # one run's figures, for --repeat
    parser.add_argument(
        "--profile", action="store_true", help="print where the GUI thread spent the run (cProfile)"
    )
    args = parser.parse_args(argv)
    if args.repeat > 1:
        return repeat(args)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    tmp = Path(tempfile.mkdtemp(prefix="skillprism-live-window-"))
    home = tmp / "home"
    home.mkdir()
    os.environ["HOME"] = str(home)  # the lab's settings for the CLI go here, nothing else
    root = tmp / "skills"
    generate(root, args.n)

    from PySide6.QtCore import QSettings

    from skillprism.gui.app import make_application
    from skillprism.gui.main_window import MainWindow

    app = make_application()
    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    beat = Heartbeat()
    beat.start()

    def pump(seconds: float) -> None:
        end = time.perf_counter() + seconds
        in_event_loop(lambda: time.perf_counter() >= end, seconds + 1.0)

    def until(done, timeout: float = 900.0) -> None:  # type: ignore[no-untyped-def]
        if not in_event_loop(done, timeout):
            raise SystemExit("timed out waiting for the window")

    applied: list[object] = []
    window = MainWindow(
        roots=[str(root)], profile="claude-code", project=str(tmp), dark=False, settings=settings
    )
    window.sig_catalog_applied.connect(applied.append)
    window.resize(1440, 900)
    window.show()
    window.reload()
    until(lambda: applied and window.loaded is not None and not window.loaded.risks_pending)
    skill = window.loaded.skills[len(window.loaded.skills) // 2]
    if args.stand_in:
        program, what = stand_in(tmp, skill.name)
    else:
        try:
            program, what = lab_wrapper(tmp, home, skill.name)
        except LookupError as err:
            print(f"(the lab's CLI cannot run here: {err}; using the stand-in)")
            program, what = stand_in(tmp, skill.name)
    evals = tmp / "evals.json"
    evals.write_text(
        json.dumps(
            [
                {
                    "query": prompt(i),
                    "should_trigger": i % 2 == 0,
                }
                for i in range(args.prompts)
            ]
        ),
        encoding="utf-8",
    )
    window.select_skill(skill.key)
    window.trigger_dock.raise_()
    window.trigger.sig_evals_requested.emit(str(evals))
    until(lambda: len(window.trigger._live_items()) == args.prompts)
    live = window.trigger.live
    window.trigger.tabs.setCurrentWidget(live)
    live.runs.setValue(args.runs)
    live.concurrency.setValue(args.at_once)
    live.cli.setText(str(program))
    live.replan()
    until(lambda: live.plan is not None and live.plan.program == str(program))
    if live.plan.problem:
        raise SystemExit(f"the run cannot start: {live.plan.problem}")
    calls = live.plan.calls

    progress: list[float] = []  # when each progress message came in
    answered_at: list[float] = []
    window.engine.sig_progress.connect(
        lambda kind, *_: kind == "live_run" and progress.append(time.perf_counter())
    )
    window.engine.sig_answer.connect(
        lambda kind, _r: kind == "live_run" and answered_at.append(time.perf_counter())
    )
    pump(0.5)
    beat.reset()
    pump(3.0)
    beat._tick()  # the gap still open counts too
    idle = Block.of(beat.gaps, 0.0, float("inf"))
    beat.reset()
    start = time.perf_counter()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    live.start.click()
    until(lambda: live.result is not None or not live.running)
    took = time.perf_counter() - start
    pump(0.5)
    beat._tick()
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(18)
    first = progress[0] if progress else float("inf")
    shown = answered_at[0] if answered_at else float("inf")
    phases = {
        "pressing Start": Block.of(beat.gaps, 0.0, first),
        "runs coming in": Block.of(beat.gaps, first, shown),
        "the result shown": Block.of(beat.gaps, shown, float("inf")),
        "the whole run": Block.of(beat.gaps, 0.0, float("inf")),
        "baseline: the window idle, 3 s": idle,
    }
    result = live.result
    window.shutdown()
    app.processEvents()
    shutil.rmtree(tmp, ignore_errors=True)
    if result is None:
        print(f"the run failed: {live.plan_label.text()}")
        return 2
    answered = sum(r.intended + r.other + r.none for r in result.rows)
    figures = {
        "calls": calls,
        "what": what,
        "took": took,
        "progress": len(progress),
        "answered": answered,
        "phases": {name: list(block) for name, block in phases.items()},
    }
    if args.json:
        Path(args.json).write_text(json.dumps(figures), encoding="utf-8")
    return report(args, [figures])


def in_event_loop(done, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    """Run a Qt event loop until `done()` (looked at every few ms) or `timeout` s; whether it
    is done. The GUI thread then sleeps until something is due, as under the window's own
    event loop, rather than polling (which wakes it every millisecond to find nothing)."""
    from PySide6.QtCore import QEventLoop, QTimer

    if done():
        return True
    loop = QEventLoop()
    end = time.perf_counter() + timeout
    look = QTimer(interval=CHECK_MS)
    look.timeout.connect(lambda: (done() or time.perf_counter() > end) and loop.quit())
    look.start()
    loop.exec()
    look.stop()
    return bool(done())


class Block(NamedTuple):
    """The GUI thread's blocks (gaps between heartbeats) in a stretch of time, ms: the longest
    one's wall time, the GUI thread's CPU time in it and its wait for a core; then over every gap
    of the stretch, the longest once its wait for a core is taken out (what the window itself
    spent, working or blocked) and the most CPU time spent in one."""

    wall: float
    cpu: float
    wait: float
    own: float
    heavy: float

    @classmethod
    def of(
        cls, gaps: list[tuple[float, float, float, float]], after: float, before: float
    ) -> Block:
        inside = [g for g in gaps if after <= g[0] < before]
        if not inside:
            return cls(0.0, 0.0, 0.0, 0.0, 0.0)
        _end, wall, cpu, wait = max(inside, key=lambda g: g[1])
        own = max(g[1] - g[3] for g in inside)
        heavy = max(g[2] for g in inside)
        tick = TICK_MS / 1000
        return cls(*(max(0.0, v * 1000) for v in (wall - tick, cpu, wait, own - tick, heavy)))


HEADINGS = ("wall", "its GUI CPU", "its core wait", "wall - wait", "most GUI CPU")


def report(args: argparse.Namespace, runs: list[dict]) -> int:  # type: ignore[type-arg]
    """Print the figures of one or more runs (worst and median of each) beside the target."""
    import statistics

    first = runs[0]
    print(f"{args.n:,} skills, {args.prompts} prompts x {args.runs} runs = {first['calls']} calls")
    print(f"CLI: {first['what']}; {args.at_once} at once; {len(runs)} run(s) of the bench")
    for i, run in enumerate(runs, 1):
        whole = "  ".join(
            f"{h} {v:.1f}" for h, v in zip(HEADINGS, run["phases"]["the whole run"], strict=True)
        )
        print(
            f"  run {i} took {run['took']:.1f} s; {run['progress']} progress messages; "
            f"{run['answered']} runs answered; longest block (ms): {whole}"
        )
    print(
        "\nGUI blocks in ms, worst / median of the runs: the longest block (less the heartbeat's "
        f"{TICK_MS} ms period), its GUI-thread CPU "
        "time and its wait for a core;\nthe longest block less its wait for a core; the most "
        f"GUI-thread CPU time in one block. Target: no block over {BLOCK_TARGET_MS:.0f} ms."
    )
    print(f"{'':32}" + "".join(f"{h:>16}" for h in HEADINGS))
    failed = False
    for name in first["phases"]:
        cols = []
        for field in range(len(HEADINGS)):
            values = [run["phases"][name][field] for run in runs]
            cols.append(f"{max(values):8.1f} /{statistics.median(values):6.1f}")
        walls = [run["phases"][name][0] for run in runs]
        owns = [run["phases"][name][3] for run in runs]
        if name.startswith("baseline"):
            verdict = ""
        elif max(walls) <= BLOCK_TARGET_MS:
            verdict = "ok"
        elif max(owns) <= BLOCK_TARGET_MS:
            verdict = "OVER on the clock; ok less the wait for a core"
        else:
            verdict = "OVER"
        failed |= max(owns) > BLOCK_TARGET_MS
        print(f"{name:32}{''.join(cols)}  {verdict}")
    return 1 if failed else 0


def repeat(args: argparse.Namespace) -> int:
    """The bench `args.repeat` times, each in a fresh process; the worst and the median."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="skillprism-live-window-runs-") as tmp:
        for i in range(args.repeat):
            out = Path(tmp) / f"run-{i}.json"
            cmd = [sys.executable, __file__, "-n", str(args.n), "--prompts", str(args.prompts)]
            cmd += ["--runs", str(args.runs), "--at-once", str(args.at_once), "--json", str(out)]
            cmd += ["--stand-in"] if args.stand_in else []
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
            if not out.exists():
                print(f"run {i + 1} failed", file=sys.stderr)
                return 2
            runs.append(json.loads(out.read_text(encoding="utf-8")))
            print(f"run {i + 1} of {args.repeat} done", file=sys.stderr)
    return report(args, runs)


if __name__ == "__main__":
    sys.exit(main())
