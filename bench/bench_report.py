"""How long does `skillprism report` take for a large skill set under two profiles?

Generates N (default 5,000) realistic skills (bench/gen_skills.py) into a temporary folder and
times, as a user runs it (a fresh interpreter per run, wall clock, best of --repeat):

    skillprism report DIR --profile agentskills --profile claude-code -o out.html   (and out.md)

Target: the HTML report of 5,000 skills under two profiles is written in <= 3 s. File sizes are
printed beside the times.

    python bench/bench_report.py [-n 5000] [--seed 1] [--repeat 3] [--keep DIR]

Exits 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _bytecode import ensure_bytecode
from gen_skills import generate

TARGET_SECONDS = 3.0
PROFILES = ("agentskills", "claude-code")


def _cmd() -> list[str]:
    script = Path(sys.executable).with_name("skillprism")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillprism"]


def _run(cmd: list[str], cwd: str) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.returncode, (proc.stdout + proc.stderr).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="skills to generate (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per format (best counts)")
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    args = parser.parse_args(argv)

    print(ensure_bytecode())
    work = args.keep or tempfile.mkdtemp(prefix="skillprism-bench-report-")
    try:
        skills = os.path.join(work, "skills")
        if not os.path.isdir(skills):
            t0 = time.perf_counter()
            generate(Path(skills), args.n, args.seed)
            print(f"generated {args.n:,} skills in {time.perf_counter() - t0:.1f} s")
        profiles = [a for p in PROFILES for a in ("--profile", p)]
        # The project folder is the work folder, so no settings file of this checkout applies.
        base = [*_cmd(), "report", skills, *profiles, "--project", work]
        ok = True
        for ext in (".html", ".md"):
            out = os.path.join(work, f"report{ext}")
            times = []
            for _ in range(args.repeat):
                seconds, code, said = _run([*base, "-o", out], work)
                if code not in (0, 1):
                    print(f"report{ext} failed with exit {code}: {said}")
                    return 1
                times.append(seconds)
            best = min(times)
            size = os.path.getsize(out)
            line = (
                f"report{ext}: best {best:.2f} s of {args.repeat} "
                f"({', '.join(f'{t:.2f}' for t in times)}); {size / 1024:,.0f} KiB; {said}"
            )
            if ext == ".html":
                met = best <= TARGET_SECONDS
                ok = ok and met
                line += f"  [target <= {TARGET_SECONDS:.0f} s: {'met' if met else 'MISSED'}]"
            print(line)
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
