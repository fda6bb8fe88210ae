"""`skillprism disable` checked with Codex 0.169.0's own loader in the conformance lab: after the
write, the app server reports the skill as disabled by config and the model-visible listing
(`codex debug prompt-input`) no longer has it; after `--undo` it is listed again. Needs the pinned
binary (conformance/install_bin.py, or SKILLPRISM_LAB_CACHE); skipped with the reason otherwise."""

from __future__ import annotations

import json
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
