"""Where will this skill be found: core.placement and `skillprism where`. Trees live under tmp
folders; HOME points at a tmp home (conftest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillprism.core.placement import PlacementError, render_text, where
from skillprism.core.profiles import available_profiles, load_profile


def write_skill(
    folder: Path, name: str | None = None, description: str = "Does X. Use for X."
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    lines += [f"description: {description}", "---", "# Body", ""]
    (folder / "SKILL.md").write_text("\n".join(lines), encoding="utf-8")
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "repo"
    home = tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    return project, home


def by_profile(report, name):
    return next(p for p in report.profiles if p.profile == name)


def test_found_where_it_is_and_every_root_listed(tree) -> None:
    project, home = tree
    skill = write_skill(project / ".claude" / "skills" / "pdf-tool", "pdf-tool")
    profiles = [load_profile(n) for n in ("claude-code", "cline", "hermes-agent")]
    report = where(str(skill), profiles, project=str(project), home=str(home), env={})
    claude = by_profile(report, "claude-code")
    assert claude.found and claude.found_here == "ok"
    here = [p for p in claude.placements if p.here]
    assert [p.path for p in here] == [str(project / ".claude/skills/pdf-tool/SKILL.md")]
    assert here[0].pattern == "<project>/.claude/skills/<name>/SKILL.md"
    assert here[0].kind == "project" and "parent folder" in " ".join(here[0].notes)
    personal = [p.path for p in claude.placements if p.kind == "personal"]
    assert str(home / ".claude/skills/pdf-tool/SKILL.md") in personal
    # Cline does not read .claude/skills: not found, and its folders are listed.
    cline = by_profile(report, "cline")
    assert not cline.found and cline.found_here == "not-discovered"
    assert not any(p.here for p in cline.placements)
    # Hermes reads no project folder at all.
    hermes = by_profile(report, "hermes-agent")
    assert [p.kind for p in hermes.placements] == ["personal"]
    assert hermes.placements[0].path == str(home / ".hermes/skills/pdf-tool/SKILL.md")


def test_ranks_follow_the_tie_rule(tree) -> None:
    project, home = tree
    skill = write_skill(project / "elsewhere" / "x", "x")
    report = where(
        str(skill),
        [load_profile("cline"), load_profile("copilot-cli")],
        project=str(project),
        home=str(home),
        env={},
    )
    cline = by_profile(report, "cline")  # last wins: the last root loaded ranks first
    assert cline.placements[0].rank == 1
    assert cline.placements[0].path == str(home / ".agents/skills/x/SKILL.md")
    copilot = by_profile(report, "copilot-cli")  # first wins: .github first
    assert copilot.placements[0].path == str(project / ".github/skills/x/SKILL.md")
    assert not any(p.path.startswith(str(home / ".claude")) for p in copilot.placements)


def test_strict_runtimes_need_the_folder_named_after_the_skill(tree) -> None:
    project, home = tree
    skill = write_skill(project / ".roo" / "skills" / "wrong-folder", "right-name")
    report = where(
        str(skill),
        [load_profile("roo-code"), load_profile("copilot-cli")],
        project=str(project),
        home=str(home),
        env={},
    )
    roo = by_profile(report, "roo-code")
    assert roo.folder == "right-name" and "folder differs" in roo.folder_rule
    assert roo.found_here == "skipped"
    assert all(p.path.endswith("/right-name/SKILL.md") for p in roo.placements)
    assert any(p.here for p in roo.placements)  # it is in a Roo root, just refused
    copilot = by_profile(report, "copilot-cli")
    assert copilot.folder == "wrong-folder"  # the name comes from the frontmatter


def test_roo_code_mode_is_picked_by_the_environment(tree) -> None:
    project, home = tree
    skill = write_skill(project / "s" / "x", "x")
    env = {"SKILLPRISM_ROO_MODE": "architect"}
    report = where(
        str(skill), [load_profile("roo-code")], project=str(project), home=str(home), env=env
    )
    paths = [p.path for p in report.profiles[0].placements]
    assert paths[0] == str(project / ".roo/skills-architect/x/SKILL.md")


def test_every_profile_answers(tree) -> None:
    project, home = tree
    skill = write_skill(project / ".agents" / "skills" / "shared", "shared")
    profiles = [load_profile(n) for n in available_profiles()]
    report = where(str(skill), profiles, project=str(project), home=str(home), env={})
    assert len(report.profiles) == len(profiles) >= 26
    for p in report.profiles:
        assert p.placements, p.profile
        assert all(pl.path.endswith(os.sep + p.file_name) for pl in p.placements)
    assert by_profile(report, "agentskills").found
    text = render_text(report)
    assert "personal scope" in text and "<- here" in text
    json.dumps(report.to_dict())


def test_not_a_skill_folder(tmp_path: Path) -> None:
    with pytest.raises(PlacementError):
        where(str(tmp_path), [load_profile("agentskills")], project=str(tmp_path))


def _cli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "skillprism", "where", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
    )


def test_cli_where_text_json_and_exit_codes(tree) -> None:
    project, home = tree
    skill = write_skill(project / ".claude" / "skills" / "demo", "demo")
    out = _cli(
        str(skill), "--profile", "claude-code", "--project", str(project), cwd=project, home=home
    )
    assert out.returncode == 0, out.stderr
    assert "ok Claude Code  finds it here (ok)" in out.stdout  # one line per runtime
    out = _cli(
        str(skill),
        "--profile",
        "claude-code",
        "--project",
        str(project),
        "--details",
        cwd=project,
        home=home,
    )
    assert "found here" in out.stdout and "<project>/.claude/skills/<name>/SKILL.md" in out.stdout
    out = _cli(
        str(skill),
        "--profile",
        "claude-code",
        "--profile",
        "cline",
        "--format",
        "json",
        cwd=project,
        home=home,
    )
    assert out.returncode == 1  # Cline does not find it here
    doc = json.loads(out.stdout)
    assert [p["profile"] for p in doc["profiles"]] == ["claude-code", "cline"]
    assert [p["found"] for p in doc["profiles"]] == [True, False]
    assert doc["profiles"][1]["placements"][0]["path"] == str(home / ".agents/skills/demo/SKILL.md")
    bad = _cli(str(project / ".git"), cwd=project, home=home)
    assert bad.returncode == 2 and "not a skill folder" in bad.stderr
    unknown = _cli(str(skill), "--profile", "no-such-runtime", cwd=project, home=home)
    assert unknown.returncode == 2


def test_where_puts_real_runtimes_first_and_sums_up(tree) -> None:
    """Issue: 656 lines for one skill, the systems modelled from a specification first."""
    project, home = tree
    skill = write_skill(project / ".claude" / "skills" / "demo", "demo")
    out = _cli(str(skill), "--project", str(project), cwd=project, home=home)
    lines = out.stdout.splitlines()
    assert len(lines) < 40
    runtimes = [line for line in lines if line.startswith(("  ok ", "  -- "))]
    titles = [line[5:].split("  ")[0] for line in runtimes]
    seeds = ("autopoiesis", "Pegasus", "Three-tier context provider", "Workspace skill pipeline V1")
    assert all(t in titles for t in seeds)
    assert min(titles.index(t) for t in seeds) > titles.index("Claude Code")
    assert "finds it here" in runtimes[titles.index("Claude Code")]
