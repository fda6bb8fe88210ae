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
is written while nothing waits for it, and before the caller, holding every result, may stop it."""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import threading
import time
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
    ) -> None:
        self._ids = itertools.count()
        self._workers: list[_Worker] = []
        try:
            for _ in range(processes):
                job_reader, jobs_out = context.Pipe(duplex=False)
                results_in, result_writer = context.Pipe(duplex=False)
                try:
                    process = context.Process(
                        target=_serve,
                        args=(job_reader, result_writer, initializer, initargs, idle),
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
                self._workers.append(_Worker(process, jobs_out, results_in))
        except BaseException:
            self.close()
            raise

    def submit(self, func: Callable[[Any], Any], arg: Any) -> Job:
        """Hand `func(arg)` to the live worker with the fewest jobs not done. `func` travels by
        name, so it must be a module-level function."""
        live = [w for w in self._workers if w.alive]
        if not live:
            raise WorkerDied("no worker process is left")
        worker = min(live, key=lambda w: len(w.pending))
        job = Job(next(self._ids), self._workers.index(worker))
        try:
            worker.jobs_out.send_bytes(ForkingPickler.dumps((job.id, func, arg)))
        except OSError as err:  # the worker is gone: its pipe is closed
            self._lose(worker)
            raise WorkerDied("a worker process ended before its job was handed over") from err
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
            if ready is worker.process.sentinel:
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


def _serve(
    job_reader: Any,
    result_writer: Any,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    idle: Callable[[], None] | None = None,
) -> None:
    """A worker's life: jobs in order, each result sent back, until the job pipe closes or the
    process that started this one ends; `idle` before the result of a job that leaves no other
    waiting."""
    initializer(*initargs)
    jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
    results: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    threading.Thread(target=_read_jobs, args=(job_reader, jobs), daemon=True).start()
    sender = threading.Thread(target=_send_results, args=(result_writer, results), daemon=True)
    sender.start()
    while (data := jobs.get()) is not None:
        job_id, func, arg = ForkingPickler.loads(data)
        try:
            out = (job_id, True, func(arg))
        except Exception as err:  # the caller decides what a failed job costs
            out = (job_id, False, f"{type(err).__name__}: {err}")
        try:
            payload = ForkingPickler.dumps(out)
        except Exception as err:
            payload = ForkingPickler.dumps((job_id, False, f"result not sendable: {err}"))
        if idle is not None and jobs.empty():
            # (what it keeps is only worth keeping: the result goes whatever happens)
            with contextlib.suppress(Exception):
                idle()
        results.put(payload)
    results.put(None)
    sender.join()


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
            jobs.put(job_reader.recv_bytes())
    except (EOFError, OSError):
        pass
    jobs.put(None)


def _send_results(result_writer: Any, results: queue.SimpleQueue[bytes | None]) -> None:
    try:
        while (payload := results.get()) is not None:
            result_writer.send_bytes(payload)
    except OSError:  # nobody reads any more
        pass
