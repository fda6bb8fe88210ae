"""Run the lab against each runtime's newest release and print which profiles drift.

    make conformance-latest                               # every runtime
    .venv/bin/python conformance/latest.py --runtime codex --runtime pi [--quick] [--json]

For every runtime the lab pins (conformance/runtimes.py) the newest release is asked of its
registry with the registry's own client (`npm view PACKAGE version`, `pip index versions NAME`).
When it is newer than the pinned one, it is installed apart, in `<cache>/latest/` (the same
`npm install --ignore-scripts` / `pip install --target` as install.py), the same fixture cases run
against today's profile, and the result is set against what `resources/lab-results.json`
recorded for the pinned release: the level it would earn, the agreement per field, and every
group of differences that is new or gone. A new release is then a diff to review, not a
surprise. Nothing is written to the recorded results.

Exit status: 0 when every runtime was looked at (drift is reported, not an error), 2 when the
registry could not be asked at all.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance import install as installer
from conformance import run
from conformance.runtimes import LAB, RUNTIMES, Runtime, python_for

LATEST_CACHE = "latest"


@dataclasses.dataclass
class Drift:
    runtime: str
    pinned: str
    newest: str = ""
    status: str = (
        ""  # newest-is-pinned | no-drift | drift | not-installable | driver-failed | unknown
    )
    lines: list[str] = dataclasses.field(default_factory=list)
    level: str = ""  # the level the newest release would earn
    pinned_level: str = ""


def _npm_latest(package: str) -> str:
    proc = subprocess.run(
        ["npm", "view", package, "version", "--loglevel=error"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise RuntimeError(f"npm view {package}: {proc.stderr.strip()[-300:] or 'no version'}")
    return proc.stdout.strip().splitlines()[-1].strip().strip("'\"")


def _pypi_latest(rt: Runtime, name: str) -> str:
    proc = subprocess.run(
        [python_for(rt), "-m", "pip", "index", "versions", name, "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    first = proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else ""
    if proc.returncode != 0 or "(" not in first:
        raise RuntimeError(
            f"pip index versions {name}: {proc.stderr.strip()[-300:] or 'no version'}"
        )
    return first.split("(", 1)[1].split(")", 1)[0].strip()


def newest_runtime(rt: Runtime) -> Runtime:
    """`rt` moved to the newest release of each of its pins (a pin listed in `same_version`
    takes the version of the one it names)."""
    follows = dict(rt.same_version)
    npm = {pkg: _npm_latest(pkg) for pkg in rt.npm if pkg not in follows}
    for pkg, leader in follows.items():
        npm[pkg] = npm[leader]
    pypi = {pkg: _pypi_latest(rt, pkg) for pkg in rt.pypi}
    primary = npm.get(rt.package) or next(iter(pypi.values()), "") or rt.release
    if rt.pypi and not rt.npm:
        primary = next(iter(pypi.values()))
    return dataclasses.replace(rt, release=primary, npm=npm, pypi=pypi)


def _groups(record: dict[str, Any]) -> dict[tuple[str, str, str], set[str]]:
    return {
        (g["kind"], g["field"], g["reason"]): set(g["cases"]) for g in record.get("divergences", [])
    }


def compare(pinned: dict[str, Any] | None, newest: dict[str, Any], level: str) -> list[str]:
    """What differs between the recorded run of the pinned release and the newest one's."""
    lines = []
    if pinned is None:
        return ["no recorded results for the pinned release (run make conformance)"]
    for f in run.FIELDS:
        a = (pinned["agree"].get(f, 0), pinned["total"].get(f, 0))
        b = (newest["agree"].get(f, 0), newest["total"].get(f, 0))
        if a != b:
            lines.append(f"{f}: {b[0]}/{b[1]} agree (pinned release: {a[0]}/{a[1]})")
    old, new = _groups(pinned), _groups(newest)
    for key in sorted(set(old) | set(new)):
        kind, fld, reason = key
        what = f"[{kind}] {fld}" + (f": {reason[:110]}" if reason else "")
        before, after = old.get(key, set()), new.get(key, set())
        if not before:
            lines.append(f"new {what} in {', '.join(sorted(after)[:8])}")
        elif not after:
            lines.append(f"gone {what}")
        elif before != after:
            added, removed = sorted(after - before), sorted(before - after)
            change = []
            if added:
                change.append("now also " + ", ".join(added[:8]))
            if removed:
                change.append("no longer " + ", ".join(removed[:8]))
            lines.append(f"changed {what}: {'; '.join(change)}")
    if newest.get("error"):
        lines.append(f"driver failed: {newest['error'][:400]}")
    return lines


def check_runtime(
    rt: Runtime,
    cases: Sequence[Any],
    known: Sequence[dict[str, Any]],
    recorded: dict[str, dict[str, Any]],
    work: str,
) -> Drift:
    from skillprism.core.lab_results import derive_level, parse_results

    pinned_record = recorded.get(rt.name)
    drift = Drift(rt.name, rt.release)
    if pinned_record is not None:
        drift.pinned_level = derive_level(
            parse_results({"schema": 1, "runtimes": [pinned_record]})[rt.profile], rt.release
        ).level
    try:
        newest = newest_runtime(rt)
    except (RuntimeError, OSError, subprocess.TimeoutExpired, SystemExit) as err:
        drift.status, drift.lines = "unknown", [f"newest release not found: {err}"]
        return drift
    drift.newest = newest.release
    if newest.npm == rt.npm and newest.pypi == rt.pypi:
        drift.status = "newest-is-pinned"
        drift.level = drift.pinned_level
        return drift
    try:
        with contextlib.redirect_stdout(sys.stderr):
            installer.install(newest)
    except (SystemExit, subprocess.CalledProcessError, OSError) as err:
        drift.status = "not-installable"
        drift.lines = [f"{newest.release} does not install as the pinned release does: {err}"]
        return drift
    try:
        report = run.run_runtime(newest, cases, os.path.join(work, rt.name), known)
    except run.DriverError as err:
        report = run.RuntimeReport(rt.name, newest.release, rt.profile, error=str(err))
    record = run.record_of(report, newest, known, "latest")
    derived = derive_level(
        parse_results({"schema": 1, "runtimes": [record]})[rt.profile], newest.release
    )
    drift.level = derived.level
    drift.lines = compare(pinned_record, record, derived.level)
    if report.error:
        drift.status = "driver-failed"
    else:
        drift.status = "drift" if drift.lines else "no-drift"
    return drift


def summary(drifts: Sequence[Drift]) -> str:
    words = {
        "newest-is-pinned": "pinned is the newest release",
        "no-drift": "newer release agrees as the pinned one does",
        "drift": "DRIFT: the profile needs review",
        "not-installable": "newer release not installable",
        "driver-failed": "DRIFT: the lab's driver fails on the newer release",
        "unknown": "newest release unknown",
    }
    rows = [("runtime", "pinned", "newest", "level (pinned -> newest)", "result")]
    for d in drifts:
        rows.append(
            (
                d.runtime,
                d.pinned,
                d.newest or "?",
                f"{d.pinned_level or '-'} -> {d.level or '-'}",
                words.get(d.status, d.status),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", action="append", metavar="NAME", help="only this runtime")
    parser.add_argument("--quick", action="store_true", help="the quick cases only")
    parser.add_argument("--case", action="append", metavar="GLOB", help="only cases matching")
    parser.add_argument("--json", action="store_true", help="print a machine-readable result")
    args = parser.parse_args(argv)
    if shutil.which("npm") is None:
        print("npm is not on PATH: install Node.js 20 or newer", file=sys.stderr)
        return 2
    names = args.runtime or list(RUNTIMES)
    unknown = [n for n in names if n not in RUNTIMES]
    if unknown:
        parser.error(f"unknown runtime(s): {', '.join(unknown)}")
    pinned_cache = os.environ.get("SKILLPRISM_LAB_CACHE") or str(LAB / ".cache")
    os.environ["SKILLPRISM_LAB_CACHE"] = str(Path(pinned_cache).resolve() / LATEST_CACHE)
    recorded = {}
    if run.RESULTS_FILE.is_file():
        recorded = {
            e["runtime"]: e
            for e in json.loads(run.RESULTS_FILE.read_text(encoding="utf-8")).get("runtimes", [])
        }
    known = run.load_known()
    cases = run.select_cases(args.quick, 1, 0, args.case or ())
    drifts = []
    work = tempfile.mkdtemp(prefix="skillprism-latest-")
    try:
        for name in names:
            d = check_runtime(RUNTIMES[name], cases, known, recorded, work)
            drifts.append(d)
            if not args.json:
                print(f"\n== {d.runtime}: pinned {d.pinned}, newest {d.newest or '?'}: {d.status}")
                for line in d.lines:
                    print(f"   {line}")
                sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the installs stay: a second run downloads nothing
    if args.json:
        print(json.dumps([dataclasses.asdict(d) for d in drifts], indent=1, ensure_ascii=False))
    else:
        print("\n" + summary(drifts))
        drifting = [d.runtime for d in drifts if d.status in ("drift", "driver-failed")]
        print(
            "\nprofiles that drift: " + (", ".join(drifting) if drifting else "none"),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
