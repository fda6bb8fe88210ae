"""How long the window's GUI thread is blocked, per interaction, on a 10,000-skill repository.

A heartbeat timer ticks on the GUI thread every few milliseconds; the longest gap between two ticks
during an interaction is the longest time the window could not repaint or take input. Each
interaction runs the real window (offscreen) the way a user would: open the set, type a filter one
key at a time and clear it, select skills (a large one too), switch the runtime, reload, save a
SKILL.md on disk (the engine's file watch), move a budget control, compare runtimes. Targets (for
this 2-core machine): no block over 50 ms anywhere; the first window with the whole set shown
within 1.5x the time `skillprism check` needs for the same set, measured in the same run.

    QT_QPA_PLATFORM=offscreen python bench/bench_stall.py [-n 10000] [--keep DIR] [--runs N]
    QT_QPA_PLATFORM=offscreen python bench/bench_stall.py --set ../realsets   # a real set

With `--runs N` the whole sequence runs N times, each in a fresh process, and the table gives the
worst and the median of each figure: a target is met when the worst run meets it.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_skills import generate_repository

BLOCK_TARGET_MS = 50.0
OPEN_TARGET_RATIO = 1.5
TICK_MS = 4
PROFILE = "claude-code"


def time_check(path: str, project: str) -> float:
    """Best of three `skillprism check` runs on `path` (seconds)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "skillprism", "check", "--profile", PROFILE, "--quiet", path],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        best = min(best, time.perf_counter() - start)
    return best


class Heartbeat:
    """The longest gap between ticks of a timer on the GUI thread since `reset()`.

    Beside each gap's wall time: the GUI thread's CPU time in it (`thread_time`) and, where Linux
    says so (/proc/thread-self/schedstat), how long the thread was ready to run but waited for a
    core. On a machine shared with other work a gap can be all waiting: `longest_own` is the
    longest gap with that wait taken out, what the window itself spent (working or blocked)."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer(interval=TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.last, self.cpu, self.wait = _clocks()
        self.longest = 0.0
        self.longest_cpu = 0.0  # GUI-thread CPU time spent during the longest gap
        self.longest_wait = 0.0  # time the GUI thread waited for a core during the longest gap
        self.longest_own = 0.0  # the longest gap less the time waiting for a core in it
        self.heaviest_cpu = 0.0  # the most GUI-thread CPU time spent in any one gap
        self.gaps: list[tuple[float, float, float, float]] = []
        """Every gap since `reset()`: (when it ended, wall, CPU, core wait), seconds."""

    def start(self) -> None:
        self.reset()
        self.timer.start()

    def reset(self) -> None:
        self.last, self.cpu, self.wait = _clocks()
        self.longest = 0.0
        self.longest_cpu = 0.0
        self.longest_wait = 0.0
        self.longest_own = 0.0
        self.heaviest_cpu = 0.0
        self.gaps = []

    def _tick(self) -> None:
        now, cpu, wait = _clocks()
        gap, gap_cpu, gap_wait = now - self.last, cpu - self.cpu, wait - self.wait
        if gap > self.longest:
            self.longest, self.longest_cpu, self.longest_wait = gap, gap_cpu, gap_wait
        self.longest_own = max(self.longest_own, gap - gap_wait)
        self.heaviest_cpu = max(self.heaviest_cpu, gap_cpu)
        self.gaps.append((now, gap, gap_cpu, gap_wait))
        self.last, self.cpu, self.wait = now, cpu, wait

    @property
    def longest_ms(self) -> float:
        return max(0.0, self.longest * 1000 - TICK_MS)

    @property
    def longest_own_ms(self) -> float:
        return max(0.0, self.longest_own * 1000 - TICK_MS)


def _clocks() -> tuple[float, float, float]:
    """(wall, GUI-thread CPU, core wait) at one instant, seconds. Read one after the other, a
    wait for a core between the reads would count as waiting in one gap and as wall time in the
    next; the wait (which moves only while the thread is off the processor) is read on both
    sides and the clocks read again until it has not moved."""
    wait = _runqueue_wait()
    for _ in range(5):
        now, cpu = time.perf_counter(), time.thread_time()
        after = _runqueue_wait()
        if after == wait:
            break
        wait = after
    return now, cpu, wait


def _runqueue_wait() -> float:
    """Seconds the calling thread has spent ready to run but waiting for a core (0.0 where the
    system does not say)."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class BlockLocator:
    """Where every thread is while the GUI thread has not ticked for `after_ms`: a thread of its
    own looks every millisecond. It needs the interpreter lock too, so when another thread holds
    the lock in one long call it sees that thread just after the call, still on the line that
    made it; when the GUI thread itself is busy it sees it mid-work."""

    def __init__(self, beat: Heartbeat, after_ms: float = 30.0) -> None:
        import threading

        self.beat, self.after = beat, after_ms / 1000
        self.gui = threading.get_ident()
        self.seen: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="block-locator", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import threading
        import traceback

        names = {}
        while not self._stop.wait(0.001):
            gap = time.perf_counter() - self.beat.last
            if gap < self.after:
                continue
            names.update({t.ident: t.name for t in threading.enumerate()})
            me = threading.get_ident()
            lines = []
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                stack = traceback.extract_stack(frame)[-6:]
                where = " <- ".join(
                    f"{f.name} ({Path(f.filename).name}:{f.lineno})" for f in stack[::-1]
                )
                who = "GUI" if ident == self.gui else names.get(ident, str(ident))
                lines.append(f"    {who}: {where}")
            self.seen.append((gap * 1000, "\n".join(lines)))

    def report(self, name: str) -> None:
        if self.seen:
            gap, where = max(self.seen)
            print(f"--- {name}: GUI thread {gap:.0f} ms without a tick; threads then:\n{where}")
        self.seen.clear()

    def stop(self) -> None:
        self._stop.set()


class GcPauses:
    """The longest pause of the cyclic garbage collector since `reset()`, per generation, with
    the number of objects it tracked: a block the GUI thread's own code does not explain is often
    a collection of the oldest generation over every object the window keeps."""

    def __init__(self) -> None:
        import gc

        self.longest: dict[int, float] = {}
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = (time.perf_counter() - self._started) * 1000
        gen = info["generation"]
        self.longest[gen] = max(self.longest.get(gen, 0.0), took)

    def reset(self) -> None:
        self.longest.clear()

    def report(self, name: str) -> None:
        import gc

        parts = ", ".join(f"gen{g} {ms:.0f} ms" for g, ms in sorted(self.longest.items()))
        tracked = gc.get_objects()
        print(f"--- {name}: longest collections: {parts or 'none'}; tracked {len(tracked):,}")
        kinds: dict[str, int] = {}
        for obj in tracked:
            kind = type(obj).__qualname__
            kinds[kind] = kinds.get(kind, 0) + 1
        top = sorted(kinds.items(), key=lambda kv: -kv[1])[:10]
        print("    most tracked: " + ", ".join(f"{k} {n:,}" for k, n in top))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10_000)
    parser.add_argument("--keep", metavar="DIR", help="generate into (or reuse) DIR")
    parser.add_argument(
        "--set",
        metavar="DIR",
        help="measure on this skill set as it is (e.g. ../shared/realsets laid out) instead of "
        "generating one",
    )
    parser.add_argument(
        "--profile-step",
        metavar="TEXT",
        help="print where the GUI thread spent its time in the "
        "interactions whose name contains TEXT (cProfile)",
    )
    parser.add_argument(
        "--locate",
        action="store_true",
        help="print where the threads were during each interaction's longest block over 30 ms",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="run the whole sequence N times, each in a fresh process; print worst and median",
    )
    parser.add_argument(
        "--gc",
        action="store_true",
        help="print, per interaction, the longest pause of the GUI process's cyclic garbage "
        "collector and how many objects it tracked then (only watched, never tuned)",
    )
    parser.add_argument("--json", metavar="FILE", help=argparse.SUPPRESS)  # one run's figures
    # each interaction's (name, start, end) on the monotonic clock, for bench_ping.py's probe
    parser.add_argument("--intervals", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.runs > 1:
        return repeat(args)

    tmp = tempfile.TemporaryDirectory(prefix="skillprism-stall-")
    repo = Path(args.set or args.keep or Path(tmp.name) / "repo")
    if not args.set and not (repo / "plugins").is_dir():
        start = time.perf_counter()
        generate_repository(repo, args.n)
        print(f"generated {args.n:,} skills in {time.perf_counter() - start:.1f} s: {repo}")
    project = Path(tmp.name) / "project"
    project.mkdir()
    home = Path(tmp.name) / "home"
    home.mkdir()
    os.environ["HOME"] = str(home)  # the runtimes' personal folders: empty, for both runs

    check_s = time_check(str(repo), str(project))

    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from skillprism.gui.app import make_application
    from skillprism.gui.main_window import MainWindow

    app = make_application()
    settings = QSettings(str(Path(tmp.name) / "settings.ini"), QSettings.Format.IniFormat)
    beat = Heartbeat()
    beat.start()
    locator = BlockLocator(beat) if args.locate else None
    pauses = GcPauses() if args.gc else None
    # (interaction, longest block ms, seconds until answered, GUI-thread CPU ms in that block, note)
    rows: list[tuple[str, float, float, float, str]] = []
    intervals: list[tuple[str, float, float]] = []

    def run_loop_ms(ms: int) -> None:
        """Run the event loop itself for `ms`, as the application does: it blocks when idle, and
        before it blocks the xcb plugin flushes what the window sends to the X server (its
        answers to _NET_WM_PING among them). A loop of processEvents() never blocks, so those
        answers waited in the buffer while nothing was painted (bench_ping's outside-only
        spikes while the engine computed)."""
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def pump(seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            run_loop_ms(1)

    def until(done: Callable[[], bool], timeout: float = 120.0) -> None:
        end = time.perf_counter() + timeout
        while not done():
            if time.perf_counter() > end:
                raise SystemExit("timed out waiting for the window")
            run_loop_ms(1)

    def measure(name: str, act: Callable[[], None], done: Callable[[], bool]) -> float:
        pump(0.3)
        profiler = None
        if args.profile_step and args.profile_step in name:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        beat.reset()
        if locator is not None:
            locator.seen.clear()
        if pauses is not None:
            pauses.reset()
        start, since = time.perf_counter(), time.monotonic()
        act()
        until(done)
        took = time.perf_counter() - start
        pump(0.3)  # what the window does right after the answer counts too
        intervals.append((name, since, time.monotonic()))
        rows.append((name, beat.longest_ms, took, beat.longest_cpu * 1000, ""))
        if locator is not None:
            locator.report(name)
        if pauses is not None:
            pauses.report(name)
        if profiler is not None:
            import pstats

            profiler.disable()
            print(f"--- {name}")
            stats = pstats.Stats(profiler).sort_stats("tottime")
            stats.print_stats(14)
            if os.environ.get("BENCH_CALLERS"):
                stats.print_callers(os.environ["BENCH_CALLERS"])
        return took

    # Counted, not kept: a list of every view applied would keep each one's rows alive, which
    # the window itself does not, and every collection would walk them.
    applied: list[None] = []
    shown: list[str] = []
    start = time.perf_counter()
    window = MainWindow(
        roots=[str(repo)], profile=PROFILE, project=str(project), dark=False, settings=settings
    )
    window.sig_catalog_applied.connect(lambda _view: applied.append(None))
    window.sig_skill_shown.connect(shown.append)
    window.resize(1440, 900)
    beat.reset()
    if locator is not None:
        locator.seen.clear()  # building the window is not part of opening the set
    profiler = None
    if args.profile_step and args.profile_step in "open":
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    since = time.monotonic()
    window.show()
    window.reload()
    until(lambda: bool(applied))
    app.processEvents()
    intervals.append(("open (whole set shown)", since, time.monotonic()))
    if profiler is not None:
        pump(0.3)
        profiler.disable()
        import pstats

        print("--- open")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    open_s = time.perf_counter() - start
    rows.append(("open (whole set shown)", beat.longest_ms, open_s, beat.longest_cpu * 1000, ""))
    if locator is not None:
        locator.report("open")
    loaded = window.loaded
    assert loaded is not None
    until(lambda: window.watch_mode[0] in ("native", "polling", "off"), 60)
    pump(1.0)

    def typing(text: str) -> Callable[[], None]:
        def act() -> None:
            for ch in text:
                window.filter_edit.insert(ch)
                pump(0.12)  # a quick typist

        return act

    measure(
        "filter: type 'pdf'",
        typing("pdf"),
        lambda: window.tree_model.filtered and not window.engine.pending("filter"),
    )

    def clear() -> None:
        for _ in range(3):
            window.filter_edit.backspace()
            pump(0.12)

    measure(
        "filter: clear it",
        clear,
        lambda: not window.tree_model.filtered and not window.engine.pending("filter"),
    )

    active = [s for s in loaded.skills if s.status in ("ok", "warning")] or list(loaded.skills)
    ordinary = next(s for s in active if "bulk" not in s.directory)
    # the skill with the most files (a generated set has one with 2,000)
    large = max(active[:400], key=lambda s: sum(len(f) for _d, _s, f in os.walk(s.directory)))
    del active  # (what the bench keeps, the window's collections walk too)
    for label, skill in (("select a skill", ordinary), ("select the skill with most files", large)):
        before = len(shown)
        measure(label, lambda s=skill: window.select_skill(s.key), lambda b=before: len(shown) > b)

    def switch(profile: str) -> Callable[[], None]:
        return lambda: window.profile_combo.setCurrentIndex(window.profile_combo.findData(profile))

    before = len(applied)
    measure(
        "switch runtime (to codex)",
        switch("codex"),
        lambda: len(applied) > before and window.loaded.spec.profile == "codex",  # type: ignore[union-attr]
    )
    before = len(applied)
    measure(
        "switch runtime (back)",
        switch(PROFILE),
        lambda: len(applied) > before and window.loaded.spec.profile == PROFILE,  # type: ignore[union-attr]
    )
    before = len(applied)
    measure("reload (F5)", window.reload, lambda: len(applied) > before)

    target = Path(ordinary.path)
    original = target.read_bytes()

    def restore() -> None:
        # (a generated set has gone with its temporary folder by then: nothing to give back)
        with contextlib.suppress(FileNotFoundError):
            if target.read_bytes() != original:
                target.write_bytes(original)

    # The set may be a real one (--set): the file saved is given back its bytes when the bench
    # ends, however it ends, after the interactions (a write now would be one more refresh).
    atexit.register(restore)

    def save() -> None:
        target.write_bytes(original + b"\nOne more line.\n")

    before = len(applied)
    if window.watch_mode[0] in ("native", "polling"):
        measure("a SKILL.md saved on disk", save, lambda: len(applied) > before)
    else:
        rows.append(
            ("a SKILL.md saved on disk", 0.0, 0.0, 0.0, f"not watching: {window.watch_mode[1]}")
        )

    window.budget_dock.raise_()
    pump(0.2)
    measure(
        "budget dock shown",
        lambda: None,
        lambda: window.budget._result is not None and not window.engine.pending("tier1"),
    )
    measure(
        "budget control (context 32k)",
        lambda: window.budget.context.setCurrentIndex(window.budget.context.findText("32k")),
        lambda: not window.engine.pending("tier1"),
    )
    window.matrix_dock.raise_()
    pump(0.2)
    measure(
        "compare runtimes (4)",
        window.matrix.compare,
        lambda: window.matrix.model.matrix is not None and not window.engine.pending("matrix"),
    )

    window.shutdown()
    QApplication.processEvents()
    if locator is not None:
        locator.stop()

    what = args.set or f"{args.n:,} skills laid out like a repository"
    print(f"\n{what} ({PROFILE}, {len(loaded.skills):,} skill files); check took {check_s:.2f} s")
    print(
        f"{'interaction':36} {'longest block':>14} {'target':>8} {'took':>8} "
        f"{'GUI CPU in it':>14}  verdict"
    )
    failed = False
    for name, block, took, cpu, note in rows:
        ok = block <= BLOCK_TARGET_MS
        failed |= not ok
        verdict = note or ("ok" if ok else "OVER")
        print(
            f"{name:36} {block:11.1f} ms {BLOCK_TARGET_MS:5.0f} ms {took:7.2f} s "
            f"{cpu:11.0f} ms  {verdict}"
        )
    print(
        "(GUI CPU in it: the GUI thread's own CPU time during its longest block; the rest of the "
        "block the GUI process was not running: the processor was busy with other processes, "
        "the engine's among them)"
    )
    if args.intervals:
        Path(args.intervals).write_text(json.dumps(intervals), encoding="utf-8")
    if args.json:
        figures = {"rows": rows, "open_s": open_s, "check_s": check_s}
        Path(args.json).write_text(json.dumps(figures), encoding="utf-8")
    ratio = open_s / check_s if check_s else float("inf")
    open_ok = ratio <= OPEN_TARGET_RATIO
    failed |= not open_ok
    print(
        f"{'open vs check':36} {open_s:11.2f} s  {check_s * OPEN_TARGET_RATIO:6.2f} s  "
        f"ratio {ratio:.2f}x (target <= {OPEN_TARGET_RATIO:.1f}x)  {'ok' if open_ok else 'OVER'}"
    )
    return 1 if failed else 0


def repeat(args: argparse.Namespace) -> int:
    """Run the sequence `args.runs` times in fresh processes; print the worst and the median."""
    import statistics

    runs: list[dict] = []  # type: ignore[type-arg]
    keep = args.keep or tempfile.mkdtemp(prefix="skillprism-stall-set-")
    with tempfile.TemporaryDirectory(prefix="skillprism-stall-runs-") as tmp:
        for i in range(args.runs):
            out = Path(tmp) / f"run-{i}.json"
            cmd = [sys.executable, __file__, "-n", str(args.n), "--keep", keep, "--json", str(out)]
            if args.set:
                cmd += ["--set", args.set]
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
            if not out.exists():
                print(f"run {i + 1} failed", file=sys.stderr)
                return 2
            runs.append(json.loads(out.read_text(encoding="utf-8")))
            print(f"run {i + 1} of {args.runs} done", file=sys.stderr)
    what = args.set or f"{args.n:,} skills laid out like a repository"
    print(f"\n{what} ({PROFILE}); {args.runs} runs")
    print(f"{'interaction':36} {'worst block':>12} {'median':>10} {'target':>8}  verdict")
    failed = False
    for pos, row in enumerate(runs[0]["rows"]):
        name, note = row[0], row[4]
        blocks = [run["rows"][pos][1] for run in runs]
        ok = max(blocks) <= BLOCK_TARGET_MS
        failed |= not ok and not note
        verdict = note or ("ok" if ok else "OVER")
        print(
            f"{name:36} {max(blocks):9.1f} ms {statistics.median(blocks):7.1f} ms "
            f"{BLOCK_TARGET_MS:5.0f} ms  {verdict}"
        )
    ratios = [run["open_s"] / run["check_s"] for run in runs]
    open_ok = max(ratios) <= OPEN_TARGET_RATIO
    failed |= not open_ok
    print(
        f"{'open vs check (ratio)':36} {max(ratios):10.2f}x {statistics.median(ratios):8.2f}x "
        f"{OPEN_TARGET_RATIO:7.1f}x  {'ok' if open_ok else 'OVER'}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
