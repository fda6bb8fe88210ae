"""Time every command on each hostile input (bench/hostile_cases.py).

Every case is built in a temporary folder. `check --format json` runs once in a fresh interpreter
(start-up included) and is judged against the 2 s target; it must report its expected diagnostic
(or refuse the input with one line, for the cases that must be refused), leave the tree
byte-identical and never run code. Then every command of the matrix (check in each format, prompt,
activate, resource, report, where, watch) runs on the same input, each judged against 10 s and
300 MiB of peak memory (wait4: the process and its workers), with no traceback, no control
character written raw and an unchanged tree. The baseline is the same commands on one ordinary
skill, measured in the same run. Exits 1 when any case fails.

    python bench/bench_hostile.py [--target SECONDS] [--only ID ...] [--check-only]
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
    COMMAND_MIB,
    COMMAND_SECONDS,
    COMMANDS,
    Case,
    case_args,
    command_problems,
    problems,
    run_case_command,
    run_check,
    skill_text,
    tree_fingerprint,
    unsupported,
)

TARGET_SECONDS = 2.0


def _ordinary(base: Path) -> Path:
    (base / "tree" / "demo").mkdir(parents=True)
    (base / "tree" / "demo" / "SKILL.md").write_text(skill_text(), encoding="utf-8")
    return base / "tree"


BASELINE = Case("baseline: one ordinary skill", _ordinary, ())


def _commands(case: Case, base: Path, target: Path, before: str) -> list[tuple[str, object]]:
    """Every command on one case: (command id, (seconds, MiB, problems))."""
    rows = []
    for command in COMMANDS:
        run = run_case_command(command, case, base, target, timeout=60)
        issues = command_problems(command, case, base, target, before, run)
        mib = run.peak_kib / 1024
        if run.seconds > COMMAND_SECONDS:
            issues.append(f"{run.seconds:.2f} s > {COMMAND_SECONDS:g} s")
        if mib > COMMAND_MIB:
            issues.append(f"{mib:.0f} MiB > {COMMAND_MIB} MiB")
        rows.append((command.id, (run.seconds, mib, issues)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=TARGET_SECONDS, help="seconds (default 2)")
    parser.add_argument("--only", nargs="*", metavar="ID", help="run only these case ids")
    parser.add_argument(
        "--check-only", action="store_true", help="time `check --format json` alone"
    )
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.only or c.id in args.only]
    failed = 0
    width = max(len(c.id) for c in (*cases, BASELINE))
    worst: dict[str, tuple[float, str, float, str]] = {}  # command -> max s, case, max MiB, case
    baseline: dict[str, tuple[float, float]] = {}
    print(f"{'case':<{width}}  {'check':>7}  target  verdict")
    with tempfile.TemporaryDirectory(prefix="skillprism-hostile-") as tmp:
        home = Path(tmp, "home")
        home.mkdir()
        env_home = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        os.environ.update(env_home)  # never read the real home's skills or settings
        for case in (BASELINE, *cases):
            why = unsupported(case)
            if why:
                print(f"{case.id:<{width}}  {'-':>7}  {args.target:5.1f}s  SKIP ({why})")
                continue
            base = Path(tmp, f"case-{len(baseline) + len(worst)}-{abs(hash(case.id))}")
            base.mkdir()
            target = case.build(base)
            before = tree_fingerprint(target)
            try:
                run = run_check(target, cwd=base, timeout=60, extra=case_args(case, base))
            except subprocess.TimeoutExpired:
                failed += 1
                print(f"{case.id:<{width}}  {'>60':>6}s  {args.target:5.1f}s  FAIL (hang)")
                continue
            issues = problems(case, base, target, before, run) if case is not BASELINE else []
            slow = run.seconds >= args.target
            rows = [] if args.check_only else _commands(case, base, target, before)
            bad = [(cid, r) for cid, r in rows if r[2]]  # type: ignore[index]
            verdict = "FAIL" if (issues or slow or bad) else "PASS"
            failed += verdict == "FAIL"
            detail = "; ".join(([f"slower than {args.target:g} s"] if slow else []) + issues)
            print(
                f"{case.id:<{width}}  {run.seconds:6.2f}s  {args.target:5.1f}s  {verdict}"
                + (f" ({detail})" if detail else "")
            )
            if rows:
                secs = max(rows, key=lambda r: r[1][0])  # type: ignore[index]
                mem = max(rows, key=lambda r: r[1][1])  # type: ignore[index]
                print(
                    f"{'':<{width}}  all {len(rows)} commands: {len(rows) - len(bad)} ok; slowest "
                    f"{secs[0]} {secs[1][0]:.2f} s (<= {COMMAND_SECONDS:g} s), most memory "  # type: ignore[index]
                    f"{mem[0]} {mem[1][1]:.0f} MiB (<= {COMMAND_MIB} MiB)"  # type: ignore[index]
                )
                for cid, r in bad:
                    print(f"{'':<{width}}    FAIL {cid}: {'; '.join(r[2])}")  # type: ignore[index]
            for cid, (seconds, mib, _issues) in rows:  # type: ignore[misc]
                if case is BASELINE:
                    baseline[cid] = (seconds, mib)
                    continue
                s0, c0, m0, c1 = worst.get(cid, (0.0, "", 0.0, ""))
                worst[cid] = (
                    max(s0, seconds),
                    case.id if seconds >= s0 else c0,
                    max(m0, mib),
                    case.id if mib >= m0 else c1,
                )
    if worst:
        print()
        print(
            f"{'command':<13} {'worst s':>8} {'case':<28} {'worst MiB':>9} {'case':<28} "
            f"{'baseline':>14}"
        )
        for cid, (s, case_s, m, case_m) in worst.items():
            b = baseline.get(cid, (0.0, 0.0))
            print(
                f"{cid:<13} {s:7.2f}s {case_s:<28} {m:8.0f}M {case_m:<28} {b[0]:5.2f}s {b[1]:4.0f}M"
            )
        print(f"targets: every command <= {COMMAND_SECONDS:g} s and <= {COMMAND_MIB} MiB")
    print(f"{len(cases) - failed}/{len(cases)} passed" if failed else f"all {len(cases)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
