"""CI-native output: SARIF with URIs relative to the project (validated against SARIF 2.1.0),
GitHub Actions annotations, --quiet, paths printed as the user gave them, a category on every JSON
finding, and a pre-commit hook that runs `skillprism check` (tested with pre-commit itself)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from skillprism.cli import main

REPO = Path(__file__).resolve().parents[1]
SARIF_SCHEMA = json.loads((REPO / "tests/data/sarif-schema-2.1.0.json").read_text("utf-8"))


def project(tmp_path: Path) -> Path:
    skills = tmp_path / "skills"
    for name, extra in (("good", ""), ("Bad_Name", ""), ("odd", "foo: 1\n")):
        d = skills / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does it. Use when testing.\n{extra}---\nBody, 100%\n",
            encoding="utf-8",
        )
    return skills


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str
) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    rc = main(["check", *args])
    return rc, capsys.readouterr().out


def test_sarif_uris_are_relative_to_the_project_and_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path)
    rc, out = run(capsys, monkeypatch, tmp_path, "skills", "--format", "sarif")
    assert rc == 1
    doc = json.loads(out)
    jsonschema.validators.validator_for(SARIF_SCHEMA)(SARIF_SCHEMA).validate(doc)
    run0 = doc["runs"][0]
    assert run0["originalUriBaseIds"]["PROJECTROOT"]["uri"] == tmp_path.as_uri() + "/"
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run0["results"]]
    assert locations and all(loc["uriBaseId"] == "PROJECTROOT" for loc in locations)
    assert {loc["uri"] for loc in locations} >= {"skills/Bad_Name/SKILL.md", "skills/odd/SKILL.md"}


def test_sarif_security_rules_carry_their_severity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillprism.core.codes import CODES
    from skillprism.formats.sarif import _rule

    security = next(c for c, info in CODES.items() if info.category == "security")
    rule = _rule(security)
    assert rule["properties"]["tags"] == ["security"]
    assert float(rule["properties"]["security-severity"]) == CODES[security].security_severity
    assert "security-severity" not in _rule("SP216")["properties"]


def test_github_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path)
    rc, out = run(capsys, monkeypatch, tmp_path, str(tmp_path / "skills"), "--format", "github")
    assert rc == 1
    lines = out.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    unknown = next(line for line in lines if "SP216" in line)
    assert unknown.startswith(
        "::error file=skills/odd/SKILL.md,line=4,col=1,title=SP216 (agentskills)::"
    )
    assert "%0AFix: " in unknown  # the effect and the fix on lines of their own, escaped


def test_quiet_and_relative_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path)
    rc, out = run(capsys, monkeypatch, tmp_path, "skills", "--quiet")
    assert rc == 1
    lines = out.splitlines()
    assert lines and all(line.startswith("skills/") for line in lines)  # as given: relative
    assert not any(line.startswith(("    ", "agentskills:")) for line in lines)
    rc, out = run(capsys, monkeypatch, tmp_path, str(tmp_path / "skills"), "-q")
    assert all(line.startswith(str(tmp_path)) for line in out.splitlines())


def test_every_json_finding_has_its_category(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path)
    _rc, out = run(capsys, monkeypatch, tmp_path, "skills", "--format", "json")
    result = json.loads(out)["results"][0]
    findings = [d for s in result["skills"] for d in s["diagnostics"]]
    assert findings and {d["category"] for d in findings} <= {
        "parse", "frontmatter", "discovery", "budget", "resources", "style", "security",
    }  # fmt: skip
    assert next(d for d in findings if d["code"] == "SP216")["category"] == "frontmatter"


def test_pre_commit_hook_runs_check(tmp_path: Path) -> None:
    """A repository of skills using this repository's hook, run by pre-commit itself (offline:
    the hook is `language: system`, so pre-commit installs nothing)."""
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not os.path.exists(pre_commit):
        pytest.skip("pre-commit is not installed (it is in the test extras)")
    hooks = tmp_path / "hooks"
    shutil.copytree(REPO, hooks, ignore=shutil.ignore_patterns(".venv", ".git", "build", "dist", "conformance", "*.pyc"), dirs_exist_ok=True)  # fmt: skip
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env["PRE_COMMIT_HOME"] = str(tmp_path / "cache")

    def git(cwd: Path, *args: str) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)

    git(hooks, "init", "-q")
    git(hooks, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(hooks, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "hooks")
    repo = tmp_path / "repo"
    project(repo)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hooks}\n  rev: HEAD\n  hooks:\n  - id: skillprism-check-system\n",
        encoding="utf-8",
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    done = subprocess.run(
        [pre_commit, "run", "--all-files"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert done.returncode == 1, done.stdout + done.stderr  # the skills have errors
    assert "SP216" in done.stdout and "Bad_Name" in done.stdout
    # Fixed skills pass.
    shutil.rmtree(repo / "skills" / "Bad_Name")
    (repo / "skills" / "odd" / "SKILL.md").write_text(
        "---\nname: odd\ndescription: Does it. Use when testing.\n---\nBody\n", encoding="utf-8"
    )
    git(repo, "add", "-A")
    done = subprocess.run(
        [pre_commit, "run", "--all-files"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
