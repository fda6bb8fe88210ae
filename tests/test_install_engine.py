"""The engine's install kinds (plan_install, apply_install, undo_install): the window gets the
plan as text and counts, the engine keeps the plan itself; nothing is written before apply."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from engine_helpers import open_view

from skillprism.app.workspace import WorkspaceError
from skillprism.engine.views import InstallPlanView


def test_plan_apply_and_undo_an_install_through_the_engine(tmp_path: Path) -> None:
    repo = tmp_path / "repo" / "skills"
    for name in ("alpha", "beta"):
        (repo / name).mkdir(parents=True)
        (repo / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}.\n---\n")
    home = Path(os.environ["HOME"])
    mine = home / ".agents" / "skills" / "beta"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: beta\ndescription: Mine.\n---\n")
    engine, _view = open_view([str(repo)], "codex", str(tmp_path))
    view: InstallPlanView = engine.handle(
        "plan_install", str(tmp_path / "repo"), ["codex", "gemini-cli"], "personal"
    )
    # Codex and Gemini CLI both read ~/.agents/skills: one copy there serves both
    assert (view.todo, view.blocked) == (1, 1) and view.clashes >= 1
    assert "Mine." in view.text and "clash (already at the target): beta" in view.text
    assert not (home / ".agents" / "skills" / "alpha").exists()  # planned, not written
    done = engine.handle("apply_install", view.plan_id)
    assert sorted(done.paths) == sorted(view.targets)
    assert (home / ".agents" / "skills" / "alpha" / "SKILL.md").is_file()
    assert not (home / ".gemini").exists()
    assert "Mine." in (mine / "SKILL.md").read_text()
    with pytest.raises(WorkspaceError, match="no longer planned"):
        engine.handle("apply_install", view.plan_id)
    undone = engine.handle("undo_install")
    assert "1 folder(s) removed" in undone.summary
    assert not (home / ".agents" / "skills" / "alpha").exists() and (mine / "SKILL.md").is_file()
    assert engine.handle("undo_install").paths == ()
