"""Conformance driver for Hermes Agent (PyPI hermes-agent, pinned in conformance/runtimes.py).

Runs the runtime's own code: the skills of the system-prompt index are what
`agent.prompt_builder.build_skills_system_prompt` lists, found and parsed with the same calls it
makes (`agent.skill_utils.iter_skill_index_files(skills_dir, "SKILL.md")`,
`agent.prompt_builder._parse_skill_file`, `_build_snapshot_entry`), in its order (category, then
name); `name` is the entry's frontmatter name (folder name by default) and `description` the
frontmatter description as parsed (`skill_utils.parse_frontmatter`, before the index cuts it to 60
characters). Tier 1 is `build_skills_system_prompt()` itself. The skills folder is
`$HERMES_HOME/skills` (`hermes_constants.get_skills_dir`); HERMES_HOME defaults to `<home>/.hermes`.
No external skill folders (no config.yaml), so only the local root is read.

Protocol: one JSON job on stdin -> one JSON result; a JSON array of jobs -> an array of results.
Nothing from a fixture is executed: the runtime only reads files (it writes its prompt snapshot
`.skills_prompt_snapshot.json` into the skills folder of the temporary tree).
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys


def _setup() -> None:
    site = os.environ.get("SKILLPRISM_LAB_PYTHONPATH")
    if site:
        sys.path.insert(0, site)


def _apply(job: dict) -> None:
    for key in list(os.environ):
        if key.startswith(("HERMES_", "XDG_")):
            del os.environ[key]
    os.environ["HOME"] = job["home"]
    for key, value in (job.get("env") or {}).items():
        os.environ[key] = str(value)
    os.chdir(job["cwd"])


def run_job(job: dict, log: io.StringIO) -> dict:
    from importlib.metadata import version

    _apply(job)
    log.seek(0)
    log.truncate()
    from agent import prompt_builder, skill_utils
    from hermes_constants import get_skills_dir

    skills_dir = get_skills_dir()
    skills: list[dict] = []
    rejected: list[dict] = []
    if skills_dir.exists():
        found = []
        for skill_file in skill_utils.iter_skill_index_files(skills_dir, "SKILL.md"):
            compatible, frontmatter, _desc = prompt_builder._parse_skill_file(skill_file)
            if not compatible:
                rejected.append({"path": str(skill_file), "reason": "platform/environment gate"})
                continue
            entry = prompt_builder._build_snapshot_entry(skill_file, skills_dir, frontmatter, _desc)
            raw = frontmatter.get("description")
            description = None if raw in (None, "") else str(raw)
            found.append(
                (entry["category"], entry["frontmatter_name"], str(skill_file), description)
            )
        # The index: categories sorted, names sorted in each, one name once per category.
        seen: set[tuple[str, str]] = set()
        for category, name, path, description in sorted(found, key=lambda f: (f[0], f[1])):
            if (category, name) in seen:
                rejected.append({"path": path, "reason": f"same name in category {category}"})
                continue
            seen.add((category, name))
            skills.append({"path": path, "name": name, "description": description})
    tier1 = prompt_builder.build_skills_system_prompt()
    warnings = [f"log: {line}" for line in log.getvalue().splitlines() if line.strip()]
    return {
        "runtime": "hermes-agent",
        "release": version("hermes-agent"),
        "skills": skills,
        "rejected": rejected,
        "warnings": warnings,
        "tier1": tier1,
    }


def main() -> int:
    _setup()
    data = json.load(sys.stdin)
    jobs = data if isinstance(data, list) else [data]
    if jobs:
        _apply(jobs[0])
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.WARNING)
    results = [run_job(job, log) for job in jobs]
    out = results if isinstance(data, list) else results[0]
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
