#!/usr/bin/env python3
"""The table of every profile's disable setting: which setting, in which file, and whether it is
verified in the lab, only documented, or missing (and why).

    python3 conformance/toggle_table.py --run     # run tests/test_toggle_lab.py, record the results
    python3 conformance/toggle_table.py           # the table from the profiles and the record

`--run` runs the lab tests of enable/disable (tests/test_toggle_lab.py: after `skillprism
disable` the runtime's own loader no longer lists the skill, after `--undo` it does) and writes
what each runtime's test gave (passed, skipped with the reason, failed) with the runtime's
release and the date to conformance/toggle-lab-results.json. The table reads every
resources/profiles/*.toml `[toggle]` (form, key, file, evidence, source, note) beside that
record: **verified in the lab** needs both the profile's `evidence = "lab"` and a passing test in
the record; a runtime the lab runs whose profile names no setting says so.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

LAB = Path(__file__).resolve().parent
REPO = LAB.parent
PROFILES = REPO / "resources" / "profiles"
RECORD = LAB / "toggle-lab-results.json"
TEST = "tests/test_toggle_lab.py"

sys.path.insert(0, str(LAB))


def _runtime_of(test_name: str) -> str | None:
    """The runtime a test of tests/test_toggle_lab.py checks: its parameter's first part (the
    profile), else the runtime its name says."""
    from runtimes import RUNTIMES

    param = re.search(r"\[(.*)\]", test_name)
    if param:
        hits = [n for n in RUNTIMES if param.group(1).startswith(n + "-")]
        return max(hits, key=len) if hits else None
    named = {"codex": "codex", "claude": "claude-code", "copilot_clis": "copilot-cli"}
    for runtime, profile in named.items():
        if f"test_{runtime}" in test_name:
            return profile
    return None


def run_tests() -> dict:
    """Run the lab tests and return the record: runtime -> outcome, reason, release, date."""
    from runtimes import RUNTIMES

    with tempfile.TemporaryDirectory(prefix="toggle-lab-") as tmp:
        xml = Path(tmp) / "junit.xml"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                TEST,
                f"--junitxml={xml}",
                "--no-cov",
            ],
            cwd=REPO,
            env=env,
            check=False,
            stdout=sys.stderr,  # the table alone goes to stdout
        )
        tree = ET.parse(xml)
    today = datetime.date.today().isoformat()
    out: dict[str, dict] = {}
    for case in tree.iter("testcase"):
        runtime = _runtime_of(case.get("name", ""))
        if runtime is None:
            continue
        outcome, reason = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = "failed" if tag in ("failure", "error") else "skipped"
                reason = (el.get("message") or "").splitlines()[0][:300]
        rt = RUNTIMES.get(runtime)
        out[runtime] = {
            "outcome": outcome,
            "reason": reason,
            "release": rt.release if rt is not None else "",
            "date": today,
            "test": f"{TEST}::{case.get('name')}",
        }
    return out


def rows(record: dict) -> list[dict]:
    from runtimes import RUNTIMES

    lab_profiles = {rt.profile: name for name, rt in RUNTIMES.items()}
    out = []
    for path in sorted(PROFILES.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        name = data.get("name", path.stem)
        toggle = data.get("toggle") or {}
        runtime = lab_profiles.get(name, "")
        got = record.get(runtime) if runtime else None
        form = toggle.get("form", "")
        if toggle and form != "none":
            value = f" = {toggle['off_value']!r}" if toggle.get("off_value") else ""
            entry = toggle.get("entry", "{name}").replace("{name}", "<name>")
            entry = entry.replace("{dir}", "<skill folder>")
            setting = {
                "name-map": f"{toggle.get('key')}.<name>{value}",
                "name-flag": f"{toggle.get('key')}.<name>.{toggle.get('flag')} = false",
                "name-list": f"{entry} in {toggle.get('key')}",
                "path-entries": f"[[{toggle.get('key')}]] path = <SKILL.md>, enabled = false",
            }.get(form, form)
            file = toggle.get("file", "")
            evidence = toggle.get("evidence", "none")
            if evidence == "lab" and got and got["outcome"] == "passed":
                status = f"verified in the lab ({runtime} {got['release']}, {got['date']})"
            elif evidence == "lab":
                why = f"{got['outcome']}: {got['reason']}" if got else "no lab result recorded"
                status = f"lab evidence claimed, not confirmed here ({why})"
            else:
                status = f"documented ({evidence})"
            note = toggle.get("note", "")
        else:
            setting, file = "none", ""
            status = "none (see the note)" if runtime and toggle.get("note") else "none"
            note = toggle.get("note", "") or (
                "the profile describes no setting that turns one skill off"
                + (
                    f"; {runtime} runs in the lab, its code was not searched for one"
                    if runtime
                    else "; its code is not in the lab cache"
                )
            )
        out.append(
            {
                "profile": name,
                "title": data.get("title", name),
                "setting": setting,
                "file": file,
                "project_file": toggle.get("project_file", ""),
                "status": status,
                "note": note,
            }
        )
    return out


def markdown(table: list[dict], notes: bool) -> str:
    head = "| profile | setting | file | status |"
    if notes:
        head += " note |"
    lines = [head, "|" + "---|" * (5 if notes else 4)]
    for r in table:
        cells = [r["profile"], f"`{r['setting']}`" if r["setting"] != "none" else "none"]
        file = f"`{r['file']}`" if r["file"] else ""
        if r.get("project_file"):
            file += f" (project skills: `{r['project_file']}`)"
        cells += [file, r["status"]]
        if notes:
            cells.append(r["note"].replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="store_true", help="run the lab tests and record the results")
    ap.add_argument("--notes", action="store_true", help="add each profile's note")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.run:
        record = run_tests()
        RECORD.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    record = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    table = rows(record)
    print(json.dumps(table, indent=2) if args.json else markdown(table, args.notes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
