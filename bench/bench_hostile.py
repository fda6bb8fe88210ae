"""Time `skillprism check --format json` on each hostile input (bench/hostile_cases.py).

Every case is built in a temporary folder, checked once in a fresh interpreter (start-up included)
and judged against the 2 s target; it also must report its expected diagnostic, leave the tree
byte-identical and never run code. Exits 1 when any case fails.

    python bench/bench_hostile.py [--target SECONDS] [--only ID ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hostile_cases import (
    CASES,
    case_args,
    problems,
    run_check,
    tree_fingerprint,
    unsupported,
)

TARGET_SECONDS = 2.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=TARGET_SECONDS, help="seconds (default 2)")
    parser.add_argument("--only", nargs="*", metavar="ID", help="run only these case ids")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.only or c.id in args.only]
    failed = 0
    width = max(len(c.id) for c in cases)
    print(f"{'case':<{width}}  {'time':>7}  target  verdict")
    with tempfile.TemporaryDirectory(prefix="skillprism-hostile-") as tmp:
        home = Path(tmp, "home")
        home.mkdir()
        env_home = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        os.environ.update(env_home)  # never read the real home's skills or settings
        for case in cases:
            why = unsupported(case)
            if why:
                print(f"{case.id:<{width}}  {'-':>7}  {args.target:5.1f}s  SKIP ({why})")
                continue
            base = Path(tmp, case.id)
            base.mkdir()
            target = case.build(base)
            before = tree_fingerprint(target)
            try:
                run = run_check(target, cwd=base, timeout=60, extra=case_args(case, base))
            except subprocess.TimeoutExpired:
                failed += 1
                print(f"{case.id:<{width}}  {'>60':>6}s  {args.target:5.1f}s  FAIL (hang)")
                continue
            issues = problems(case, base, target, before, run)
            slow = run.seconds >= args.target
            verdict = "FAIL" if (issues or slow) else "PASS"
            failed += verdict == "FAIL"
            detail = "; ".join(([f"slower than {args.target:g} s"] if slow else []) + issues)
            print(
                f"{case.id:<{width}}  {run.seconds:6.2f}s  {args.target:5.1f}s  {verdict}"
                + (f" ({detail})" if detail else "")
            )
    print(f"{len(cases) - failed}/{len(cases)} passed" if failed else f"all {len(cases)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
