"""What a folder is laid out as (core/layout.py): the runtime whose own skill folders a project
uses, the units of a repository an installer would place, and the hint a check that found
nothing gives. Fixture trees only; nothing is installed."""

from __future__ import annotations

from pathlib import Path

from skillprism.core import layout

SKILL = "---\nname: {name}\ndescription: Does {name}. Use when asked.\n---\nBody.\n"


def _skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name), encoding="utf-8")
    return folder


def test_a_project_with_claude_folders_is_laid_out_for_claude_code(tmp_path: Path) -> None:
    _skill(tmp_path / "proj" / ".claude" / "skills" / "alpha", "alpha")
    name, why = layout.layout_runtime([str(tmp_path / "proj")])
    assert name == "claude-code"
    assert "Claude Code" in why and ".claude" in why


def test_a_plain_folder_is_nobodys_layout(tmp_path: Path) -> None:
    _skill(tmp_path / "set" / "alpha", "alpha")
    assert layout.layout_runtime([str(tmp_path / "set")]) == ("", "")
    assert layout.layout_runtime([str(tmp_path / "missing")]) == ("", "")


def test_a_skills_folder_as_it_is_has_no_units_to_install(tmp_path: Path) -> None:
    _skill(tmp_path / "set" / "alpha", "alpha")
    _skill(tmp_path / "set" / "beta", "beta")
    assert layout.installable_units(str(tmp_path / "set")) == []
    # a skill folder itself is not a repository either
    assert layout.installable_units(str(tmp_path / "set" / "alpha")) == []


def test_a_repository_with_nested_skills_has_units(tmp_path: Path) -> None:
    _skill(tmp_path / "repo" / "tools" / "deep" / "delta", "delta")
    _skill(tmp_path / "repo" / "other" / "gamma", "gamma")
    units = layout.installable_units(str(tmp_path / "repo"))
    assert {Path(u.path).name for u in units} >= {"delta", "gamma"}


def test_an_unreadable_folder_gives_no_units(tmp_path: Path) -> None:
    assert layout.installable_units(str(tmp_path / "missing")) == []


def test_the_hint_names_the_runtime_whose_folders_are_there(tmp_path: Path) -> None:
    _skill(tmp_path / "proj" / ".claude" / "skills" / "alpha", "alpha")
    hint = layout.nothing_found_hint([str(tmp_path / "proj")], "agentskills")
    assert hint.endswith("try --profile claude-code")
    # under that runtime already, the same layout is no hint
    assert "try --profile" not in layout.nothing_found_hint([str(tmp_path / "proj")], "claude-code")


def test_the_hint_for_a_repository_is_the_installed_view(tmp_path: Path) -> None:
    _skill(tmp_path / "repo" / "a" / "b" / "c" / "delta", "delta")
    hint = layout.nothing_found_hint([str(tmp_path / "repo")], "claude-code")
    assert "installable unit(s)" in hint and "--install-into project" in hint


def test_no_hint_when_nothing_comes_to_mind(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert layout.nothing_found_hint([str(tmp_path / "empty"), str(tmp_path / "gone")], "pi") == ""
