"""The static security scan against a real scanner, and what it adds to `check`.

1. Skill Prism's security engine and cisco-ai-skill-scanner (its offline static analysers only:
   static + bytecode + pipeline + correlation, and --use-behavioral; no LLM, no cloud, no
   VirusTotal, no OSV) on the corpus (tests/fixtures/security: planted risks and clean
   look-alikes) and on the bundled demo set (skills/): detection rate on the planted findings,
   findings above info on the clean look-alikes, time; and every finding the scanner makes
   (above INFO) on the planted corpus or the demo set at a place where Skill Prism reports
   nothing, which must be none.
2. On a generated 5,000-skill set (bench/gen_skills.py): `skillprism check --format json` with
   the security pass (the default, each run with an empty cache folder: the cold cost) and
   without it (`security = false` in the project's settings), alternately, --repeat pairs; the
   time the pass adds beside its target (<= 50 %). bench/bench_security_sets.py measures the
   pass on the real collections, cold and warm, with memory.

The scanner is installed into its own venv under bench/out/ (git-ignored), never into the
project's: `python bench/bench_security.py --install-scanner` creates it (pip, from PyPI).

    python bench/bench_security.py [--install-scanner] [-n 5000] [--repeat 3] [--skip-scanner]

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

from _bytecode import ensure_bytecode  # noqa: E402
from gen_skills import generate  # noqa: E402
from security_corpus import CORPUS, cases, expected, scan_case  # noqa: E402

from skillprism.core.security import scan_skill  # noqa: E402

SCANNER_VERSION = "2.3.2"
SCANNER_VENV = HERE / "out" / "cisco-venv"
SCANNER = SCANNER_VENV / "bin" / "skill-scanner"
LINE_TOLERANCE = 3
OVERHEAD_TARGET = 0.50


def install_scanner() -> None:
    if not SCANNER.exists():
        subprocess.run([sys.executable, "-m", "venv", str(SCANNER_VENV)], check=True)
        pip = SCANNER_VENV / "bin" / "pip"
        subprocess.run(
            [str(pip), "install", "-q", f"cisco-ai-skill-scanner=={SCANNER_VERSION}"], check=True
        )


def run_scanner(folder: Path) -> tuple[list[dict[str, object]], float]:
    """cisco-ai-skill-scanner's offline static analysers on every skill below `folder`:
    (findings with an absolute 'file', wall seconds)."""
    env = {k: v for k, v in os.environ.items() if "API_KEY" not in k and "TOKEN" not in k}
    env.update(HOME=tempfile.mkdtemp(prefix="scanner-home-"), NO_COLOR="1")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [str(SCANNER), "scan-all", str(folder), "--recursive", "--use-behavioral"]
        cmd += ["--format", "json", "--output", out.name]
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - t0
        data = json.loads(Path(out.name).read_text() or "{}")
    findings = []
    for result in data.get("results", []):
        skill = Path(result["skill_path"])
        for f in result.get("findings", []):
            rel = f.get("file_path") or "SKILL.md"
            findings.append({**f, "file": str((skill / rel).resolve())})
    return findings, seconds


def _ours_on(
    folder: Path, cases_of: list[Path] | None
) -> tuple[list[tuple[str, int, str, str]], float]:
    """(absolute file, line, rule, severity) of Skill Prism's findings below `folder`."""
    t0 = time.perf_counter()
    out = []
    if cases_of is not None:
        for case in cases_of:
            for rel, f in scan_case(case):
                path = (case / rel).resolve()
                out.append((str(path), f.line, f.rule, f.severity.value))
    else:
        for skill_file in sorted(folder.rglob("SKILL.md")):
            skill = skill_file.parent
            for f in scan_skill(str(skill), str(skill_file)):
                path = (skill / f.rel_path).resolve() if f.rel_path else skill.resolve()
                out.append((str(path), f.line, f.rule, f.severity.value))
    return out, time.perf_counter() - t0


def body_offset(skill_md: str) -> int:
    """Lines before the body of a SKILL.md: the scanner numbers SKILL.md lines from the body."""
    try:
        lines = Path(skill_md).read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return 0
    if lines and lines[0].strip() == "---":
        for i, line in enumerate(lines[1:], 1):
            if line.strip() == "---":
                return i + 1
    return 0


def _candidates(file: str, line: int | None) -> list[int | None]:
    """The file lines a scanner line may mean: as given, and counted from the SKILL.md body."""
    if not line:
        return [None]
    return [line, line + body_offset(file)] if file.endswith("SKILL.md") else [line]


def _near(ours: list[tuple[str, int, str, str]], file: str, line: int | None) -> bool:
    skill = str(Path(file).parent)
    for path, ln, _r, _s in ours:
        if file.endswith("SKILL.md") and not line:
            # A finding about the whole skill: matched by any finding in that skill.
            if path == skill or path.startswith(skill + os.sep):
                return True
            continue
        same = path == file or (file.endswith("SKILL.md") and path == skill)
        for want in _candidates(file, line):
            if same and (not want or not ln or abs(ln - want) <= LINE_TOLERANCE):
                return True
    return False


def part1(skip_scanner: bool) -> bool:
    planted, clean = cases("planted"), cases("clean")
    ok = True
    exp = [(case, e) for case in planted for e in expected(case)]
    ours_p, t_ours_p = _ours_on(CORPUS / "planted", planted)
    ours_c, t_ours_c = _ours_on(CORPUS / "clean", clean)
    ours_d, t_ours_d = _ours_on(REPO / "skills", None)
    got = {(p, ln, r) for p, ln, r, _s in ours_p}
    hit = sum(1 for case, (r, f, ln) in exp if (str((case / f).resolve()), ln, r) in got)
    ours_fp = [x for x in ours_c if x[3] != "info"]
    rows = [("Skill Prism", hit, len(ours_fp), t_ours_p + t_ours_c, t_ours_d, len(ours_d))]
    missed: list[str] = []
    if not skip_scanner:
        install_scanner()
        sc_p, t_sc_p = run_scanner(CORPUS / "planted")
        sc_c, t_sc_c = run_scanner(CORPUS / "clean")
        sc_d, t_sc_d = run_scanner(REPO / "skills")

        def loud(fs):
            return [f for f in fs if str(f.get("severity", "")).upper() not in ("INFO", "SAFE")]

        sc_hit = 0
        for case, (_r, f, ln) in exp:
            target = str((case / f).resolve())
            for s in loud(sc_p):
                same = s["file"] == target or (
                    not ln
                    and (
                        s["file"].startswith(target + os.sep)
                        or Path(s["file"]).parent == Path(target)
                    )
                )
                line = s.get("line_number")
                wants = _candidates(s["file"], int(line) if line else None)
                if same and any(not ln or not w or abs(w - ln) <= LINE_TOLERANCE for w in wants):
                    sc_hit += 1
                    break
        rows.append(
            (
                "cisco-ai-skill-scanner " + SCANNER_VERSION,
                sc_hit,
                len(loud(sc_c)),
                t_sc_p + t_sc_c,
                t_sc_d,
                len(loud(sc_d)),
            )
        )
        for where, found, ours in (("corpus", sc_p, ours_p), ("demo set", sc_d, ours_d)):
            for s in loud(found):
                line = s.get("line_number")
                if not _near(ours, s["file"], int(line) if line else None):
                    missed.append(
                        f"  {where}: {os.path.relpath(s['file'], REPO)}:{line} {s['severity']} "
                        f"{s['rule_id']}: {str(s.get('snippet') or s.get('title'))[:90]}"
                    )
    print("Part 1: the corpus (tests/fixtures/security) and the demo set (skills/)")
    print(
        f"  {len(planted)} planted cases with {len(exp)} expected findings; {len(clean)} clean "
        f"look-alike cases. A scanner finding counts as detecting an expected one when it is in the "
        f"same file within {LINE_TOLERANCE} lines."
    )
    print()
    print("  (scanner lines in SKILL.md are counted from the body; both readings are tried)")
    print(
        f"  {'scanner':34} {'detected':>14} {'FP on clean':>12} {'corpus time':>12} {'demo time':>10} {'demo >info':>10}"
    )
    for name, h, fp, t, td, nd in rows:
        print(
            f"  {name:34} {h:>5}/{len(exp)} {h / len(exp):>6.1%} {fp:>12} {t:>11.2f}s {td:>9.2f}s {nd:>10}"
        )
    print("  (Skill Prism in-process; the scanner's times include its start-up, once per folder)")
    print()
    if not skip_scanner:
        print(f"  scanner findings (above INFO) where Skill Prism reports nothing: {len(missed)}")
        for m in missed:
            print(m)
        ok &= not missed
    ok &= hit == len(exp) and not ours_fp
    return ok


def part2(n: int, repeat: int) -> bool:
    """`check` with its security pass (the default) against `check` on the same set with
    `security = false` in the project's settings, run alternately: what the pass adds to check's
    wall time, over `repeat` pairs of runs."""
    ensure_bytecode()
    with tempfile.TemporaryDirectory(prefix="skillprism-security-") as tmp:
        root = Path(tmp) / "skills"
        t0 = time.perf_counter()
        generate(root, n, 1)
        print(
            f"Part 2: {n:,} generated skills (bench/gen_skills.py, seed 1), made in {time.perf_counter() - t0:.1f} s"
        )
        on, off = Path(tmp) / "on", Path(tmp) / "off"
        on.mkdir()
        off.mkdir()
        (off / ".skillprism.toml").write_text("security = false\n")
        script = Path(sys.executable).with_name("skillprism")
        check = [str(script)] if script.exists() else [sys.executable, "-m", "skillprism"]
        runs: dict[str, list[float]] = {"off": [], "on": []}
        for i in range(repeat):
            for mode, project in (("off", off), ("on", on)):
                # a fresh cache folder each run: what the pass costs on files it never saw
                env = {**os.environ, "SKILLPRISM_CACHE_DIR": str(Path(tmp) / f"cache-{mode}-{i}")}
                t0 = time.perf_counter()
                subprocess.run(
                    [*check, "check", "--format", "json", "--project", str(project), str(root)],
                    stdout=subprocess.DEVNULL,
                    env=env,
                )
                runs[mode].append(time.perf_counter() - t0)
        best = {mode: min(times) for mode, times in runs.items()}
        median = {mode: statistics.median(times) for mode, times in runs.items()}
        # Each "on" run against the "off" run just before it: the machine's speed drifts over a
        # minute far more than within a pair, so the median of these ratios is the figure.
        added = statistics.median(b / a for a, b in zip(runs["off"], runs["on"], strict=True)) - 1
        verdict = "PASS" if added <= OVERHEAD_TARGET else "FAIL"
        print(f"  check, security off : {best['off']:6.3f} s best, {median['off']:6.3f} s median")
        print(f"  check, security on  : {best['on']:6.3f} s best, {median['on']:6.3f} s median")
        print(
            f"  added by the pass   : {added:+6.1%} (median of {repeat} paired runs)   "
            f"target <= {OVERHEAD_TARGET:.0%}   {verdict}"
        )
        print(
            f"                        {best['on'] / best['off'] - 1:+6.1%} best-to-best, "
            f"{median['on'] / median['off'] - 1:+6.1%} median-to-median"
        )
        for mode, times in runs.items():
            print(f"  all runs, security {mode:3}: {', '.join(f'{x:.3f}' for x in times)} s")
        print(
            f"  load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)"
        )
        return added <= OVERHEAD_TARGET


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument(
        "--install-scanner", action="store_true", help="create bench/out/cisco-venv"
    )
    parser.add_argument("--skip-scanner", action="store_true", help="part 1 without the scanner")
    parser.add_argument("--only", choices=("corpus", "overhead"))
    args = parser.parse_args(argv)
    if args.install_scanner:
        install_scanner()
    ok = True
    if args.only != "overhead":
        ok &= part1(args.skip_scanner)
        print()
    if args.only != "corpus":
        ok &= part2(args.n, args.repeat)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
