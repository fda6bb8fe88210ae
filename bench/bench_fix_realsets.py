"""Do the quick fixes do what they claim on real skill collections?

For each collection under /work/realsets (read-only: each is copied to a temporary folder first)
and each profile, in the copy:

1. `skillprism check --format json --no-security .`: the findings per file and code before;
2. the fixes the Workspace offers (the same call `skillprism fix` makes) and which of them it
   would apply together: each claims to remove one finding of its code under the profile;
3. `skillprism fix --dry-run --diff .`: the diff, checked with `git apply --check` and applied
   with `git apply`;
4. `check` again: per code, the findings offered a fix, claimed removed, actually removed, and
   any finding the fixes introduced.

Target: `git apply --check` accepts every diff, and in every file every claimed removal happens
(findings of the code fall by at least the number claimed). Baseline: the findings before.

    python bench/bench_fix_realsets.py [--sets /work/realsets] [--profile agentskills ...]
        [--rename-folders]

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
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKILLPRISM = [sys.executable, "-m", "skillprism"]


def counts(copy: Path, profile: str, env: dict[str, str]) -> Counter[tuple[str, str]]:
    """(real path, code) -> findings, from `check --format json`."""
    run = subprocess.run(
        [
            *SKILLPRISM,
            "check",
            "--format",
            "json",
            "--no-security",
            "--no-project-settings",
            "--profile",
            profile,
            ".",
        ],
        cwd=copy,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if run.returncode == 2:
        raise SystemExit(f"check failed in {copy}: {run.stderr.strip()}")
    data = json.loads(run.stdout)
    out: Counter[tuple[str, str]] = Counter()
    for result in data["results"]:
        for skill in result["skills"]:
            for d in skill["diagnostics"]:
                real = os.path.realpath(d.get("path") or skill["real_path"])
                out[(real, d["code"])] += 1
    return out


RENAME: list[str] = []  # ["--rename-folders"] when asked


Claims = tuple[Counter[str], Counter[tuple[str, str]], dict[str, str]]


def claims(copy: Path, profile: str) -> Claims:
    """Fixes offered per code, removals claimed per (real path, code) and the folders the fixes
    rename (old real path -> new)."""
    from skillprism.app.workspace import Workspace
    from skillprism.core.fixes import non_overlapping

    ws = Workspace(str(copy), [str(copy)], [profile], project_settings=False, security=False)
    fixes = ws.fixes([str(copy)], rename_folders=bool(RENAME))
    keep, _skipped = non_overlapping(fixes)
    offered = Counter(f.code for f in fixes)
    claimed: Counter[tuple[str, str]] = Counter()
    renames = {f.rename[0]: f.rename[1] for f in keep if f.rename is not None}
    for f in keep:
        if ws.profile(profile).name in f.helps:
            claimed[(moved(os.path.realpath(f.path), renames), f.code)] += 1
    return offered, claimed, renames


def moved(path: str, renames: dict[str, str]) -> str:
    """Where `path` is once the fixes renamed its folder."""
    for old, new in renames.items():
        if path.startswith(old + os.sep):
            return new + path[len(old) :]
    return path


def one(src: Path, profile: str, env: dict[str, str]) -> bool:
    with tempfile.TemporaryDirectory(prefix="sp-fixbench-") as tmp:
        copy = Path(tmp) / src.name
        shutil.copytree(src, copy, symlinks=True)
        for cmd in (
            ["git", "init", "-q", "."],
            ["git", "add", "-A"],
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"],
        ):
            subprocess.run(cmd, cwd=copy, check=True, capture_output=True)
        offered, claimed, renames = claims(copy, profile)
        # the findings before, where their files are after the renames (compared file by file)
        before = Counter()
        for (path, code), n in counts(copy, profile, env).items():
            before[(moved(path, renames), code)] += n
        t0 = time.perf_counter()
        run = subprocess.run(
            [
                *SKILLPRISM,
                "fix",
                "--dry-run",
                "--diff",
                "--no-project-settings",
                *RENAME,
                "--profile",
                profile,
                ".",
            ],
            cwd=copy,
            capture_output=True,
            env=env,
            check=False,
        )
        took = time.perf_counter() - t0
        patch = Path(tmp) / "fix.patch"
        patch.write_bytes(run.stdout)
        ok = run.returncode in (0, 1)
        applies = True
        if run.stdout:
            check = subprocess.run(
                ["git", "apply", "--check", str(patch)],
                cwd=copy,
                capture_output=True,
                text=True,
                check=False,
            )
            applies = check.returncode == 0
            if applies:
                subprocess.run(["git", "apply", "--index", str(patch)], cwd=copy, check=True)
            else:
                print(f"  git apply --check refused: {check.stderr.strip()[:400]}")
        after = counts(copy, profile, env) if applies else before
        removed: Counter[str] = Counter()
        introduced: Counter[str] = Counter()
        claimed_code: Counter[str] = Counter()
        missed = []
        for key in set(before) | set(after):
            delta = before[key] - after[key]
            if delta > 0:
                removed[key[1]] += delta
            elif delta < 0:
                introduced[key[1]] += -delta
        for key, n in claimed.items():
            claimed_code[key[1]] += n
            if before[key] - after[key] < n:
                missed.append((key, n, before[key] - after[key]))
        files = len({p for p, _c in before})
        print(
            f"{src.name} [{profile}]: {files} files with findings, fix --dry-run --diff "
            f"{took:.1f} s, exit {run.returncode}, diff {len(run.stdout):,} bytes, "
            f"git apply --check: {'ok' if applies else 'REFUSED'}"
        )
        codes = sorted(set(offered) | set(claimed_code) | set(introduced))
        if codes:
            print(
                f"  {'code':6} {'before':>7} {'offered':>8} {'claimed':>8} {'removed':>8} "
                f"{'introduced':>10}"
            )
        total_before = Counter(c for _p, c in before.elements())
        for code in codes:
            print(
                f"  {code:6} {total_before[code]:>7} {offered[code]:>8} "
                f"{claimed_code[code]:>8} {removed[code]:>8} {introduced[code]:>10}"
            )
        for (path, code), n, got in missed:
            print(f"  MISSED: {code} in {os.path.relpath(path, copy)}: claimed {n}, removed {got}")
        if run.returncode not in (0, 1):
            print(f"  fix failed: {run.stderr.decode(errors='replace').strip()[:400]}")
        return ok and applies and not missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="/work/realsets")
    parser.add_argument("--profile", action="append")
    parser.add_argument("--rename-folders", action="store_true")
    args = parser.parse_args()
    if args.rename_folders:
        RENAME.append("--rename-folders")
    profiles = args.profile or ["agentskills", "claude-code", "codex"]
    sets = sorted(p for p in Path(args.sets).iterdir() if p.is_dir())
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="sp-fixbench-state-")
    os.environ["XDG_STATE_HOME"] = env["XDG_STATE_HOME"]
    print("target: git apply --check accepts every diff; every claimed removal happens")
    good = True
    for src in sets:
        for profile in profiles:
            good = one(src, profile, env) and good
    print("all targets met" if good else "TARGET MISSED")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
