"""The check's worker processes: results come back to the job that asked, a failing job or a dying
worker is reported instead of waited for, nothing runs in a thread of the calling process, and
large jobs and results both ways never deadlock."""

from __future__ import annotations

import math
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import pytest

from skillprism.core.workers import JobFailed, WorkerDied, WorkerPool, _serve

METHODS = [m for m in ("fork", "forkserver") if m in multiprocessing.get_all_start_methods()]


@pytest.fixture(params=METHODS)
def pool(request):  # type: ignore[no-untyped-def]
    made = WorkerPool(multiprocessing.get_context(request.param), 2, int, ())
    yield made
    made.close()


def test_each_job_gets_its_own_result(pool) -> None:  # type: ignore[no-untyped-def]
    jobs = [(pool.submit(math.sqrt, n * n), n) for n in range(20)]
    assert [pool.result(job) for job, _n in reversed(jobs)] == [
        float(n) for _j, n in reversed(jobs)
    ]


def test_a_job_that_raises_fails_alone(pool) -> None:  # type: ignore[no-untyped-def]
    bad = pool.submit(math.sqrt, -1)
    good = pool.submit(math.sqrt, 4)
    with pytest.raises(JobFailed, match="ValueError"):
        pool.result(bad)
    assert pool.result(good) == 2.0
    assert pool.result(pool.submit(len, "abc")) == 3  # the worker goes on


def test_a_worker_that_dies_fails_its_jobs_and_the_others_go_on(pool) -> None:  # type: ignore[no-untyped-def]
    doomed = pool.submit(os._exit, 3)  # the worker ends while on it
    with pytest.raises(WorkerDied):
        pool.result(doomed)
    assert pool.result(pool.submit(len, "ab")) == 2  # handed to the worker that is left
    with pytest.raises(WorkerDied):
        pool.result(pool.submit(os._exit, 3))
    with pytest.raises(WorkerDied):
        pool.submit(len, "a")  # none is left


def test_the_calling_process_runs_no_thread_of_the_pool() -> None:
    before = threading.active_count()
    made = WorkerPool(multiprocessing.get_context(METHODS[0]), 2, int, ())
    try:
        jobs = [made.submit(len, "x" * n) for n in range(10)]
        assert [made.result(job) for job in jobs] == list(range(10))
        assert threading.active_count() == before
    finally:
        made.close()


def test_large_jobs_and_results_both_ways_do_not_deadlock(pool) -> None:  # type: ignore[no-untyped-def]
    size = 4 * 1024 * 1024  # far beyond a pipe's buffer, several in flight on each worker
    sent = [pool.submit(len, b"x" * size) for _ in range(4)]
    made = [pool.submit(bytes, size) for _ in range(4)]
    assert [pool.result(job) for job in sent] == [size] * 4
    assert [len(pool.result(job)) for job in made] == [size] * 4


def test_close_stops_every_worker() -> None:
    made = WorkerPool(multiprocessing.get_context(METHODS[0]), 2, int, ())
    processes = [w.process for w in made._workers]
    made.submit(time.sleep, 30)  # busy: close does not wait for it
    made.close()
    assert not any(p.is_alive() for p in processes)


def test_workers_end_when_the_process_that_started_them_ends(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = (
        "import multiprocessing, os, sys\n"
        "from skillprism.core.workers import WorkerPool\n"
        "pool = WorkerPool(multiprocessing.get_context('fork'), 2, int, ())\n"
        "print(' '.join(str(w.process.pid) for w in pool._workers), flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    pids = [int(pid) for pid in out.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.05)
    assert not any(_running(pid) for pid in pids)


def _running(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_worker_answers_each_job_in_order_until_its_job_pipe_closes() -> None:
    # The worker's own loop, run here (a worker process's lines are not measured).
    job_reader, jobs_out = multiprocessing.Pipe(duplex=False)
    results_in, result_writer = multiprocessing.Pipe(duplex=False)
    for job_id, func, arg in ((1, len, "abc"), (2, math.sqrt, -1), (3, memoryview, b"ab")):
        jobs_out.send_bytes(ForkingPickler.dumps((job_id, func, arg)))
    jobs_out.close()
    _serve(job_reader, result_writer, int, ())
    result_writer.close()
    answers = []
    while results_in.poll(5):
        try:
            answers.append(ForkingPickler.loads(results_in.recv_bytes()))
        except EOFError:
            break
    assert answers[0] == (1, True, 3)
    assert answers[1][:2] == (2, False) and "ValueError" in answers[1][2]
    assert answers[2][:2] == (3, False) and "not sendable" in answers[2][2]


def test_the_test_runs_settrace_waits_out_another_threads_installation() -> None:
    import settrace_guard

    calls = []

    def racing(func: object) -> None:
        calls.append(func)
        if len(calls) < 3:
            raise RuntimeError(
                "Cannot install a trace function while another trace function is being installed"
            )

    settrace_guard.retrying(racing)(None)
    assert calls == [None, None, None]
    with pytest.raises(RuntimeError, match="other"):
        settrace_guard.retrying(_raise_other)(None)


def _raise_other(func: object) -> None:
    raise RuntimeError("some other failure")


_idle_mark = ""


def _set_idle_mark(path: str) -> None:
    global _idle_mark
    _idle_mark = path


def _mark_idle() -> None:
    with open(_idle_mark, "a") as fh:
        fh.write(f"{os.getpid()}\n")


def _wait(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@pytest.mark.parametrize("method", METHODS)
def test_a_worker_out_of_jobs_calls_idle_before_its_last_result(tmp_path, method) -> None:  # type: ignore[no-untyped-def]
    """What a worker keeps to write later is written when it runs out of jobs, and before the
    result that leaves it idle: a caller holding every result may stop it at once."""
    mark = tmp_path / "idle"
    context = multiprocessing.get_context(method)
    made = WorkerPool(context, 1, _set_idle_mark, (str(mark),), _mark_idle)
    try:
        # three jobs handed over at once: idle only after the last
        jobs = [made.submit(_wait, 0.2) for _ in range(3)]
        assert made.result(jobs[0]) == 0.2
        assert not mark.exists()  # two more were waiting
        for job in jobs[1:]:
            made.result(job)
        assert len(mark.read_text().split()) == 1  # written before the last result came
    finally:
        made.close()


_warmed: list[int] = []


def _remember(n: int) -> list[int]:
    """(in a worker) Keep `n` in this process's memory and say what it holds."""
    _warmed.append(n)
    return list(_warmed)


def _pid(_: object) -> int:
    return os.getpid()


def _exit_unless(pid: int) -> int:
    if os.getpid() != pid:
        os._exit(3)
    return pid


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif("fork" not in METHODS, reason="spare workers are forked")
def test_a_sibling_is_forked_from_the_first_worker_with_what_it_built() -> None:
    made = WorkerPool(multiprocessing.get_context("fork"), 1, int, (), spares=1)
    try:
        assert made.result(made.submit(_remember, 1)) == [1]
        first = made.result(made.submit(_pid, None))
        assert made.add_sibling()
        assert not made.add_sibling()  # no spare left
        # jobs go to the one with fewer waiting: both get some, the copy holds the first's memory
        jobs = [made.submit(_remember, n) for n in (2, 3)]
        held = sorted(made.result(job) for job in jobs)
        assert held == [[1, 2], [1, 3]] or held == [[1, 3], [1, 2]]
        pids = {made.result(job) for job in [made.submit(_pid, None) for _ in range(4)]}
        assert first in pids and len(pids) == 2
        sibling = (pids - {first}).pop()
    finally:
        made.close()
    for pid in (first, sibling):
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(pid)  # stopped, and no zombie is left


@pytest.mark.skipif("fork" not in METHODS, reason="spare workers are forked")
def test_a_sibling_that_dies_fails_its_jobs_and_the_first_goes_on() -> None:
    made = WorkerPool(multiprocessing.get_context("fork"), 1, int, (), spares=1)
    try:
        first = made.result(made.submit(_pid, None))
        assert made.add_sibling()
        jobs = [made.submit(_exit_unless, first) for _ in range(4)]  # the copy ends on its first
        died = 0
        for job in jobs:
            try:
                assert made.result(job, timeout=10) == first
            except WorkerDied:
                died += 1
        assert 1 <= died <= 3
        assert made.result(made.submit(_pid, None), timeout=10) == first
    finally:
        made.close()


def test_spares_need_one_forked_process() -> None:
    with pytest.raises(ValueError):
        WorkerPool(multiprocessing.get_context(METHODS[0]), 2, int, (), spares=1)


def _work_through(n: int) -> int:
    """(in a worker) A job of many items, letting urgent jobs in between them."""
    from skillprism.core.workers import run_urgent

    for _ in range(n):
        run_urgent()
        time.sleep(0.01)
    return os.getpid()


@pytest.mark.skipif("fork" not in METHODS, reason="spare workers are forked")
def test_a_worker_that_forked_during_its_last_job_is_idle_before_that_jobs_result(
    tmp_path: Path,
) -> None:
    # The wake-up left by an urgent job run during a job is no job: the worker still writes
    # what it keeps (its idle hook) before the last result goes, after which it may be stopped.
    marks = tmp_path / "idle"
    made = WorkerPool(
        multiprocessing.get_context("fork"),
        1,
        _set_idle_mark,
        (str(marks),),
        _mark_idle,
        spares=1,
    )
    try:
        job = made.submit(_work_through, 30)
        time.sleep(0.05)  # (on the job by now)
        assert made.add_sibling()
        first = made.result(job, timeout=20)
        # once before the fork (the copy must not write the same again), once after the job
        assert marks.read_text().split() == [str(first), str(first)]
    finally:
        made.close()


def _no_fork() -> None:
    def refuse() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    os.fork = refuse  # (in the worker only)


@pytest.mark.skipif("fork" not in METHODS, reason="spare workers are forked")
def test_a_sibling_that_cannot_be_forked_is_gone_and_nothing_waits_for_it() -> None:
    made = WorkerPool(multiprocessing.get_context("fork"), 1, _no_fork, (), spares=1)
    try:
        first = made.result(made.submit(_pid, None), timeout=10)
        assert made.add_sibling()
        jobs = [made.submit(_pid, None) for _ in range(4)]
        got = []
        for job in jobs:
            try:
                got.append(made.result(job, timeout=10))
            except WorkerDied:
                got.append(0)
        assert set(got) <= {first, 0} and first in got
        assert made.result(made.submit(_pid, None), timeout=10) == first
    finally:
        made.close()


def test_a_forked_worker_is_known_by_its_pipe_its_id_on_it_and_its_end_its_death() -> None:
    from skillprism.core.workers import _ForkedProcess

    sleeper = subprocess.Popen(["sleep", "30"])  # stands in for a worker forked elsewhere
    try:
        alive_r, alive_w = os.pipe()
        forked = _ForkedProcess(alive_r)
        assert forked.is_alive() and forked.pid == 0  # started, its id not come yet
        forked.kill()  # (nothing to kill without its id)
        os.write(alive_w, sleeper.pid.to_bytes(8, "little"))
        assert forked.is_alive() and forked.pid == sleeper.pid
        forked.kill()
        assert sleeper.wait(timeout=10) == -9
        os.close(alive_w)  # (the copy's end of the pipe, closed as it dies)
        assert not forked.is_alive()
        forked.join()
        assert not forked.is_alive()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_forked_worker_whose_id_comes_while_it_is_stopped_is_killed() -> None:
    from skillprism.core.workers import _ForkedProcess

    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        alive_r, alive_w = os.pipe()
        forked = _ForkedProcess(alive_r)

        def late() -> None:
            time.sleep(0.1)
            os.write(alive_w, sleeper.pid.to_bytes(8, "little"))
            sleeper.wait()
            os.close(alive_w)

        writer = threading.Thread(target=late)
        writer.start()
        forked.join(timeout=10)  # waits for its id, kills it, then sees its end
        writer.join()
        assert sleeper.returncode == -9
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_wake_up_for_an_urgent_job_is_not_a_job_waiting() -> None:
    import queue

    from skillprism.core.workers import _job_waiting

    jobs: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    ahead: list[bytes | None] = []
    assert not _job_waiting(jobs, ahead)
    jobs.put(b"")  # a wake-up whose job ran already
    assert not _job_waiting(jobs, ahead) and ahead == []
    jobs.put(b"")
    jobs.put(b"job")
    assert _job_waiting(jobs, ahead) and ahead == [b"job"]
    assert _job_waiting(jobs, ahead)  # (kept, not taken twice)
    ahead.clear()
    jobs.put(None)  # the end: no job, and kept for the loop to see
    assert not _job_waiting(jobs, ahead) and ahead == [None]


@pytest.mark.skipif("fork" not in METHODS, reason="spare workers are forked")
def test_a_first_worker_gone_forks_no_sibling_and_unforked_spares_are_closed() -> None:
    made = WorkerPool(multiprocessing.get_context("fork"), 1, int, (), spares=2)
    try:
        with pytest.raises(WorkerDied):
            made.result(made.submit(os._exit, 3), timeout=10)
        assert not made.add_sibling()
        assert not made.alive()
    finally:
        made.close()  # (closes the spares never forked too)
