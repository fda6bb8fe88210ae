"""Reviewing a repository as installed: its plugins, collections and bare skills are found and
placed where an installer would put them, beside the runtime's existing skills; the verdicts,
clashes and listing are the runtime's after installing. Nothing is copied or written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillprism.app.workspace import Workspace
from skillprism.cli import main
from skillprism.core.installed import Install, find_units
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.watch import LiveCatalog


def skill(folder: Path, name: str | None = None, text: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    name = name or folder.name
    path = folder / "SKILL.md"
    path.write_text(
        text or f"---\nname: {name}\ndescription: The {name} skill. Use when testing.\n---\nDo.\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    skill(r / "skills" / "pdf")
    skill(r / "skills" / "docs" / "deep")  # a category folder inside a collection
    skill(r / "skills" / "pdf" / "examples" / "inner")  # a resource of pdf, not a unit
    plugin = r / "plugins" / "tools"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "toolbox"}', "utf-8")
    skill(plugin / "skills" / "lint")
    skill(r / "solo")
    return r


def test_units_are_found_and_classified(repo: Path) -> None:
    units = {
        (u.kind, u.name): sorted(Path(p).parent.name for p in u.skills)
        for u in find_units(str(repo))
    }
    assert units == {
        ("plugin", "toolbox"): ["lint"],
        ("collection", "skills"): ["deep", "pdf"],
        ("skill", "solo"): ["solo"],
    }


def test_as_installed_beside_the_runtimes_own_skills(repo: Path, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    mine = skill(home / ".claude" / "skills" / "pdf")  # the user already has a pdf skill
    profile = load_profile("claude-code")
    laid_out = build_catalog(profile, [str(repo)], project=str(project), home=str(home), env={})
    assert {s.status for s in laid_out.skills if "solo" not in s.path} >= {"not-discovered"}
    units = tuple(find_units(str(repo)))
    catalog = build_catalog(
        profile,
        None,
        project=str(project),
        home=str(home),
        env={},
        install=Install(units, "personal"),
    )
    by = {os.path.relpath(s.path, tmp_path): s for s in catalog.skills}
    # Installed into ~/.claude/skills beside the user's own pdf: one of them wins the clash.
    assert by["repo/skills/pdf/SKILL.md"].root.path == str(home / ".claude" / "skills")
    assert {by["repo/skills/pdf/SKILL.md"].status, by[os.path.relpath(mine, tmp_path)].status} == {
        "ok",
        "shadowed",
    }
    # a plugin's skills are plain skills there: Claude Code's plugin cache loads only what its
    # own install records
    lint = by["repo/plugins/tools/skills/lint/SKILL.md"]
    assert lint.qualified_name == "lint" and lint.root.path == str(home / ".claude" / "skills")
    assert (
        by["repo/solo/SKILL.md"].status == "ok"
        and by["repo/skills/docs/deep/SKILL.md"].status == "ok"
    )
    assert not (home / ".claude" / "skills" / "solo").exists()  # nothing was written


def test_a_runtime_without_that_kind_of_folder_says_so(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    catalog = build_catalog(
        load_profile("hermes-agent"),
        None,
        project=str(tmp_path / "proj"),
        home=str(tmp_path / "home"),
        env={},
        install=Install(tuple(find_units(str(repo))), "project"),
    )
    assert {d.code for d in catalog.diagnostics} == {"SP316"}
    assert not catalog.skills


def test_live_refresh_as_installed_equals_a_fresh_build(repo: Path, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    profile = load_profile("claude-code")
    live = LiveCatalog(
        profile, [str(repo)], project=str(project), home=str(home), env={}, install_into="project"
    )
    live.catalog  # noqa: B018
    changed = skill(repo / "skills" / "pdf", "pdf", "---\nname: pdf\n---\nno description\n")
    added = skill(repo / "skills" / "new-one")
    got = live.refresh([str(changed), str(added.parent)])
    fresh = build_catalog(
        profile,
        None,
        project=str(project),
        home=str(home),
        env={},
        install=Install(tuple(find_units(str(repo))), "project"),
    )
    assert [(s, s.frontmatter) for s in got.skills] == [(s, s.frontmatter) for s in fresh.skills]


def test_the_cli_and_the_workspace_take_the_choice(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "proj").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    rc = main(
        [
            "check",
            "--profile",
            "codex",
            "--project",
            str(tmp_path / "proj"),
            "--install-into",
            "project",
            "--format",
            "json",
            str(repo),
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {s["status"] for s in doc["results"][0]["skills"]} == {"ok"}
    workspace = Workspace(str(tmp_path / "proj"), [str(repo)], ["codex"], install_into="project")
    assert {s.path for s in workspace.catalog().skills} == {
        s["path"] for s in doc["results"][0]["skills"]
    }
