"""`skillprism gui --screenshot` on 5,000 generated skills: wall time (process start -> PNG written
-> exit) and peak RSS, beside the targets for this 2-core machine (<= 2 s, <= 400 MB).

    QT_QPA_PLATFORM=offscreen python bench/bench_gui.py [-n 5000] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bytecode import ensure_bytecode
from gen_skills import generate

TARGET_S = 2.0
TARGET_MB = 400


def _check_cmd() -> list[str]:
    script = Path(sys.executable).with_name("skillprism")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillprism"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        root = base / "skills"
        if not root.exists():
            generate(root, args.n, seed=1)
        print(ensure_bytecode())
        home = Path(tmp) / "home"
        home.mkdir(exist_ok=True)
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        }
        times, peaks = [], []
        for i in range(args.repeat):
            png = Path(tmp) / f"shot{i}.png"
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [*_check_cmd(), "gui", "--screenshot", str(png), str(root)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - t0
            code = os.waitstatus_to_exitcode(status)
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            if code != 0 or not png.exists():
                print(
                    f"run {i}: exit {code}, screenshot {'written' if png.exists() else 'missing'}\n{err}"
                )
                return 1
            times.append(seconds)
            peaks.append(usage.ru_maxrss / 1024)
        best, rss = min(times), max(peaks)
        ok_t, ok_m = best <= TARGET_S, rss <= TARGET_MB
        print(
            f"{args.n:,} skills, best of {args.repeat}: runs "
            + ", ".join(f"{t:.2f}" for t in times)
            + " s"
        )
        print(
            f"gui --screenshot wall : {best:6.2f} s    target <= {TARGET_S:g} s     {'PASS' if ok_t else 'FAIL'}"
        )
        print(
            f"peak RSS              : {rss:6.0f} MB   target <= {TARGET_MB} MB  {'PASS' if ok_m else 'FAIL'}"
        )
        return 0 if ok_t and ok_m else 1


if __name__ == "__main__":
    raise SystemExit(main())
