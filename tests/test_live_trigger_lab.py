"""The trigger lab (issue #27): each pinned CLI the lab holds, driven by Skill Prism's own live
runner against the scripted model server on 127.0.0.1 inside a network namespace where that
server is the only peer (conformance/live_lab.py). Every outcome must be read correctly from the
real CLI's real event stream. A CLI the lab does not hold is skipped with the reason; a runtime
whose profile marks live mode unverified says why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skillprism.core.profiles import load_profile

LAB = Path(__file__).resolve().parent.parent / "conformance"
sys.path.insert(0, str(LAB))

import binlab  # noqa: E402
import live_lab  # noqa: E402

ANSWERS = ("intended", "other", "none", "error", "timeout")


def _cli_or_skip(runtime: str) -> None:
    try:
        live_lab.cli_path(runtime)
    except binlab.LabError as err:
        pytest.skip(f"{runtime}: {err}")
    try:
        binlab.no_network_prefix()
    except binlab.LabError as err:
        pytest.skip(str(err))


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("runtime", ["claude-code", "codex", "opencode", "gemini-cli"])
def test_outcome_read_from_the_real_cli(runtime: str, answer: str, tmp_path: Path) -> None:
    _cli_or_skip(runtime)
    # The scripted server never answers a "timeout" run; the wait is long enough for a CLI that
    # starts slowly on a busy machine to have sent its request (checked below).
    timeout = 45.0 if answer == "timeout" else 90.0
    outcome, stream = live_lab.lab_run(runtime, answer, tmp_path, timeout=timeout)
    assert outcome.outcome == answer, (outcome, stream[-3:])
    if answer == "other":
        assert outcome.skill == "beta"
    if answer == "intended":
        assert outcome.skill == "alpha"
    if answer == "error":
        assert "lab: scripted bad request" in outcome.message
    # Nothing but the scripted server was asked: every request the CLI made reached it.
    requests = (tmp_path / "requests.jsonl").read_text(encoding="utf-8")
    if answer in ("intended", "other", "none"):
        # The runtime saw the throwaway project's skill set: both skills are in what it sent.
        for description in live_lab.SKILLS.values():
            assert description in requests, f"{runtime} did not list {description!r}"


@pytest.mark.parametrize("runtime", ["claude-code", "codex", "opencode", "gemini-cli"])
def test_the_cli_live_mode_on_the_real_cli(runtime: str, tmp_path: Path) -> None:
    """`skillprism trigger --live --yes` end to end: --runtime-cli is a wrapper (written here)
    that starts the pinned CLI beside the scripted server in a network namespace, with the
    profile's lab settings; every run of every prompt must read as the intended skill."""
    import json
    import os
    import stat
    import subprocess

    _cli_or_skip(runtime)
    spec = load_profile(runtime).live
    assert spec is not None
    home = tmp_path / "home"
    home.mkdir()
    for name, text in spec.lab.files:
        target = home / name.removeprefix("~/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    skills = live_lab.write_skills(tmp_path / "skills")
    # Every SKILL.md path of the throwaway workspace ends in <folder>/SKILL.md; the stream's
    # path rules match on that, so a relative path names the skill as well.
    skill_file = "alpha/SKILL.md"
    script = {"kind": "tool", "tool": spec.lab.tool}
    script["input"] = live_lab._fill(dict(spec.lab.tool_input), "alpha", skill_file)
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    argv = [
        *binlab.no_network_prefix(),
        sys.executable,
        str(LAB / "netns_run.py"),
        "--script",
        str(tmp_path / "script.json"),
    ]
    for key, value in spec.lab.env:
        argv += ["--env", f"{key}={value}"]
    argv += ["--", str(live_lab.cli_path(runtime)), *spec.lab.args]
    wrapper = tmp_path / "cli"
    wrapper.write_text(
        f"#!{sys.executable}\nimport os, sys\nargv = {argv!r} + sys.argv[1:]\n"
        "os.execv(argv[0], argv)\n",
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    env = binlab.isolated_env({"home": str(home), "env": {}})
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "skillprism",
            "trigger",
            str(skills[0].parent),
            "--profile",
            runtime,
            "--skill",
            "alpha",
            "--prompt",
            live_lab.PROMPT,
            "--prompt",
            "make me a workbook",
            "--live",
            "--yes",
            "--runs",
            "2",
            "--runtime-cli",
            str(wrapper),
            "--format",
            "json",
            "--timeout",
            "90",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=400,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(run.stdout)
    assert [p["rate"] for p in doc["prompts"]] == [1.0, 1.0], doc["prompts"]
    assert doc["release"], doc


@pytest.mark.parametrize("answer", ["intended", "other"])
def test_codex_default_model_in_code_mode(answer: str, tmp_path: Path) -> None:
    """Codex 0.169.0's default model gets one free-form tool, `exec` (JavaScript that calls the
    other tools); a shell command run from it still shows as a command_execution item, so the
    profile's rule reads it. The lab's provider without `-m` keeps the default model."""
    _cli_or_skip("codex")
    spec = load_profile("codex").live
    assert spec is not None
    provider = tuple(a for a in spec.lab.args[:4])  # -c model_provider=..., -c model_providers...
    js = 'const r = await tools.exec_command({cmd: "cat {skill_file}"}); text(JSON.stringify(r));'
    outcome, stream = live_lab.lab_run(
        "codex", answer, tmp_path, args=provider, tool=("exec", {"custom": js})
    )
    assert outcome.outcome == answer, (outcome, stream[-3:])
    requests = (tmp_path / "requests.jsonl").read_text(encoding="utf-8")
    assert '"additional_tools"' in requests and '"lab-model-1"' not in requests
