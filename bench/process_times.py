"""Where each process of a command spent its life: on a CPU, waiting for one, or blocked.

Runs the command and polls its process tree every few milliseconds, reading each process's
`/proc/<pid>/schedstat` (time on a CPU, time runnable but waiting for a CPU) and when it was
first and last seen; the rest of its life it was blocked (on a pipe, a lock, the disk). A
process that ends between two polls is counted as last seen, so figures are a poll (20 ms)
short at most; the polling's own processor time is printed beside them. Linux only.

What it tells apart: a check whose worker processes are blocked is waiting for work (how
the jobs are handed out is the limit); one whose workers are on a CPU all their lives and
wait for one besides is bound by the processors (only less work helps); a large waiting
time with few processes of the check's own says the machine is busy with something else.

    python bench/process_times.py [--runs N] -- skillprism check --format json DIR
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass

POLL_S = 0.02  # (polling takes a processor's time too: more often would slow the command)


@dataclass
class Seen:
    """One process as last polled: seconds since the start, and its schedstat times."""

    first: float
    last: float
    on_cpu: float
    waiting: float

    @property
    def blocked(self) -> float:
        return max(0.0, self.last - self.first - self.on_cpu - self.waiting)


def _tree(root: int) -> dict[int, tuple[float, float]]:
    """(on-CPU s, waiting s) of `root` and every process below it."""
    parents: dict[int, int] = {}
    times: dict[int, tuple[float, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            with open(f"/proc/{name}/schedstat") as f:
                sched = f.read().split()
        except OSError:
            continue  # ended while listed
        pid = int(name)
        parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        times[pid] = (int(sched[0]) / 1e9, int(sched[1]) / 1e9)
    keep = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in keep and pid not in keep:
                keep.add(pid)
                grew = True
    return {pid: times[pid] for pid in keep if pid in times}


def run(command: list[str]) -> tuple[float, dict[int, Seen]]:
    """The command's wall time and what was seen of each of its processes."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    seen: dict[int, Seen] = {}
    while proc.poll() is None:
        now = time.perf_counter() - start
        for pid, (on_cpu, waiting) in _tree(proc.pid).items():
            if pid in seen:
                s = seen[pid]
                s.last, s.on_cpu, s.waiting = now, on_cpu, waiting
            else:
                seen[pid] = Seen(now, now, on_cpu, waiting)
        time.sleep(POLL_S)
    return time.perf_counter() - start, seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    if not os.path.exists("/proc/self/schedstat"):
        print("this system has no /proc/<pid>/schedstat", file=sys.stderr)
        return 2
    for n in range(args.runs):
        wall, seen = run(command)
        print(f"run {n + 1}: {wall:.2f} s")
        print(f"  {'process':>8} {'seen':>13} {'on CPU':>8} {'waiting':>8} {'blocked':>8}")
        for pid, s in sorted(seen.items(), key=lambda item: item[1].first):
            print(
                f"  {pid:>8} {s.first:5.2f}-{s.last:5.2f} s {s.on_cpu:7.2f}s {s.waiting:7.2f}s "
                f"{s.blocked:7.2f}s"
            )
        on_cpu = sum(s.on_cpu for s in seen.values())
        print(f"  together on a CPU {on_cpu:.2f} s: {on_cpu / wall:.2f} of a CPU over the run")
    print(f"(the polling itself took {time.process_time():.2f} s of a CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
