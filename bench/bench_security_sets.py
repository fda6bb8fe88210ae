"""What the security pass costs `check` on real collections and on a large generated set.

For each set (each of the six public collections of ../shared/realsets, the six together in one
check, and N generated skills from bench/gen_skills.py), in one run, `skillprism check --format
json` three ways, alternately, --repeat times:

- without the pass (`--no-security`): the baseline;
- cold: with the pass and an empty cache folder (SKILLPRISM_CACHE_DIR, fresh each time);
- warm: with the pass again over the same cache (nothing changed).

It prints each figure beside its target, as the median of the per-round ratios (each pass run
against the baseline run of the same round: the machine's speed drifts more over a minute than
within a round). A set runs at least --repeat rounds, and more (up to --max-rounds) until its
rounds have taken --min-seconds: a check of a small set takes a third of a second, and one
round in three then lands on a slow moment of the machine (seen: one median of three rounds at
1.36x where fifteen rounds gave 1.09x):

- cold wall time <= 2x the baseline;
- warm wall time <= 1.15x the baseline;
- peak RSS <= 1.5x the baseline (the largest process of the check, worker processes included;
  the most of cold and warm).

Beside them, not a target, the CPU time (user + system, the check and its workers) of the cold
and the warm run over the baseline's: on a machine other programs share, wall times move with their load and
CPU times much less, so the two together tell the pass's cost from the machine's business.

    python bench/bench_security_sets.py [--sets DIR] [-n 10000] [--repeat 3] [--min-seconds 20]
        [--max-rounds 15] [--only NAME ...]

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _bytecode import ensure_bytecode  # noqa: E402
from gen_skills import generate  # noqa: E402

COLLECTIONS = (
    "anthropics-skills",
    "claude-plugins-official",
    "composio-awesome",
    "openai-skills",
    "superpowers",
    "vercel-agent-skills",
)
COLD_TARGET, WARM_TARGET, RSS_TARGET = 2.0, 1.15, 1.5
# The check runs under a small parent that waits for it and reports the largest resident set
# of the process tree it reaped (the check and its worker processes), in KiB, and the CPU time
# that tree used.
_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(time.perf_counter() - t, u.ru_maxrss, u.ru_utime + u.ru_stime, rc)\n"
)


def _check_command() -> list[str]:
    script = Path(sys.executable).with_name("skillprism")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillprism"]


def run_check(
    paths: list[str], project: str, mode: str, cache_dir: str
) -> tuple[float, int, float]:
    """(wall seconds, peak RSS KiB, CPU seconds) of one check; mode: off | on."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLPRISM_")}
    env["SKILLPRISM_CACHE_DIR"] = cache_dir
    cmd = [*_check_command(), "check", "--format", "json", "--project", project]
    cmd += ["--no-security"] if mode == "off" else ["--security"]
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *cmd, *paths],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, rss, cpu, _rc = out.stdout.split()
    return float(seconds), int(rss), float(cpu)


def measure(
    name: str, paths: list[str], repeat: int, min_seconds: float = 0.0, max_rounds: int = 0
) -> dict[str, float]:
    """The figures of `paths` over at least `repeat` rounds, and more (up to `max_rounds`) until
    the rounds have taken `min_seconds`."""
    project = tempfile.mkdtemp(prefix="skillprism-bench-project-")
    off_t, cold_t, warm_t, off_r, on_r = [], [], [], [], []
    ratios_cold, ratios_warm, ratios_rss, ratios_cpu, ratios_wcpu = [], [], [], [], []
    started = time.perf_counter()
    rounds = 0
    try:
        while rounds < repeat or (
            rounds < max_rounds and time.perf_counter() - started < min_seconds
        ):
            rounds += 1
            cache = tempfile.mkdtemp(prefix="skillprism-bench-cache-")
            try:
                t_off, r_off, c_off = run_check(paths, project, "off", cache)
                t_cold, r_cold, c_cold = run_check(paths, project, "on", cache)
                t_warm, r_warm, c_warm = run_check(paths, project, "on", cache)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            off_t.append(t_off)
            cold_t.append(t_cold)
            warm_t.append(t_warm)
            off_r.append(r_off)
            on_r.append(max(r_cold, r_warm))
            ratios_cold.append(t_cold / t_off)
            ratios_warm.append(t_warm / t_off)
            ratios_rss.append(max(r_cold, r_warm) / r_off)
            ratios_cpu.append(c_cold / c_off)
            ratios_wcpu.append(c_warm / c_off)
    finally:
        shutil.rmtree(project, ignore_errors=True)
    return {
        "off": statistics.median(off_t),
        "cold": statistics.median(cold_t),
        "warm": statistics.median(warm_t),
        "cold_x": statistics.median(ratios_cold),
        "warm_x": statistics.median(ratios_warm),
        "rss_off": statistics.median(off_r) / 1024,
        "rss_on": statistics.median(on_r) / 1024,
        "rss_x": statistics.median(ratios_rss),
        "cpu_x": statistics.median(ratios_cpu),
        "wcpu_x": statistics.median(ratios_wcpu),
        "rounds": rounds,
    }


def _count(paths: list[str]) -> tuple[int, int]:
    skills = files = 0
    for p in paths:
        for _dir, _dirs, names in os.walk(p):
            files += len(names)
            skills += sum(1 for n in names if n == "SKILL.md")
    return skills, files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets", type=Path, default=Path(os.environ.get("SKILLPRISM_REALSETS", "/work/realsets"))
    )
    parser.add_argument("-n", type=int, default=10_000, help="generated skills (0: none)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per set, at least")
    parser.add_argument(
        "--min-seconds", type=float, default=20.0, help="more rounds until a set took this long"
    )
    parser.add_argument("--max-rounds", type=int, default=15, help="rounds per set, at most")
    parser.add_argument("--only", nargs="*", help="set names to run (default: all)")
    args = parser.parse_args(argv)
    print(ensure_bytecode())
    sets: list[tuple[str, list[str]]] = []
    present = [str(args.sets / c) for c in COLLECTIONS if (args.sets / c).is_dir()]
    for c in COLLECTIONS:
        if (args.sets / c).is_dir():
            sets.append((c, [str(args.sets / c)]))
    if len(present) > 1:
        sets.append(("all six together", present))
    tmp = tempfile.mkdtemp(prefix="skillprism-bench-gen-")
    try:
        if args.n:
            t0 = time.perf_counter()
            generate(Path(tmp) / "skills", args.n, 1)
            print(f"generated {args.n:,} skills in {time.perf_counter() - t0:.1f} s")
            sets.append((f"generated {args.n:,}", [str(Path(tmp) / "skills")]))
        if args.only:
            sets = [s for s in sets if s[0] in args.only]
        print(
            f"check --format json, median of at least {args.repeat} rounds (off, cold, warm; more "
            f"until a set took {args.min_seconds:g} s, at most {args.max_rounds}); "
            f"targets: cold <= {COLD_TARGET}x, warm <= {WARM_TARGET}x, RSS <= {RSS_TARGET}x"
        )
        header = (
            f"{'set':24} {'skills':>6} {'files':>6} {'no pass':>8} {'cold':>7} {'(x)':>6} "
            f"{'warm':>7} {'(x)':>6} {'RSS off':>8} {'RSS on':>8} {'(x)':>6}  verdict  cold CPU  warm CPU"
        )
        print(header)
        ok = True
        for name, paths in sets:
            skills, files = _count(paths)
            m = measure(name, paths, args.repeat, args.min_seconds, args.max_rounds)
            good = (
                m["cold_x"] <= COLD_TARGET
                and m["warm_x"] <= WARM_TARGET
                and m["rss_x"] <= RSS_TARGET
            )
            ok &= good
            print(
                f"{name:24} {skills:>6} {files:>6} {m['off']:>7.2f}s {m['cold']:>6.2f}s "
                f"{m['cold_x']:>5.2f}x {m['warm']:>6.2f}s {m['warm_x']:>5.2f}x "
                f"{m['rss_off']:>6.1f}MB {m['rss_on']:>6.1f}MB {m['rss_x']:>5.2f}x  "
                f"{'PASS' if good else 'FAIL'}     {m['cpu_x']:>5.2f}x    {m['wcpu_x']:>5.2f}x  "
                f"{m['rounds']:>6}",
                flush=True,
            )
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
