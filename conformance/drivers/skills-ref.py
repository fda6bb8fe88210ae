"""Conformance driver for the reference validator skills-ref (PyPI, pinned in conformance/runtimes.py).

skills-ref is a library and CLI, not an agent: it has no roots and no clash rule. The driver hands
it what a client following the Agent Skills client guide would: every folder one level below
`{project}/.agents/skills` and then `~/.agents/skills` (sorted, each holding SKILL.md or skill.md
as skills_ref.parser.find_skill_md finds them). For each it calls skills_ref.read_properties
(loaded, or rejected with its error) and skills_ref.validate (its errors become warnings). Tier 1
is skills_ref.to_prompt on the folders read_properties accepted, in that order (the CLI
`agentskills to-prompt` stops at the first folder it cannot read, so a client passes valid ones).

Protocol: one JSON job on stdin -> one JSON result; a JSON array of jobs -> an array of results.
"""

from __future__ import annotations

import json
import os
import sys


def _setup() -> None:
    site = os.environ.get("SKILLPRISM_LAB_PYTHONPATH")
    if site:
        sys.path.insert(0, site)


def run_job(job: dict) -> dict:
    from importlib.metadata import version
    from pathlib import Path

    import skills_ref
    from skills_ref.parser import find_skill_md

    os.environ["HOME"] = job["home"]
    for key, value in (job.get("env") or {}).items():
        os.environ[key] = str(value)
    os.chdir(job["cwd"])
    roots = [
        Path(job["project"]) / ".agents" / "skills",
        Path(job["home"]) / ".agents" / "skills",
    ]
    skills: list[dict] = []
    rejected: list[dict] = []
    warnings: list[str] = []
    accepted: list[Path] = []
    for root in roots:
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir(), key=lambda p: p.name):
            if not folder.is_dir():
                continue
            skill_md = find_skill_md(folder)
            if skill_md is None:
                continue
            path = str(skill_md)
            try:
                for problem in skills_ref.validate(folder):
                    warnings.append(f"{path}: {problem}")
            except Exception as err:  # validate itself fails (e.g. on invalid UTF-8)
                warnings.append(f"{path}: validate raised {type(err).__name__}: {err}")
            try:
                props = skills_ref.read_properties(folder)
            except Exception as err:  # ParseError / ValidationError / a decoding error
                rejected.append({"path": path, "reason": f"{type(err).__name__}: {err}"})
                continue
            accepted.append(folder)
            skills.append({"path": path, "name": props.name, "description": props.description})
    return {
        "runtime": "skills-ref",
        "release": version("skills-ref"),
        "skills": skills,
        "rejected": rejected,
        "warnings": warnings,
        "tier1": skills_ref.to_prompt(accepted),
    }


def main() -> int:
    _setup()
    data = json.load(sys.stdin)
    jobs = data if isinstance(data, list) else [data]
    results = [run_job(job) for job in jobs]
    out = results if isinstance(data, list) else results[0]
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
