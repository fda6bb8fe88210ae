"""How fast is `skillprism check` on a large skill set, against a bare parse loop and skills-ref?

Generates N (default 5,000) realistic skills (bench/gen_skills.py) into a temporary folder and
measures, in one run:

1. `skillprism check --format json DIR`: wall time in a subprocess, best of 5, interleaved with 2; peak RSS (wait4).
2. The bare loop: os.walk, read every SKILL.md, split off the frontmatter and
   yaml.load(..., Loader=yaml.CSafeLoader) it. It runs in a subprocess too, best of 5, so the
   interpreter start-up counts the same for both (the CLI is a fresh interpreter as well).
3. skills-ref 0.1.1: skills_ref.validator.validate(skill_dir) for every skill, in-process (no
   start-up), best of 1 (or of --refval-repeat N; every run is listed).

Targets: check within 2x of the bare loop; at least 10x faster than skills-ref.

    python bench/bench_check.py [-n 5000] [--seed 1] [--repeat 5] [--refval-repeat 1] [--keep DIR]

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
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

BARE_LOOP = r"""
import os, sys, yaml
loader = yaml.CSafeLoader
count = 0
for folder, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        if name != "SKILL.md":
            continue
        with open(os.path.join(folder, name), "rb") as fh:
            text = fh.read().decode("utf-8")
        if text.startswith("---\n"):
            end = text.find("\n---\n", 4)
            if end > 0:
                data = yaml.load(text[4:end], Loader=loader)
                count += isinstance(data, dict)
print(count)
"""

CHECK_VS_BARE_MAX = 2.0
REFVAL_OVER_CHECK_MIN = 10.0


def _timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, int, bytes]:
    """Wall seconds, exit code, peak RSS in KiB and stdout of one subprocess run."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return seconds, proc.returncode, usage.ru_maxrss, out.read()


def _check_cmd() -> list[str]:
    script = Path(sys.executable).with_name("skillprism")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillprism"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="skills to generate (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeat", type=int, default=5, help="best of N for 1 and 2, interleaved (default 5)"
    )
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    parser.add_argument("--no-refval", action="store_true", help="skip the skills-ref figure")
    parser.add_argument(
        "--refval-repeat", type=int, default=1, help="best of N for skills-ref (default 1)"
    )
    args = parser.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="skillprism-bench-")
    try:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config")}
        root = os.path.abspath(args.keep) if args.keep else os.path.join(tmp, "skills")
        t0 = time.perf_counter()
        folders = generate(root, args.n, args.seed)
        print(f"generated {len(folders):,} skills in {time.perf_counter() - t0:.1f} s ({root})")
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), best of {args.repeat}")
        print(ensure_bytecode())

        # The bare loop and skills-ref only parse and validate: compare check doing the same work,
        # without the security pass (bench/bench_security.py measures that pass on its own).
        plain = os.path.join(tmp, "plain-project")
        os.mkdir(plain)
        with open(os.path.join(plain, ".skillprism.toml"), "w", encoding="utf-8") as fh:
            fh.write("security = false\n")
        check = [*_check_cmd(), "check", "--project", plain, "--format", "json", root]
        # Interleaved, so drift in the machine's speed (a shared VM) hits both the same way.
        check_times, bare_times, rss = [], [], 0
        for _ in range(args.repeat):
            s, code, kib, out = _timed(check, env, tmp)
            check_times.append(s)
            rss = max(rss, kib)
            s, bcode, _, bout = _timed([sys.executable, "-c", BARE_LOOP, root], env, tmp)
            bare_times.append(s)
        summary = json.loads(out)["results"][0]["summary"]
        check_s, bare_s = min(check_times), min(bare_times)

        refval_s = None
        if not args.no_refval:
            from skills_ref.validator import validate

            refval_times = []
            for _ in range(max(args.refval_repeat, 1)):
                t0 = time.perf_counter()
                refval_errors = sum(bool(validate(Path(f))) for f in folders)
                refval_times.append(time.perf_counter() - t0)
            refval_s = min(refval_times)

        ok = True
        print()
        print(
            f"check (no security) : {check_s:7.3f} s   exit {code}; {summary['skills']:,} skills, "
            f"{summary['status']['ok']:,} ok; peak RSS {rss / 1024:.0f} MiB"
        )
        print(f"bare walk+CSafeLoader: {bare_s:7.3f} s   exit {bcode}; {int(bout):,} parsed")
        ratio = check_s / bare_s
        verdict = "PASS" if ratio <= CHECK_VS_BARE_MAX else "FAIL"
        ok &= verdict == "PASS"
        print(
            f"  check / bare      : {ratio:7.2f} x   target <= {CHECK_VS_BARE_MAX:g} x   {verdict}"
        )
        if refval_s is not None:
            print(
                f"skills-ref validate : {refval_s:7.3f} s   in-process, best of {len(refval_times)}; "
                f"{refval_errors} skill(s) with errors"
            )
            speedup = refval_s / check_s
            verdict = "PASS" if speedup >= REFVAL_OVER_CHECK_MIN else "FAIL"
            ok &= verdict == "PASS"
            print(
                f"  skills-ref / check: {speedup:7.2f} x   target >= {REFVAL_OVER_CHECK_MIN:g} x"
                f"   {verdict}"
            )
        print(
            f"all runs, check: {', '.join(f'{t:.3f}' for t in check_times)} s; "
            f"bare: {', '.join(f'{t:.3f}' for t in bare_times)} s"
            + (
                f"; skills-ref: {', '.join(f'{t:.3f}' for t in refval_times)} s"
                if refval_s is not None
                else ""
            )
        )
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
