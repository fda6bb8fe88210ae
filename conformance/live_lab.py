"""The trigger lab: a real CLI, the scripted model server, Skill Prism's own live runner.

`lab_run(runtime, answer, base)` lays out a two-skill set (alpha, the intended one, and beta)
with Skill Prism's live workspace, scripts the server's main turn (`intended`: a call of the
profile's skill tool for alpha, `other`: for beta, `none`: plain text, `error`: HTTP 400,
`timeout`: no answer), and runs the pinned CLI once through core/live_trigger/runner.py: under
`unshare -n`/`-rn` (binlab), with netns_run.py starting the server in the same namespace, the
profile's lab arguments and environment, a temporary HOME. It returns the runner's outcome and
the stream the CLI printed (what tests/data/live_streams/ holds, captured this way).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import binlab  # noqa: E402

# Which lab package holds each runtime's CLI (binlab.PACKAGES), per profile name.
LAB_PACKAGE = {"claude-code": "claude-code", "codex": "codex", "opencode": "opencode"}
# Gemini CLI is a node package, not a binary (the lab's gemini-cli folder holds only its core
# library): installed by `python3 conformance/live_lab.py --install-gemini-cli`.
GEMINI_CLI = (
    "@google/gemini-cli@0.61.0",
    "gemini-cli-cli/node_modules/@google/gemini-cli/bundle/gemini.js",
)
NODE_CLI = {"gemini-cli": GEMINI_CLI}  # profile -> (npm spec, entry point below the cache)

SKILLS = {
    "alpha": "Convert CSV files into Excel workbooks with formatted headers and frozen panes.",
    "beta": "Draft release notes from a git log, grouped by feature, fix and breaking change.",
}
PROMPT = "turn data.csv into an xlsx workbook with a bold header row"


def cli_path(runtime: str) -> Path:
    """The pinned CLI (binlab.LabError when the lab does not hold it, with why)."""
    if runtime in NODE_CLI:
        spec, entry = NODE_CLI[runtime]
        path = binlab.cache_root() / entry
        if not path.is_file():
            raise binlab.LabError(
                f"{spec} is not installed at {path}; run: python3 "
                "conformance/live_lab.py --install-gemini-cli"
            )
        return path
    package = LAB_PACKAGE.get(runtime)
    if package is None:
        raise binlab.LabError(f"the lab has no CLI package for {runtime}")
    return binlab.binary_path(package)


def write_skills(folder: Path) -> list[Path]:
    out = []
    for name, description in SKILLS.items():
        skill = folder / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n",
            encoding="utf-8",
        )
        out.append(skill)
    return out


def _fill(value: Any, skill: str, skill_file: str) -> Any:
    if isinstance(value, str):
        return value.replace("{skill}", skill).replace("{skill_file}", skill_file)
    if isinstance(value, dict):
        return {k: _fill(v, skill, skill_file) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, skill, skill_file) for v in value]
    return value


def lab_run(
    runtime: str,
    answer: str,
    base: Path,
    timeout: float = 60.0,
    args: tuple[str, ...] | None = None,
    tool: tuple[str, dict[str, Any]] | None = None,
) -> tuple[Any, list[str]]:
    """(the runner's RunOutcome, the CLI's stdout lines) for one scripted run (see the module);
    `args` and `tool` replace the profile's lab arguments and skill tool call."""
    from skillprism.core.live_trigger.runner import Job, Launch, run_one
    from skillprism.core.live_trigger.workspace import Skill, lay_out
    from skillprism.core.profiles import load_profile

    profile = load_profile(runtime)
    spec = profile.live
    assert spec is not None, f"{runtime} has no [live_trigger]"
    program = cli_path(runtime)
    sources = write_skills(base / "src")
    home = base / "home"
    home.mkdir()
    for name, text in spec.lab.files:
        target_file = home / name.removeprefix("~/")
        target_file.parent.mkdir(parents=True, exist_ok=True)
        target_file.write_text(text, encoding="utf-8")
    job_env = binlab.isolated_env({"home": str(home), "env": dict(spec.env)})
    ws = lay_out(profile, [Skill(p.name, str(p)) for p in sources], str(base / "ws"))
    target = {"intended": "alpha", "other": "beta"}.get(answer, "alpha")
    skill_file = str(Path(ws.root) / ws.skills[target] / "SKILL.md")
    script: dict[str, Any] = {
        "intended": {"kind": "tool"},
        "other": {"kind": "tool"},
        "none": {"kind": "text", "text": "I will not use a skill."},
        "error": {"kind": "error", "status": 400, "message": "lab: scripted bad request"},
        "timeout": {"kind": "hang"},
    }[answer]
    if script["kind"] == "tool":
        name, given = tool if tool is not None else (spec.lab.tool, dict(spec.lab.tool_input))
        script["tool"] = name
        script["input"] = _fill(given, target, skill_file)
    script_file = base / "script.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    stream = base / "stream.jsonl"
    prefix = [
        *binlab.no_network_prefix(),
        sys.executable,
        str(HERE / "netns_run.py"),
        "--script",
        str(script_file),
        "--log",
        str(base / "requests.jsonl"),
        "--tee",
        str(stream),
    ]
    for key, value in spec.lab.env:
        prefix += ["--env", f"{key}={value}"]
    prefix.append("--")
    launch = Launch(
        cwd=ws.project,
        program=str(program),
        prefix=tuple(prefix),
        extra=spec.lab.args if args is None else args,
        env=job_env,
    )
    outcome = run_one(spec, Job(0, PROMPT, 1), launch, "alpha", ws.skills, timeout, lambda: False)
    lines = stream.read_text(encoding="utf-8").splitlines() if stream.exists() else []
    return outcome, lines


def install_gemini_cli() -> int:
    """npm install of the pinned Gemini CLI into the lab cache (no install script runs)."""
    import subprocess

    folder = binlab.cache_root() / GEMINI_CLI[1].split("/")[0]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(
        '{"name": "skillprism-lab-gemini-cli-cli", "private": true}\n'
    )
    cmd = [
        "npm",
        "install",
        "--ignore-scripts",
        "--no-save",
        "--no-audit",
        "--no-fund",
        GEMINI_CLI[0],
    ]
    return subprocess.run(cmd, cwd=folder).returncode


if __name__ == "__main__":
    if sys.argv[1:] == ["--install-gemini-cli"]:
        raise SystemExit(install_gemini_cli())
    raise SystemExit("usage: live_lab.py --install-gemini-cli")
