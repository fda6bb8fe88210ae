"""`skillprism disable` checked with each runtime's own loader in the conformance lab: after the
write the runtime no longer lists the skill, after `--undo` it does again. Codex 0.169.0 (its app
server reports the skill disabled by config, `codex debug prompt-input` leaves it out); Gemini CLI
(core 0.61.0: skills.disabled read as the CLI reads it, the core's setDisabledSkills);
Qwen Code 0.24.4 (the CLI's own loadSettings and Config.isSkillEnabled); OpenCode 1.18.33
(`debug agent build`: the agent's permission as OpenCode merges it, and its own
Permission.evaluate); Kilo Code 7.7.7 (the same, agent code); Mistral Vibe 3.0.3 (its own
configuration stack, disabled_skills); Factory Droid 0.225.2 (its resolver, disabledSkills);
Claude Code 2.1.330 (its listing predicate and listing cut out of the
binary). Needs the lab cache (conformance/install.py, install_bin.py, or SKILLPRISM_LAB_CACHE);
each runtime not there is skipped with the reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillprism import cli

LAB = Path(__file__).resolve().parent.parent / "conformance"


@pytest.fixture(scope="module")
def codex_driver() -> Path:
    sys.path.insert(0, str(LAB))
    try:
        import binlab
    finally:
        sys.path.remove(str(LAB))
    try:
        binlab.binary_path("codex")
    except binlab.LabError as err:
        pytest.skip(f"Codex's binary is not in the lab cache: {err}")
    return LAB / "drivers" / "codex.py"


def run_codex(driver: Path, home: Path, project: Path) -> dict:
    job = json.dumps({"home": str(home), "project": str(project), "cwd": str(project), "env": {}})
    proc = subprocess.run(
        [sys.executable, str(driver)], input=job, capture_output=True, text=True, timeout=300
    )
    result = json.loads(proc.stdout)
    assert result["skills"] is not None, result["warnings"]
    return result


def test_codex_no_longer_lists_a_skill_disabled_by_skillprism(
    codex_driver, tmp_path, monkeypatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for name in ("lab-alpha", "lab-beta"):
        d = home / ".codex" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill for the lab.\n---\n\nBody.\n"
        )
    config = home / ".codex" / "config.toml"
    config.write_text('# the user\'s own\nmodel = "gpt-5"\n')
    alpha = str(home / ".codex" / "skills" / "lab-alpha" / "SKILL.md")

    before = run_codex(codex_driver, home, project)
    assert "- lab-alpha: The lab-alpha skill" in before["tier1"]

    monkeypatch.setenv("HOME", str(home))  # the CLI reads the home the runtime reads
    args = ["disable", "lab-alpha", "--profile", "codex", "--project", str(project)]
    assert cli.main(args) == 0
    after = run_codex(codex_driver, home, project)
    assert "lab-alpha" not in after["tier1"]
    assert "- lab-beta: The lab-beta skill" in after["tier1"]
    assert f"{alpha}: loaded but disabled in config" in after["warnings"]
    assert config.read_text().startswith('# the user\'s own\nmodel = "gpt-5"\n')
    assert cli.main(["disable", "--undo"]) == 0
    again = run_codex(codex_driver, home, project)
    assert "- lab-alpha: The lab-alpha skill" in again["tier1"]
    assert config.read_text() == '# the user\'s own\nmodel = "gpt-5"\n'


# --- the other runtimes the lab runs (quick lab: node; binaries: OpenCode, Claude Code) --------


def _lab_module(name: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(LAB))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(LAB))


def _lay_out(home: Path, project: Path, root: str) -> None:
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for name in ("lab-alpha", "lab-beta"):
        d = home / root / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill for the lab.\n---\n\nBody.\n"
        )


def _driver(name: str):  # type: ignore[no-untyped-def]
    runtimes = _lab_module("runtimes")
    rt = runtimes.RUNTIMES[name]
    if not rt.installed():
        pytest.skip(f"{name} is not installed in the lab cache ({runtimes.cache_dir()})")
    if rt.kind == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    run = _lab_module("run")

    def listing(home: Path, project: Path, tmp: Path, **extra: object) -> dict:
        job = {
            "home": str(home),
            "project": str(project),
            "cwd": str(project),
            # HOME in the process's own environment too: oh-my-pi's pi-utils reads it at start
            "env": {"HOME": str(home), **rt.extra_job_env()},
            **extra,
        }
        result = run.run_driver(rt, [job], str(tmp))[0]
        assert result["skills"] is not None, result["warnings"]
        # a skill a runtime refuses to load because it is disabled (Factory Droid) is rejected
        result["warnings"] += [f"{r['path']}: {r['reason']}" for r in result.get("rejected") or []]
        return result

    return listing


# A Hermes Agent config.yaml as its setup leaves it: comments, quoting and nesting to keep
HERMES_CONFIG = """# Hermes Agent configuration
model:
  default: "anthropic/claude-sonnet-4"   # the one I use
  provider: 'openrouter'

skills:
  # skills I keep but do not want listed
  disabled:
    - old-notes
  external_dirs: []

toolsets: [hermes-cli]
"""

# (profile, the runtime's personal skill folder under HOME, the job's setting switch, the text a
# listed skill has in its tier 1, the warning its driver gives for a skill turned off)
NODE_AND_BUN = [
    ("gemini-cli", ".gemini/skills", {"settings": True}, "<name>lab-alpha</name>", "disabled by"),
    ("qwen-code", ".qwen/skills", {"settings": True}, "lab-alpha", "hidden by skills.disabled"),
    ("opencode", ".config/opencode/skills", {"agent": "build"}, "<name>lab-alpha</name>", "denied"),
    ("kilo-code", ".config/kilo/skills", {"agent": "code"}, "<name>lab-alpha</name>", "denied"),
    ("mistral-vibe", ".vibe/skills", {"settings": True}, "lab-alpha", "disabled_skills"),
    ("factory-droid", ".factory/skills", {}, "lab-alpha", '"kind": "ledger"'),
    # pi and Hermes Agent drop a disabled skill without a word (no warning to look for)
    ("pi", ".pi/agent/skills", {}, "<name>lab-alpha</name>", None),
    ("hermes-agent", ".hermes/skills", {}, "lab-alpha", None),
    ("oh-my-pi", ".omp/agent/skills", {"settings": True}, "lab-alpha", None),
    ("openclaw", ".openclaw/skills", {"settings": True}, "lab-alpha", None),
]


@pytest.mark.parametrize(("profile", "root", "switch", "listed", "warning"), NODE_AND_BUN)
def test_the_runtimes_own_loader_no_longer_lists_a_skill_disabled_by_skillprism(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    profile: str,
    root: str,
    switch: dict,
    listed: str,
    warning: str | None,
) -> None:
    listing = _driver(profile)
    home, project = tmp_path / "home", tmp_path / "proj"
    _lay_out(home, project, root)
    # the user's own settings, as the runtime leaves them (on start Qwen Code adds "$version" to
    # its settings file and OpenCode "$schema" to its config when they are missing)
    own = {
        "gemini-cli": (".gemini/settings.json", '{\n  "ui": {"theme": "GitHub"}\n}\n'),
        "qwen-code": (".qwen/settings.json", '{\n  "$version": 4,\n  "model": {"name": "q"}\n}\n'),
        "opencode": (
            ".config/opencode/opencode.json",
            '{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "lab/model"\n}\n',
        ),
        "kilo-code": (
            ".config/kilo/kilo.json",
            '{\n  "$schema": "https://app.kilo.ai/config.json",\n  "permission": {\n'
            '    "bash": "allow"\n  }\n}',
        ),
        "mistral-vibe": (".vibe/config.toml", "# mine\nauto_approve = false\n"),
        "factory-droid": (".factory/settings.json", '{\n  "model": "lab-model"\n}\n'),
        "pi": (".pi/agent/settings.json", '{\n  "theme": "dark"\n}\n'),
        "hermes-agent": (".hermes/config.yaml", HERMES_CONFIG),
        "oh-my-pi": (".omp/agent/config.yml", "# mine\ntheme:\n  dark: titanium\n"),
        "openclaw": (
            ".openclaw/openclaw.json",
            '{\n  // mine\n  "skills": {\n    "entries": {\n      "lab-beta": {"env": {"A": "1"}}\n'
            "    }\n  }\n}\n",
        ),
    }[profile]
    settings = home / own[0]
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(own[1])

    before = listing(home, project, tmp_path, **switch)
    assert settings.read_text() == own[1]  # the runtime left the file as it was
    assert listed in before["tier1"], before["tier1"]
    if warning is not None:
        assert not any("lab-alpha" in w and warning in w for w in before["warnings"])

    monkeypatch.setenv("HOME", str(home))  # the CLI writes the settings the runtime reads
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var in ("QWEN_HOME", "HERMES_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(var, raising=False)
    args = ["disable", "lab-alpha", "--profile", profile, "--project", str(project)]
    assert cli.main(args) == 0
    assert settings.read_text() != own[1]
    after = listing(home, project, tmp_path, **switch)
    assert listed not in after["tier1"], after["tier1"]
    assert "lab-beta" in after["tier1"]
    if warning is not None:
        assert any("lab-alpha" in w and warning in w for w in after["warnings"]), after["warnings"]

    assert cli.main(["disable", "--undo"]) == 0
    assert settings.read_text() == own[1]
    again = listing(home, project, tmp_path, **switch)
    assert listed in again["tier1"]


def test_copilot_clis_own_settings_and_filter_leave_out_a_skill_disabled_by_skillprism(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copilot CLI's addon lists no tier 1: the skills it keeps are compared, after its own
    userSettingsLoad and skillsIsDisabled (drivers/copilot-cli.mjs, `settings`)."""
    listing = _driver("copilot-cli")
    home, project = tmp_path / "home", tmp_path / "proj"
    _lay_out(home, project, ".copilot/skills")
    settings = home / ".copilot" / "settings.json"
    settings.write_text('{\n  "model": "gpt-5",\n  "disabledSkills": ["other"]\n}\n')
    original = settings.read_text()

    def names() -> tuple[list[str], list[str]]:
        got = listing(home, project, tmp_path, settings=True)
        off = [r["path"] for r in got["rejected"] if r["reason"] == "disabled by disabledSkills"]
        return sorted(s["name"] for s in got["skills"]), off

    assert names() == (["lab-alpha", "lab-beta"], [])
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    args = ["disable", "lab-alpha", "--profile", "copilot-cli", "--project", str(project)]
    assert cli.main(args) == 0
    alpha = str(home / ".copilot" / "skills" / "lab-alpha" / "SKILL.md")
    assert names() == (["lab-beta"], [alpha])
    assert cli.main(["disable", "--undo"]) == 0
    assert settings.read_text() == original
    assert names() == (["lab-alpha", "lab-beta"], [])


def test_claude_codes_own_listing_code_leaves_out_a_skill_disabled_by_skillprism(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's loader runs only in a model session: its listing function and its listing
    predicate (FSe/Aae, which leave out a skill whose override is 'off') are cut out of the
    2.1.330 binary and run under node, the override read from the settings file skillprism
    wrote (conformance/advisor_lab.py ClaudeListing)."""
    binlab = _lab_module("binlab")
    try:
        binlab.binary_path("claude-code")
    except binlab.LabError as err:
        pytest.skip(f"Claude Code's binary is not in the lab cache: {err}")
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the lab runs Claude Code's code under node)")
    advisor_lab = _lab_module("advisor_lab")
    claude = advisor_lab.ClaudeListing()
    home, project = tmp_path / "home", tmp_path / "proj"
    _lay_out(home, project, ".claude/skills")
    settings = home / ".claude" / "settings.json"
    settings.write_text('{\n  "model": "opus"\n}\n')

    def text() -> str:
        cmds, overrides = advisor_lab.claude_inputs(home, project)
        return claude.listing(cmds, 200_000, overrides)

    assert "- lab-alpha: The lab-alpha skill for the lab." in text()
    monkeypatch.setenv("HOME", str(home))
    args = ["disable", "lab-alpha", "--profile", "claude-code", "--project", str(project)]
    assert cli.main(args) == 0
    after = text()
    assert "lab-alpha" not in after and "- lab-beta: The lab-beta skill for the lab." in after
    assert cli.main(["disable", "--undo"]) == 0
    assert settings.read_text() == '{\n  "model": "opus"\n}\n'
    assert "- lab-alpha: The lab-alpha skill for the lab." in text()
