#!/usr/bin/env python3
"""Conformance driver: Amp (npm `@sourcegraph/amp` 0.0.1790142911-g7618fb, Bun-compiled binary).

Reads one job on stdin, prints one JSON result (see conformance/README-bin.md).

`amp skill list --json` is Amp's own skill service (`OIt`: every root, the recursive walk, the
frontmatter checks, first-wins by name) without a model session. It is run offline in a fresh
network namespace, HOME the job's temp home, cwd = the job's cwd, with a placeholder
`AMP_API_KEY` (without a key the command starts an interactive login) and `AMP_URL` pointing at
a closed local port: the server calls it makes (global skills, global plugins) fail at once, and
the local scan does not depend on them. stdout is `{"skills": [name, description, baseDir,
source], "errors": [path, error, hint]}`; the debug log (`--log-file`) gives the warnings
(`Skipping duplicate skill`, frontmatter warnings).

`baseDir` is the skill folder's *real* path (Amp deduplicates folders by real path), so the
driver learns which SKILL.md path Amp actually read from the `openat` calls it makes (`strace`,
when available): a folder reached through a symlink is then reported at the link, as read.

Tier 1 is not obtainable: the client sends the skill list to Amp's server
(`executor_skill_snapshot`), which writes the listing into the prompt. Built-in skills (source
`builtin`, `builtin:///skills`) are left out of `skills`, with a warning.

Nothing from a fixture is executed. Amp runs plugins (TypeScript) from `~/.config/amp/plugins`
and a workspace's `.amp/plugins`; the driver refuses a job whose tree holds either folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import PACKAGES, LabError, binary_path, emit, fail, read_job, run_isolated

RUNTIME = "amp"
ENV = {
    # A placeholder: only its presence matters (no login flow). It is never valid anywhere, and
    # the network namespace has no interface, so nothing could be sent anyway.
    "AMP_API_KEY": "skillprism-lab-offline",
    # Port 9 (discard) on the loopback of an empty namespace: every server call fails at once.
    "AMP_URL": "http://127.0.0.1:9",
}
SKILL_FILE = re.compile(r"^skill\.md$", re.I)  # Amp's kIt
_OPENAT = re.compile(r'openat\([^,]+, "((?:[^"\\]|\\.)*)", O_RDONLY')

_STRACE: list[str] | None = None


def strace_prefix() -> list[str]:
    """`strace -f -e trace=openat` when it works here (ptrace may be refused), else []."""
    global _STRACE
    if _STRACE is None:
        _STRACE = []
        exe = shutil.which("strace")
        if exe:
            probe = [exe, "-f", "-qq", "-e", "trace=openat", "-o", "/dev/null", "true"]
            try:
                ok = subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            if ok:
                _STRACE = [
                    exe,
                    "-f",
                    "-qq",
                    "-s",
                    "4096",
                    "-e",
                    "trace=openat",
                    "-e",
                    "signal=none",
                ]
    return list(_STRACE)


def refuse_plugins(job: dict) -> None:
    """Amp would run plugin code found in these folders: a fixture must never hold one."""
    home = Path(job["home"])
    folders = [home / ".config" / "amp" / "plugins"]
    here = Path(job["cwd"]).resolve()
    folders += [p / ".amp" / "plugins" for p in (here, *here.parents)]
    found = [str(f) for f in folders if f.exists()]
    if found:
        raise LabError(f"refusing to run Amp: plugin folders present: {', '.join(found)}")


def uri_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def skill_list(job: dict, work: Path) -> tuple[dict, list[dict], list[str]]:
    """Amp's JSON answer, its log records, and the skill files it opened (in order)."""
    amp = str(binary_path(RUNTIME))
    log = work / "amp.log"
    trace = work / "openat.txt"
    tracer = strace_prefix()
    argv = [*tracer, "-o", str(trace)] if tracer else []
    argv += [amp, "skill", "list", "--json", "--log-level", "debug", "--log-file", str(log)]
    proc = run_isolated(argv, job, env_extra=ENV, timeout=120)
    if proc.returncode != 0:
        raise LabError(f"amp skill list exited {proc.returncode}: {proc.stderr[-1500:]}")
    start = proc.stdout.find("{")
    if start < 0:
        raise LabError(f"amp skill list printed no JSON: {proc.stdout[:500]!r}")
    answer = json.loads(proc.stdout[start:])
    records = []
    if log.is_file():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    opened: list[str] = []
    if trace.is_file():
        for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
            m = _OPENAT.search(line)
            if m:
                # strace writes the path as a C string: undo its escapes (\" \\ \ooo).
                path = m.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")
                path = path.encode("latin-1").decode("utf-8", "replace")
                if SKILL_FILE.match(os.path.basename(path)) and path not in opened:
                    opened.append(path)
    return answer, records, opened


def skill_file(base_dir: str, opened: list[str]) -> str:
    """The SKILL.md path Amp read for a skill whose (real) folder is `base_dir`."""
    for path in opened:
        if os.path.realpath(os.path.dirname(path)) == base_dir:
            return path
    # No trace: the first skill file of the folder in directory order (Amp's readdir order).
    try:
        names = [n for n in os.listdir(base_dir) if SKILL_FILE.match(n)]
    except OSError:
        names = []
    for name in names:
        if os.path.isfile(os.path.join(base_dir, name)):
            return os.path.join(base_dir, name)
    return os.path.join(base_dir, "SKILL.md")


def warnings_from(records: list[dict]) -> list[str]:
    """Amp's skill warnings, once each (it scans twice: at start and after plugins load)."""
    out: list[str] = []
    for rec in records:
        msg = str(rec.get("message", ""))
        path = uri_path(str(rec.get("path", "")))
        if msg == "Skipping duplicate skill":
            text = f"Skipping duplicate skill '{rec.get('name')}' at {path} (first wins)"
        elif rec.get("level") == "WARN" and rec.get("field") is not None:
            text = f"{path}: {msg}"
        elif rec.get("level") == "WARN" and "skill" in msg.lower() and "plugin" not in msg:
            text = f"{msg} {path}".strip()
        else:
            continue
        if text not in out:
            out.append(text)
    return out


def main() -> int:
    try:
        job = read_job()
        refuse_plugins(job)
        work = Path(isolated_tmp(job))
        answer, records, opened = skill_list(job, work)
        warnings = warnings_from(records)
        if not strace_prefix():
            warnings.append(
                "strace unavailable: a symlinked skill folder is reported at its real path"
            )
        skills = []
        builtin = [
            {
                "path": str(s.get("baseDir", "")),
                "name": s.get("name"),
                "description": s.get("description"),
            }
            for s in answer.get("skills") or []
            if s.get("source") == "builtin"
        ]
        for sk in answer.get("skills") or []:
            if sk.get("source") == "builtin":
                continue
            base = uri_path(str(sk.get("baseDir", "")))
            skills.append(
                {
                    "path": skill_file(base, opened),
                    "name": sk.get("name"),
                    "description": sk.get("description"),
                    "source": sk.get("source"),
                }
            )
        rejected = [
            {
                "path": uri_path(str(e.get("path", ""))),
                "reason": str(e.get("error", "")) + (f" ({e['hint']})" if e.get("hint") else ""),
            }
            for e in answer.get("errors") or []
        ]
        emit(
            {
                "runtime": RUNTIME,
                "release": PACKAGES[RUNTIME].release,
                "skills": skills,
                "builtin": builtin,
                "rejected": rejected,
                "warnings": warnings,
                "tier1": None,
                # Offline, `amp skill list` needs an API key (else it starts a login) and a server
                # URL; neither changes the local scan. Plugins (code) make the driver refuse a job.
                "settings": [
                    {
                        "setting": "AMP_API_KEY, AMP_URL",
                        "value": "a placeholder key, a closed local port",
                        "reason": "without a key the command starts an interactive login",
                    }
                ],
            }
        )
        return 0
    except (LabError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
        return fail(RUNTIME, str(exc))


def isolated_tmp(job: dict) -> str:
    """A folder for the log and trace, inside the job's temp home (never in the project)."""
    path = Path(job["home"]).resolve() / ".tmp" / "skillprism-lab-amp"
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


if __name__ == "__main__":
    raise SystemExit(main())
