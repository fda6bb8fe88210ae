"""Worker processes for the check, driven from the calling thread alone.

`multiprocessing.Pool` runs three helper threads in the process that uses it. When one of them
ends before its time every job waits forever, and `Pool.terminate()` then waits too, for a lock
that the idle worker holds (a clean-clone CI run hung so, its task thread gone, the worker idle
and the check waiting for a job that was never handed over). This pool has no thread in the process
that uses it: each worker has pipes of its own, the caller sends jobs and reads results itself, a
worker that dies is seen by its sentinel, and stopping a worker is killing it, since it holds no
lock that anyone else waits for.

Inside a worker one thread reads jobs as they come, so a caller never waits on a worker busy with
its last job, and another sends results, so a worker goes on with its next job while the caller
has not read the last one yet. A worker that runs out of jobs calls `idle` (if given) before it
sends the result of its last one: what a worker keeps to write later (the security cache's rows)
is written while nothing waits for it, and before the caller, holding every result, may stop it.

A pool started by fork with `spares` can later grow by a worker forked from its first one
(`add_sibling`): the copy starts with everything the first worker has built while it worked (the
security pass's automaton states, the patterns it compiled), which a worker forked from the
caller would build again for the same texts."""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import connection, parent_process
from multiprocessing.reduction import ForkingPickler
from typing import Any


class WorkerDied(ChildProcessError):
    """A worker process ended (killed, crashed) with jobs of this pool not done."""


class JobFailed(RuntimeError):
    """A job raised in its worker; the message names the exception."""


@dataclass(eq=False)
class Job:
    """One function call handed to a worker; `done` once its result (or failure) is read."""

    id: int
    worker: int
    done: bool = False
    ok: bool = False
    value: Any = None


class _ForkedProcess:
    """A worker forked by another worker (not this process's child): known by a pipe that only
    it holds open, on which it writes its process id when it starts; the pipe's end (EOF) is its
    death."""

    def __init__(self, alive_fd: int) -> None:
        self.sentinel = alive_fd
        self.pid = 0
        self._ended = False

    def _poll(self, timeout: float) -> None:
        if self._ended:
            return
        ready, _, _ = select.select([self.sentinel], [], [], timeout)
        if not ready:
            return
        data = os.read(self.sentinel, 64)
        if data:
            self.pid = int.from_bytes(data[:8], "little")
        else:
            self._ended = True

    def is_alive(self) -> bool:
        self._poll(0)
        return not self._ended

    def kill(self) -> None:
        self._poll(0)
        if not self._ended and self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def join(self, timeout: float = 2.0) -> None:
        deadline = time.monotonic() + timeout
        while not self._ended and (left := deadline - time.monotonic()) > 0:
            self._poll(left)
            if not self._ended and self.pid:
                self.kill()  # its id came late: it started while it was being stopped
        with contextlib.suppress(OSError):
            os.close(self.sentinel)
        self._ended = True


@dataclass(eq=False)
class _Spare:
    """The pipes of a worker the first worker may fork later: the caller's ends and the ends the
    forked worker will use (held by the first worker until then)."""

    jobs_out: Any
    results_in: Any
    alive_r: int
    job_reader: Any
    result_writer: Any
    alive_w: int


@dataclass(eq=False)
class _Worker:
    process: Any
    jobs_out: Any  # the caller's end of the job pipe
    results_in: Any  # the caller's end of the result pipe
    pending: dict[int, Job] = field(default_factory=dict)
    alive: bool = True


class WorkerPool:
    """`processes` workers started from `context` (fork or forkserver), each calling
    `initializer(*initargs)` first. `submit` hands a job to the worker with the fewest not done,
    `result` waits for one; every read happens in the thread that calls them."""

    def __init__(
        self,
        context: Any,
        processes: int,
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        idle: Callable[[], None] | None = None,
        spares: int = 0,
    ) -> None:
        """`spares`: how many workers the first one may fork later (`add_sibling`); only with
        one process started by fork (the spares' pipes reach the first worker by the fork)."""
        if spares and (processes != 1 or context.get_start_method() != "fork"):
            raise ValueError("spare workers need a pool of one process started by fork")
        self._ids = itertools.count()
        self._workers: list[_Worker] = []
        self._spares: list[_Spare] = []
        try:
            for _ in range(spares):
                job_reader, jobs_out = context.Pipe(duplex=False)
                results_in, result_writer = context.Pipe(duplex=False)
                alive_r, alive_w = os.pipe()
                self._spares.append(
                    _Spare(jobs_out, results_in, alive_r, job_reader, result_writer, alive_w)
                )
            for _ in range(processes):
                job_reader, jobs_out = context.Pipe(duplex=False)
                results_in, result_writer = context.Pipe(duplex=False)
                try:
                    process = context.Process(
                        target=_serve,
                        args=(job_reader, result_writer, initializer, initargs, idle, self._spares),
                        daemon=True,
                    )
                    process.start()
                except BaseException:
                    for end in (jobs_out, results_in):
                        end.close()
                    raise
                finally:
                    job_reader.close()  # the worker's ends: this process keeps its own
                    result_writer.close()
                    self._close_spare_ends()
                self._workers.append(_Worker(process, jobs_out, results_in))
        except BaseException:
            self.close()
            raise

    def _close_spare_ends(self) -> None:
        """Close this process's copies of the ends the spares' workers will use: the first
        worker holds them (it got them by the fork), and a pipe's end is seen only once no
        process holds its other end."""
        for spare in self._spares:
            for end in (spare.job_reader, spare.result_writer):
                with contextlib.suppress(OSError):
                    end.close()
            if spare.alive_w >= 0:
                with contextlib.suppress(OSError):
                    os.close(spare.alive_w)
                spare.alive_w = -1

    def add_sibling(self) -> bool:
        """Grow the pool by a worker forked from the first one, which starts with all that one
        has built; False when no spare is left or the first worker is gone. Jobs can be
        submitted to it at once: they wait in its pipe until it runs (the first worker forks it
        between two jobs, or between two items of a job that calls `run_urgent`)."""
        if not self._spares or not self._workers or not self._workers[0].alive:
            return False
        first = self._workers[0]
        spare = self._spares.pop(0)  # (the first worker's copy of the list pops alike)
        try:
            job = Job(next(self._ids), 0)
            # (urgent: run before the first worker's next job, or between the skills of the one
            # it is on, see `run_urgent`)
            first.jobs_out.send_bytes(
                _URGENT + bytes(ForkingPickler.dumps((job.id, _fork_sibling, 0)))
            )
        except OSError:
            self._lose(first)
            for end in (spare.jobs_out, spare.results_in):
                end.close()
            os.close(spare.alive_r)
            return False
        first.pending[job.id] = job
        self._workers.append(
            _Worker(_ForkedProcess(spare.alive_r), spare.jobs_out, spare.results_in)
        )
        return True

    def submit(self, func: Callable[[Any], Any], arg: Any) -> Job:
        """Hand `func(arg)` to the live worker with the fewest jobs not done (one found gone as
        it is handed over is lost, and the next live one gets it); WorkerDied when none is
        left. `func` travels by name, so it must be a module-level function."""
        payload = ForkingPickler.dumps((job_id := next(self._ids), func, arg))
        while True:
            live = [w for w in self._workers if w.alive]
            if not live:
                raise WorkerDied("no worker process is left")
            worker = min(live, key=lambda w: len(w.pending))
            try:
                worker.jobs_out.send_bytes(payload)
            except OSError:  # the worker is gone (its pipe is closed): the next one gets it
                self._lose(worker)
                continue
            job = Job(job_id, self._workers.index(worker))
            worker.pending[job.id] = job
            return job

    def alive(self) -> bool:
        """Whether any worker is left to hand a job to."""
        return any(worker.alive for worker in self._workers)

    def collect(self, timeout: float | None = 0.0) -> None:
        """Read every result that has arrived, waiting up to `timeout` (None: until one does or a
        worker ends) when none has."""
        watched: dict[Any, _Worker] = {}
        for worker in self._workers:
            if worker.alive:
                watched[worker.results_in] = worker
                watched[worker.process.sentinel] = worker
        if not watched:
            return
        for ready in connection.wait(list(watched), timeout):
            worker = watched[ready]
            # Read all it has sent (poll() is also true at the end of the pipe, which _read
            # notices); after its sentinel, what it sent before it ended.
            while worker.alive and worker.results_in.poll():
                self._read(worker)
            # (a forked worker's sentinel also brings its process id, once: then it lives on)
            if ready is worker.process.sentinel and not worker.process.is_alive():
                self._lose(worker)

    def result(self, job: Job, timeout: float | None = None) -> Any:
        """The job's return value; raises JobFailed if it raised, WorkerDied if its worker ended
        before it was done, TimeoutError if it is not done within `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not job.done:
            if not self._workers[job.worker].alive:
                raise WorkerDied("a worker process ended before its job was done")
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError("the job is not done")
            self.collect(left)
        if not job.ok:
            if isinstance(job.value, WorkerDied):
                raise job.value
            raise JobFailed(job.value)
        return job.value

    def close(self) -> None:
        """Stop every worker now (none holds anything another process waits for) and close the
        pipes."""
        for worker in self._workers:
            if worker.process.is_alive():
                worker.process.kill()
        for worker in self._workers:
            worker.process.join()
            worker.jobs_out.close()
            worker.results_in.close()
            worker.alive = False
        self._workers = []
        for spare in self._spares:  # never forked
            for end in (spare.jobs_out, spare.results_in):
                end.close()
            with contextlib.suppress(OSError):
                os.close(spare.alive_r)
        self._spares = []

    def _read(self, worker: _Worker) -> None:
        try:
            job_id, ok, value = ForkingPickler.loads(worker.results_in.recv_bytes())
        except (EOFError, OSError):
            self._lose(worker)
            return
        job = worker.pending.pop(job_id)
        job.ok, job.value, job.done = ok, value, True

    def _lose(self, worker: _Worker) -> None:
        """The worker has ended: each of its jobs not done is done, failed."""
        worker.alive = False
        for job in worker.pending.values():
            job.ok, job.value, job.done = (
                False,
                WorkerDied("a worker process ended before its job was done"),
                True,
            )
        worker.pending.clear()


# In a worker: its own pipe ends, its idle hook and the spares it may fork (see _fork_sibling).
_own: tuple[Any, Any, Callable[[], None] | None, list[_Spare]] | None = None
# A job sent with this prefix is urgent: the worker runs it before its next job, or sooner where
# the job it is on calls `run_urgent` (a pickle never starts with it).
_URGENT = b"!"
# In a worker: urgent jobs as read (by the reading thread), and where results go.
_urgent: deque[bytes] = deque()
_results: queue.SimpleQueue[bytes | None] | None = None


def run_urgent() -> None:
    """Run the urgent jobs that have come (in a worker; nothing elsewhere). A job that works
    through many items calls this between them, so that an urgent job (the first worker forking
    a sibling while the caller idles) waits for one item, not for the whole job."""
    while _urgent:
        data = _urgent.popleft()
        if _results is not None:
            _results.put(_run(data))


def _run(data: bytes) -> bytes:
    """One job's result, pickled."""
    job_id, func, arg = ForkingPickler.loads(data)
    try:
        out = (job_id, True, func(arg))
    except Exception as err:  # the caller decides what a failed job costs
        out = (job_id, False, f"{type(err).__name__}: {err}")
    try:
        return bytes(ForkingPickler.dumps(out))
    except Exception as err:
        return bytes(ForkingPickler.dumps((job_id, False, f"result not sendable: {err}")))


def _fork_sibling(index: int) -> int:
    """(a job, in the first worker) Fork this worker: the copy serves the pool through spare
    `index`'s pipes, from this job on, and this worker goes on with its own jobs. What this
    worker keeps to write later is written first, so the copy does not write it again. The
    copy's process id is returned."""
    assert _own is not None
    job_reader, result_writer, idle, spares = _own
    spare = spares.pop(index)
    if idle is not None:
        with contextlib.suppress(Exception):
            idle()
    # (the copy is this worker's child: reaped by the system when it ends, no zombie left)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        pid = os.fork()
    except BaseException:
        # No copy: its pipes close here, so the caller sees it gone (its jobs fail and are
        # done there) instead of waiting for it.
        _close_spare(spare)
        raise
    if pid == 0:  # the copy: only this thread runs in it, so nothing it needs is held
        code = 0
        try:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for end in (job_reader, result_writer):
                end.close()
            for other in spares:
                for end in (other.job_reader, other.result_writer):
                    end.close()
                os.close(other.alive_w)
            os.write(spare.alive_w, os.getpid().to_bytes(8, "little"))
            _serve(spare.job_reader, spare.result_writer, _no_init, (), idle, [])
        except BaseException:
            code = 1
        finally:
            os._exit(code)  # (never back into the first worker's loop)
    _close_spare(spare)
    return pid


def _close_spare(spare: _Spare) -> None:
    """Close the first worker's copies of the ends a forked copy uses."""
    for end in (spare.job_reader, spare.result_writer):
        end.close()
    os.close(spare.alive_w)


def _no_init() -> None:
    """A forked copy of a worker is initialised already."""


def _serve(
    job_reader: Any,
    result_writer: Any,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    idle: Callable[[], None] | None = None,
    spares: list[_Spare] | None = None,
) -> None:
    """A worker's life: jobs in order, each result sent back, until the job pipe closes or the
    process that started this one ends; `idle` before the result of a job that leaves no other
    waiting."""
    global _own
    _own = (job_reader, result_writer, idle, list(spares or []))
    for spare in _own[3]:  # the caller's ends, copied by the fork: only the caller uses them
        for end in (spare.jobs_out, spare.results_in):
            end.close()
        os.close(spare.alive_r)
    initializer(*initargs)
    global _results
    _urgent.clear()  # (a forked copy's: its first worker's were not its own)
    jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
    results: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    _results = results
    threading.Thread(target=_read_jobs, args=(job_reader, jobs), daemon=True).start()
    sender = threading.Thread(target=_send_results, args=(result_writer, results), daemon=True)
    sender.start()
    ahead: list[Any] = []  # a job taken from `jobs` to see whether one waits, not run yet
    while (data := ahead.pop() if ahead else jobs.get()) is not None:
        run_urgent()
        if not data:
            continue  # (the wake-up for an urgent job, run above)
        payload = _run(data)
        if idle is not None and not _job_waiting(jobs, ahead):
            # (what it keeps is only worth keeping: the result goes whatever happens)
            with contextlib.suppress(Exception):
                idle()
        results.put(payload)
    results.put(None)
    sender.join()


def _job_waiting(jobs: queue.SimpleQueue[Any], ahead: list[Any]) -> bool:
    """Whether a job waits (kept in `ahead`); the wake-up of an urgent job run already is not
    one, nor is the end: a worker whose last job is done calls `idle` before its result goes,
    after which the caller may stop it."""
    while not ahead:
        try:
            data = jobs.get_nowait()
        except queue.Empty:
            return False
        if data is None or data:
            ahead.append(data)
            return data is not None
        run_urgent()  # (a wake-up: its job may have come after the last call)
    return ahead[0] is not None


def _read_jobs(job_reader: Any, jobs: queue.SimpleQueue[Any]) -> None:
    parent = parent_process()
    watched = [job_reader] + ([parent.sentinel] if parent is not None else [])
    try:
        while True:
            ready = connection.wait(watched)
            if job_reader not in ready:
                # The process that started this one has ended: nobody wants the rest, and a
                # sibling may hold this pipe open, so it would never close.
                os._exit(0)
            data = job_reader.recv_bytes()
            if data[:1] == _URGENT:
                _urgent.append(data[1:])
                jobs.put(b"")  # wakes the worker if it waits for a job
            else:
                jobs.put(data)
    except (EOFError, OSError):
        pass
    jobs.put(None)


def _send_results(result_writer: Any, results: queue.SimpleQueue[bytes | None]) -> None:
    try:
        while (payload := results.get()) is not None:
            result_writer.send_bytes(payload)
    except OSError:  # nobody reads any more
        pass
