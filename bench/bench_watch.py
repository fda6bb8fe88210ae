"""How long from saving a SKILL.md to an updated catalog, through `skillprism watch`?

Generates N (default 5,000) realistic skills (bench/gen_skills.py) into a temporary folder, runs
`skillprism watch --format json DIR` as a subprocess, waits for its initial line, then makes W
(default 20) single-file writes to different SKILL.md files, spaced out so each is its own batch.
Each update line carries `elapsed_ms`: the first file system event of the batch -> catalog ready
(this includes the watcher's debounce quiet time). Prints median and max.

Target: file write -> catalog ready via skillprism watch, median <= 150 ms. Also printed: how long
`watch` takes to end after SIGINT (target <= 3.5 s: its stop is bounded at 3 s) and its exit code
(130, as documented).

    python bench/bench_watch.py [-n 5000] [--writes 20] [--seed 1] [--polling] [--keep DIR]

Exits 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_skills import generate

TARGET_MEDIAN_MS = 150.0
TARGET_STOP_MS = 3500.0


def _watch_cmd() -> list[str]:
    script = Path(sys.executable).with_name("skillprism")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillprism"]


def _reader(stream, lines: queue.Queue) -> None:  # type: ignore[type-arg, no-untyped-def]
    for raw in stream:
        lines.put(raw)
    lines.put(None)


def _next_record(lines: queue.Queue, timeout: float) -> dict | None:  # type: ignore[type-arg]
    try:
        raw = lines.get(timeout=timeout)
    except queue.Empty:
        return None
    return None if raw is None else json.loads(raw)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="skills to generate (default 5000)")
    parser.add_argument("--writes", type=int, default=20, help="single-file writes (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gap", type=float, default=0.4, help="seconds between writes")
    parser.add_argument("--polling", action="store_true", help="run the watcher in polling mode")
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    args = parser.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="skillprism-bench-watch-")
    proc = None
    try:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config")}
        root = os.path.abspath(args.keep) if args.keep else os.path.join(tmp, "skills")
        t0 = time.perf_counter()
        folders = generate(root, args.n, args.seed)
        print(f"generated {len(folders):,} skills in {time.perf_counter() - t0:.1f} s ({root})")
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s)")

        cmd = [*_watch_cmd(), "watch", "--format", "json", root]
        if args.polling:
            cmd.append("--polling")
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp, text=True
        )
        lines: queue.Queue = queue.Queue()  # type: ignore[type-arg]
        threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
        initial = _next_record(lines, 120)
        if not initial or not initial.get("initial"):
            print(f"no initial line from skillprism watch: {initial!r}", file=sys.stderr)
            return 1
        print(
            f"initial scan: {initial['skills']:,} skills, {initial['errors']} error(s), "
            f"{initial['elapsed_ms']:.0f} ms, mode {initial['mode']}"
        )

        rng = random.Random(args.seed)
        targets = rng.sample(folders, min(args.writes, len(folders)))
        elapsed: list[float] = []
        kinds: list[str] = []
        wall: list[float] = []
        for i, folder in enumerate(targets):
            path = folder / "SKILL.md"
            text = path.read_text(encoding="utf-8")
            t_write = time.monotonic()
            # One plain write of the whole file, as most editors do on save.
            path.write_text(text + f"\nEdited in bench run, write {i}.\n", encoding="utf-8")
            record = _next_record(lines, 10 if not args.polling else 30)
            if record is None:
                print(f"write {i}: no update line within the timeout", file=sys.stderr)
                return 1
            wall.append((time.monotonic() - t_write) * 1000)
            if str(path) not in record["changed"]:
                print(
                    f"write {i}: update did not name {path}: {record['changed']}", file=sys.stderr
                )
            elapsed.append(record["elapsed_ms"])
            kinds.append(record.get("refresh", "?"))
            time.sleep(args.gap)

        median, worst = statistics.median(elapsed), max(elapsed)
        verdict = "PASS" if median <= TARGET_MEDIAN_MS else "FAIL"
        print()
        print(
            f"file write -> catalog ready via skillprism watch: median {median:.1f} ms, "
            f"max {worst:.1f} ms over {len(elapsed)} writes   "
            f"target median <= {TARGET_MEDIAN_MS:g} ms   {verdict}"
        )
        print(
            f"  write -> update line read here (wall): median {statistics.median(wall):.1f} ms, "
            f"max {max(wall):.1f} ms"
        )
        print(f"  refresh kinds: {', '.join(sorted(set(kinds)))}")
        print(f"  all elapsed_ms: {', '.join(f'{e:.0f}' for e in elapsed)}")
        t_signal = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            code = None
        stop_ms = (time.monotonic() - t_signal) * 1000
        stopped = code == 130 and stop_ms <= TARGET_STOP_MS
        print(
            f"SIGINT -> skillprism watch ended: {stop_ms:.0f} ms, exit code {code}   "
            f"target <= {TARGET_STOP_MS:,.0f} ms, exit 130   {'PASS' if stopped else 'FAIL'}"
        )
        return 0 if verdict == "PASS" and stopped else 1
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
