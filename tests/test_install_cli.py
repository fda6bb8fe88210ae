"""`skillprism install`, `update` and `installed`: text and JSON, exit codes, --dry-run writes
nothing, --undo takes back the last install or update."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillprism import cli


def skill(folder: Path, name: str, description: str = "") -> Path:
    d = folder / name
    d.mkdir(parents=True, exist_ok=True)
    desc = description or f"The {name} skill, for tests."
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n\nBody.\n")
    return d


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    skill(repo / "skills", "alpha")
    skill(repo / "skills", "beta")
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    return repo


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_install_dry_run_then_install_then_installed_then_undo(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Path(os.environ["HOME"])
    project = str(tmp_path / "proj")
    base = ["install", str(repo), "--profile", "claude-code", "--profile", "gemini-cli"]
    code, out, _ = run(capsys, *base, "--scope", "project", "--project", project, "--dry-run")
    assert code == 0 and "2 of 2 skill(s) installed" in out and "4 folder(s) to write" in out
    assert not (tmp_path / "proj" / ".claude").exists()
    code, out, err = run(capsys, *base, "--scope", "personal", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["applied"] and len(data["actions"]) == 4
    assert (home / ".gemini" / "skills" / "beta" / "SKILL.md").is_file()
    assert "install --undo" in err
    code, out, _ = run(capsys, "installed")
    assert code == 0 and out.count("up-to-date") == 4
    (repo / "skills" / "alpha" / "SKILL.md").write_text("---\nname: alpha\n---\nnew\n")
    code, out, _ = run(capsys, "installed", "--profile", "gemini-cli", "--format", "json")
    states = {Path(s["target"]).name: s["state"] for s in json.loads(out)["installed"]}
    assert code == 1 and states == {"alpha": "stale", "beta": "up-to-date"}
    code, out, _ = run(capsys, "update", "--dry-run")
    assert code == 1 and "2 folder(s) to write" in out
    assert "new" not in (home / ".claude" / "skills" / "alpha" / "SKILL.md").read_text()
    code, out, _ = run(capsys, "update")
    assert code == 0 and (home / ".claude" / "skills" / "alpha" / "SKILL.md").read_text().endswith(
        "new\n"
    )
    code, out, _ = run(capsys, "update")
    assert code == 0 and "nothing to update" in out
    assert run(capsys, "update", "--undo")[0] == 0  # the update, taken back
    assert "new" not in (home / ".claude" / "skills" / "alpha" / "SKILL.md").read_text()
    assert run(capsys, "install", "--undo")[0] == 0  # then the install
    assert not (home / ".claude").exists() and not (home / ".gemini").exists()
    code, _, err = run(capsys, "install", "--undo")
    assert code == 2 and "nothing to undo" in err


def test_install_exit_codes_for_a_clash_and_bad_arguments(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Path(os.environ["HOME"])
    skill(home / ".agents" / "skills", "alpha", "Mine.")
    code, out, _ = run(capsys, "install", str(repo), "--profile", "codex", "--scope", "personal")
    assert code == 1 and "clash (already at the target): alpha" in out and "Mine." in out
    assert (home / ".agents" / "skills" / "beta").is_dir()
    assert "Mine." in (home / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    code, _, err = run(capsys, "install", str(repo), "--profile", "codex")
    assert code == 2 and "--scope" in err
    code, _, err = run(
        capsys, "install", str(repo / "nope"), "--profile", "codex", "--scope", "project"
    )
    assert code == 2 and "not a folder" in err
