"""Conformance driver for OpenHands (PyPI openhands-sdk, pinned in conformance/runtimes.py).

Runs the SDK's own code, composed as a local conversation composes it:

* personal skills: `openhands.sdk.skills.load_user_skills()` (what `AgentContext(load_user_skills=
  True)` loads through `load_available_skills(include_user=True)`): ~/.agents/skills,
  ~/.openhands/skills, ~/.openhands/microagents, first name wins;
* project skills: `load_project_skills(work_dir)` (what `LocalConversation` loads through
  `load_available_skills(work_dir, include_project=True)`): the working folder, then the git root,
  each with .agents/skills, .openhands/skills, .openhands/microagents, plus third-party files
  (AGENTS.md, .cursorrules, ...);
* merged with `merge_skills_by_name(project, user)` (project first and authoritative), as
  `LocalConversation` does with the context's skills;
* tier 1: `AgentContext(skills=...)._resolve_dynamic_data()` (what `get_system_message_suffix`
  renders) splits the skills with `_partition_skills` and calls `to_prompt(available_skills)`; the
  driver reports that `available_skills_prompt` ("" when no skill is listed: the block is left
  out of the system message).

`skills` lists every merged skill (path = the skill's `source`), name and description as the
`Skill` holds them. `rejected` are the files the SDK logged "Failed to load skill from <path>: <why>".
Skills that are loaded but not in the listing (legacy files without triggers go to REPO_CONTEXT,
`disable-model-invocation`, `paths:` rules) are reported with a warning, not as rejected.

The user folders (USER_SKILLS_DIRS) are computed from Path.home() when openhands.sdk.skills.skill is
imported, so each job runs in a forked child that sets HOME and imports the `openhands` modules
afresh (the parent has the third-party dependencies, litellm and the rest, already imported).

Protocol: one JSON job on stdin -> one JSON result; a JSON array of jobs -> an array of results.
Nothing from a fixture is executed: the SDK only reads files (skill `!`command`` rendering is not
called; that happens when a skill is invoked).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys

FAILED = re.compile(r"^Failed to load (?:skill|third-party skill) from (.+?): (.*)$", re.S)


def _setup() -> None:
    site = os.environ.get("SKILLPRISM_LAB_PYTHONPATH")
    if site:
        sys.path.insert(0, site)
    os.environ["OPENHANDS_SUPPRESS_BANNER"] = "1"
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm: no network on import
    os.environ["LOG_AUTO_CONFIG"] = "false"


def _apply(job: dict) -> None:
    for key in list(os.environ):
        if key.startswith(("OH_", "XDG_")) or key in ("EXTENSIONS_PATH", "EXTENSIONS_REF"):
            del os.environ[key]
    os.environ["HOME"] = job["home"]
    for key, value in (job.get("env") or {}).items():
        os.environ[key] = str(value)
    os.chdir(job["cwd"])


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING and record.name.startswith("openhands"):
            self.records.append(record)


def run_job(job: dict) -> dict:
    """Run one job; called in a fresh child process (see `_fork`)."""
    _apply(job)
    for mod in [m for m in sys.modules if m == "openhands" or m.startswith("openhands.")]:
        del sys.modules[mod]
    collect = _Collect()
    root = logging.getLogger()
    root.addHandler(collect)
    root.setLevel(logging.WARNING)

    from importlib.metadata import version

    from openhands.sdk.context import AgentContext
    from openhands.sdk.skills import (
        load_project_skills,
        load_user_skills,
        merge_skills_by_name,
    )

    user = load_user_skills()
    project = load_project_skills(job["project"])
    merged = merge_skills_by_name(project, user)
    context = AgentContext(skills=merged)
    _repo, listed = context._partition_skills()
    tier1 = context._resolve_dynamic_data().available_skills_prompt

    rejected: list[dict] = []
    warnings: list[str] = []
    for record in collect.records:
        message = record.getMessage()
        m = FAILED.match(message)
        if m:
            rejected.append({"path": m.group(1), "reason": m.group(2)})
        else:
            warnings.append(f"log: {message}")
    listed_ids = {id(s) for s in listed}
    skills = []
    for s in merged:
        skills.append({"path": s.source, "name": s.name, "description": s.description})
        if id(s) not in listed_ids:
            why = "disable-model-invocation" if s.disable_model_invocation else "REPO_CONTEXT"
            warnings.append(f"not in <available_skills> ({why}): {s.source}")
    return {
        "runtime": "openhands",
        "release": version("openhands-sdk"),
        "skills": skills,
        "rejected": rejected,
        "warnings": warnings,
        "tier1": tier1,
    }


def _fork(job: dict) -> dict:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        code = 0
        try:
            out = {"ok": run_job(job)}
        except BaseException as exc:  # reported to the parent
            import traceback

            out = {"error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"}
            code = 1
        with os.fdopen(write_fd, "w", encoding="utf-8") as w:
            w.write(json.dumps(out))
        os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, encoding="utf-8") as r:
        data = r.read()
    os.waitpid(pid, 0)
    out = json.loads(data) if data else {"error": "the child process died"}
    if "error" in out:
        raise SystemExit(f"openhands driver: {out['error']}")
    return out["ok"]


def main() -> int:
    _setup()
    data = json.load(sys.stdin)
    jobs = data if isinstance(data, list) else [data]
    # The SDK writes its banner and logs to stderr; keep stdout for the JSON answer alone.
    real_stdout = os.dup(1)
    os.dup2(2, 1)
    if jobs:
        _apply(jobs[0])
        import openhands.sdk  # noqa: F401 - imports the dependencies once, before the forks
    results = [_fork(job) for job in jobs]
    out = results if isinstance(data, list) else results[0]
    os.write(real_stdout, (json.dumps(out) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
