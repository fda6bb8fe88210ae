"""Running the runtime's CLI once per prompt and run, and reading each outcome as it arrives.

One subprocess per run, at most `concurrency` at once, each in its own process group (so a
timeout or a cancel ends the CLI with everything it started), its stdout read line by line by the
profile's stream reader. A run that outlives `timeout` seconds is `timeout`; a cancel (core/
cancel.py, or the `stop` callable) kills the running groups, starts nothing more and raises
`Cancelled` once they are gone. Results come back in the order they finish.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from skillprism.core.cancel import Cancelled, stop_check
from skillprism.core.live_trigger.reader import RunOutcome, StreamReader
from skillprism.core.live_trigger.spec import LiveSpec

POLL = 0.05  # seconds between looks at a running process (timeout, cancel)
CLI_NICENESS = 19  # the scheduling group of a CLI in a session of its own: the lowest weight


@dataclass(frozen=True)
class Job:
    index: int  # the prompt's place in the list
    prompt: str
    run: int  # 1..runs


@dataclass(frozen=True)
class RunResult:
    job: Job
    outcome: RunOutcome


@dataclass(frozen=True)
class Launch:
    """How to start the CLI: `prefix` goes before its arguments (the lab's network namespace
    wrapper), `program` replaces its name, `extra` arguments go before the prompt, `env` is the
    whole environment (None: this one, untouched)."""

    cwd: str
    program: str | None = None
    prefix: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None


def jobs(prompts: Sequence[str], runs: int) -> list[Job]:
    """Every run of every prompt, the runs of one prompt spread apart (a slow prompt does not
    hold the slots all at once)."""
    return [Job(i, p, r) for r in range(1, runs + 1) for i, p in enumerate(prompts)]


def give_way(pid: int) -> None:
    """Make the CLI started as `pid` in a session of its own, and all it starts, give way to
    the window.

    Linux schedules each session as a group of its own (autogroup), and a group's weight is its
    own niceness, not its processes': a CLI in a new session would compete with the window as
    an equal however nice the engine that started it is. The group gets the lowest weight
    there is, and the CLI the idle policy, which its threads and children inherit (also in
    sessions they start themselves): a thread of the window that wakes takes the core from
    them at once rather than waiting for its turn among four CLIs' threads. Where there are
    no such groups or policies this does nothing."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
    try:
        with open(f"/proc/{pid}/autogroup", "w", encoding="ascii") as group:
            group.write(str(CLI_NICENESS))
    except (OSError, AttributeError):
        pass  # not Linux, autogroup off, or the CLI already gone


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_one(
    spec: LiveSpec,
    job: Job,
    launch: Launch,
    intended: str,
    skills: Mapping[str, str],
    timeout: float,
    stop: Callable[[], bool],
) -> RunOutcome:
    """One run of the CLI on `job.prompt` (see the module)."""
    argv = [*launch.prefix, *spec.argv(job.prompt, launch.program, launch.extra)]
    reader = StreamReader(spec, intended, skills)
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                argv,
                cwd=launch.cwd,
                env=dict(launch.env) if launch.env is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
            )
        except OSError as exc:
            return RunOutcome("error", message=f"cannot start {argv[0]}: {exc.strerror or exc}")
        give_way(proc.pid)
        assert proc.stdout is not None
        out = proc.stdout

        def read() -> None:
            for raw in out:
                reader.feed(raw.decode("utf-8", "replace"))

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        timed_out = stopped = False
        while proc.poll() is None:
            if time.monotonic() - start > timeout:
                timed_out = True
            elif stop():
                stopped = True
            if timed_out or stopped:
                _kill(proc)
                break
            time.sleep(POLL)
        proc.wait()
        thread.join(5)
        seconds = round(time.monotonic() - start, 3)
        if stopped:
            raise Cancelled
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if timed_out:
        if reader.used:  # the model picked a skill before the run was cut off
            return reader.outcome(0, stderr, seconds)
        return RunOutcome(
            "timeout",
            message=f"no answer within {timeout:g} s",
            model=reader.model,
            seconds=seconds,
        )
    return reader.outcome(proc.returncode, stderr, seconds)


def iter_runs(
    spec: LiveSpec,
    todo: Sequence[Job],
    launch: Launch,
    intended: str,
    skills: Mapping[str, str],
    *,
    timeout: float = 120.0,
    concurrency: int = 2,
    stop: Callable[[], bool] | None = None,
) -> Iterator[RunResult]:
    """Run every job, yielding each result as it finishes; `Cancelled` when stopped."""
    if stop is None:
        stop = stop_check()  # the caller's cancel scope, asked from every run's thread

    halt = threading.Event()

    def stopping() -> bool:
        return halt.is_set() or stop()

    pending = list(todo)
    running: dict[Future[RunOutcome], Job] = {}
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        try:
            while pending or running:
                while pending and len(running) < max(1, concurrency) and not stopping():
                    job = pending.pop(0)
                    fut = pool.submit(
                        run_one, spec, job, launch, intended, skills, timeout, stopping
                    )
                    running[fut] = job
                if stopping() and not running:
                    raise Cancelled
                done, _ = wait(running, timeout=POLL, return_when=FIRST_COMPLETED)
                for fut in done:
                    job = running.pop(fut)
                    try:
                        outcome = fut.result()
                    except Cancelled:
                        halt.set()
                        continue
                    yield RunResult(job, outcome)
        finally:
            halt.set()  # a consumer that stops early (or a cancel) ends every running CLI
