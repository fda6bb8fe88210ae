"""Installing skills (core/install.py, core/install_state.py): the plan, clashes, apply, undo,
stale and update, refusals, bounds, and that nothing is written without the call. No runtime
runs here (tests/test_install_lab.py runs the runtimes' own loaders)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.core import install_state
from skillprism.core.install import (
    InstallError,
    apply_install,
    plan_install,
    undo_install,
)
from skillprism.core.install_files import TreeError, list_tree
from skillprism.core.installed import read_paths, shared_targets
from skillprism.core.profiles import load_profile

FIVE = ("claude-code", "codex", "gemini-cli", "opencode", "copilot-cli")


def skill(folder: Path, name: str, description: str = "", body: str = "Body.\n") -> Path:
    d = folder / name
    d.mkdir(parents=True, exist_ok=True)
    desc = description or f"The {name} skill, for tests."
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n\n{body}")
    return d


def snapshot(*roots: Path) -> dict[str, str]:
    """Every entry below `roots` with its kind and content: a change anywhere shows."""
    out: dict[str, str] = {}
    for root in roots:
        for cur, dirs, files in os.walk(root):
            for name in dirs + files:
                p = os.path.join(cur, name)
                if os.path.islink(p):
                    out[p] = "link:" + os.readlink(p)
                elif os.path.isfile(p):
                    out[p] = Path(p).read_bytes().hex()
                else:
                    out[p] = "dir"
    return out


@pytest.fixture()
def env(tmp_path: Path) -> dict:
    home, project = Path(os.environ["HOME"]), tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    return {"home": str(home), "project": str(project), "env": {"HOME": str(home)}}


def plan(source: Path, env: dict, profiles=FIVE, scope="personal", **kw):
    return plan_install(
        str(source),
        [load_profile(p) for p in profiles],
        scope,
        project=env["project"],
        home=env["home"],
        env=env["env"],
        **kw,
    )


def copies_read(p, env: dict, name: str) -> dict[str, int]:
    """How many copies of skill `name` each runtime of plan `p` reads after the install."""
    targets = [a.target for a in p.actions if os.path.basename(a.target) == name]
    out = {}
    for profile in {pl.profile for pl in p.placed}:
        reads = read_paths(load_profile(profile), env["project"], env["home"], env["env"])
        out[profile] = sum(os.path.dirname(t) in reads for t in targets)
    return out


def test_plan_gives_each_runtime_one_copy_sharing_folders_runtimes_read_together(
    tmp_path: Path, env: dict
) -> None:
    repo = tmp_path / "repo"
    skill(repo / "skills", "alpha")
    skill(repo / "skills", "beta")
    p = plan(repo, env)
    home = env["home"]
    targets = {a.target: set(a.profiles) for a in p.actions}
    # Claude Code reads ~/.claude/skills only; OpenCode reads it too: one copy serves both.
    assert targets[f"{home}/.claude/skills/alpha"] == {"claude-code", "opencode"}
    # OpenCode also reads ~/.agents/skills, so a copy there would be its second: Codex gets its
    # legacy ~/.codex/skills (said in a note), Gemini CLI and Copilot CLI their own folders.
    assert targets[f"{home}/.codex/skills/alpha"] == {"codex"}
    assert targets[f"{home}/.gemini/skills/alpha"] == {"gemini-cli"}
    assert targets[f"{home}/.copilot/skills/alpha"] == {"copilot-cli"}
    assert len(p.actions) == 8 and not p.blocked
    assert {pl.status for pl in p.placed} == {"ok"}
    assert copies_read(p, env, "alpha") == dict.fromkeys(FIVE, 1)
    codex = next(pl for pl in p.placed if pl.profile == "codex")
    assert any("calls this folder legacy" in n for n in codex.notes)
    project_plan = plan(repo, env, scope="project")
    assert copies_read(project_plan, env, "beta") == dict.fromkeys(FIVE, 1)
    shared = {a.target: set(a.profiles) for a in project_plan.actions}
    assert shared[f"{env['project']}/.claude/skills/beta"] == {
        "claude-code",
        "opencode",
        "copilot-cli",
    }


@pytest.mark.parametrize("scope", ["personal", "project"])
def test_runtimes_reading_one_shared_folder_get_one_copy_there(
    tmp_path: Path, env: dict, scope: str
) -> None:
    repo = tmp_path / "repo"
    skill(repo, "alpha")
    trio = ("codex", "gemini-cli", "copilot-cli")
    p = plan(repo, env, profiles=trio, scope=scope)
    base = env["home"] if scope == "personal" else env["project"]
    ((target, who),) = [(a.target, set(a.profiles)) for a in p.actions]
    assert target == f"{base}/.agents/skills/alpha" and who == set(trio)
    assert copies_read(p, env, "alpha") == dict.fromkeys(trio, 1)
    # alone, Codex gets the folder it asks for, not the one it calls deprecated
    (alone,) = plan(repo, env, profiles=("codex",)).actions
    assert alone.target == f"{env['home']}/.agents/skills/alpha"


ALL_PROFILES = sorted(
    p.stem for p in (Path(__file__).parent.parent / "resources/profiles").glob("*.toml")
)


@settings(max_examples=60, deadline=None)
@given(
    chosen=st.lists(st.sampled_from(ALL_PROFILES), min_size=1, max_size=8, unique=True),
    scope=st.sampled_from(["personal", "project"]),
)
def test_every_chosen_runtime_reads_exactly_one_copy_or_is_told(chosen, scope) -> None:
    profiles = [load_profile(n) for n in chosen]
    home, project = "/h", "/h/work/proj"
    got = shared_targets(profiles, scope, project, home, {})
    for profile in profiles:
        if profile.name not in got:
            continue  # no folder of this scope: the planner names it homeless
        reads = read_paths(profile, project, home, {})
        seen = {t.path for t in got.values() if t.path in reads}
        mine = got[profile.name]
        assert mine.path in seen
        told = any(profile.name in t.twice for t in got.values())
        assert len(seen) == 1 or told, (profile.name, seen)


def test_a_plan_writes_nothing(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    skill(repo, "alpha")
    skill(Path(env["home"]) / ".claude" / "skills", "alpha", "Mine, already here.")
    before = snapshot(tmp_path, Path(env["home"]))
    p = plan(repo, env, replace=True)
    assert p.todo  # there is something to do...
    assert snapshot(tmp_path, Path(env["home"])) == before  # ...and nothing was done


def test_a_skill_at_the_target_is_shown_beside_and_never_replaced_unasked(
    tmp_path: Path, env: dict
) -> None:
    repo = tmp_path / "repo"
    skill(repo, "alpha", "The new alpha.")
    mine = skill(Path(env["home"]) / ".claude" / "skills", "alpha", "My own alpha.")
    p = plan(repo, env, profiles=("claude-code",))
    (placed,) = p.placed
    assert not placed.installed and "not replaced" in placed.blocked
    (clash,) = placed.clashes
    assert clash.where == "target"
    assert clash.path == str(mine / "SKILL.md") and clash.description == "My own alpha."
    assert clash.new_description == "The new alpha."
    assert clash.picks == str(mine / "SKILL.md")  # the runtime keeps using the one there
    assert apply_install(p).installed == ()
    assert (mine / "SKILL.md").read_text().count("My own alpha.") == 1


def test_replace_moves_the_old_skill_to_the_backups_and_undo_puts_it_back(
    tmp_path: Path, env: dict
) -> None:
    repo = tmp_path / "repo"
    skill(repo, "alpha", "The new alpha.")
    mine = skill(Path(env["home"]) / ".claude" / "skills", "alpha", "My own alpha.")
    (mine / "notes.txt").write_text("keep me")
    p = plan(repo, env, profiles=("claude-code",), replace=True)
    (placed,) = p.placed
    assert placed.installed and placed.clashes[0].picks == str(mine / "SKILL.md")
    done = apply_install(p)
    assert "The new alpha." in (mine / "SKILL.md").read_text()
    assert not (mine / "notes.txt").exists()
    ((target, backup),) = done.replaced
    assert target == str(mine) and Path(backup, "notes.txt").read_text() == "keep me"
    assert Path(backup).is_relative_to(Path(os.environ["XDG_STATE_HOME"]))
    undone = undo_install()
    assert undone is not None and undone.restored == (str(mine),)
    assert "My own alpha." in (mine / "SKILL.md").read_text()
    assert (mine / "notes.txt").read_text() == "keep me"
    assert install_state.read_manifest() == {}


def test_a_same_name_skill_elsewhere_is_shown_with_the_runtimes_pick(
    tmp_path: Path, env: dict
) -> None:
    repo = tmp_path / "repo"
    skill(repo, "alpha", "The new alpha.")
    home = Path(env["home"])
    personal = skill(home / ".claude" / "skills", "alpha", "Personal alpha.")
    p = plan(repo, env, profiles=("claude-code", "codex"), scope="project")
    claude = next(pl for pl in p.placed if pl.profile == "claude-code")
    (clash,) = claude.clashes
    # Claude Code: personal beats project, so the installed copy is shadowed.
    assert clash.where == "root" and clash.path == str(personal / "SKILL.md")
    assert clash.picks == str(personal / "SKILL.md") and claude.status == "shadowed"
    assert claude.installed  # nothing is overwritten: it is installed, and the clash shown
    codex_home = skill(home / ".codex" / "skills", "alpha", "Codex alpha.")
    p = plan(repo, env, profiles=("codex",), scope="project")
    (clash,) = p.placed[0].clashes
    assert clash.path == str(codex_home / "SKILL.md") and clash.picks == ""  # keep-both


def test_two_skills_of_one_install_with_one_folder_name(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    skill(repo / "skills" / ".a", "docs", "First docs.")
    skill(repo / "skills" / ".b", "docs", "Second docs.")
    p = plan(repo, env, profiles=("codex",))
    blocked = [pl for pl in p.placed if not pl.installed]
    assert len(blocked) == 1 and blocked[0].clashes[0].where == "install"
    assert "same folder name" in blocked[0].clashes[0].note
    assert len(p.todo) == 1


def test_apply_then_undo_removes_exactly_what_was_installed(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    a = skill(repo / "skills", "alpha")
    (a / "scripts").mkdir()
    (a / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(a / "scripts" / "run.sh", 0o755)
    (a / "ref.md").symlink_to("scripts/run.sh")  # inside the skill: kept as a link
    (a / "out.md").symlink_to("/etc/passwd")  # leads out: not copied
    before = snapshot(Path(env["home"]))
    p = plan(repo, env)
    assert ("out.md", "a link leading out of the skill (/etc/passwd)") in p.actions[0].left_out
    done = apply_install(p)
    t = Path(env["home"]) / ".claude" / "skills" / "alpha"
    assert (t / "scripts" / "run.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert os.stat(t / "scripts" / "run.sh").st_mode & 0o111
    assert os.readlink(t / "ref.md") == "scripts/run.sh" and not (t / "out.md").exists()
    assert not [n for n in os.listdir(t.parent) if n.startswith(".skillprism")]
    assert len(done.installed) == 4 and len(install_state.read_manifest()) == 4
    assert undo_install() is not None
    state = os.path.dirname(os.path.dirname(os.environ["XDG_STATE_HOME"]))  # ~/.local

    def mine(snap: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in snap.items() if not k.startswith(state)}

    assert mine(snapshot(Path(env["home"]))) == mine(before)
    assert not Path(env["home"], ".agents").exists()  # folders it created are gone again
    assert install_state.read_manifest() == {}
    assert undo_install() is None


def test_apply_refuses_a_target_that_appeared_or_a_source_that_changed(
    tmp_path: Path, env: dict
) -> None:
    repo = tmp_path / "repo"
    a = skill(repo, "alpha")
    p = plan(repo, env, profiles=("codex",))
    skill(Path(env["home"]) / ".agents" / "skills", "alpha", "Appeared meanwhile.")
    with pytest.raises(InstallError, match="appeared since"):
        apply_install(p)
    assert (
        "Appeared meanwhile."
        in (Path(env["home"]) / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    )
    p = plan(repo, env, profiles=("gemini-cli",))
    (a / "extra.md").write_text("new")
    with pytest.raises(InstallError, match="changed since"):
        apply_install(p)
    assert not (Path(env["home"]) / ".gemini").exists()


def test_undo_refuses_an_installed_copy_edited_since(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    skill(repo, "alpha")
    apply_install(plan(repo, env, profiles=("codex",)))
    installed = Path(env["home"]) / ".agents" / "skills" / "alpha" / "SKILL.md"
    installed.write_text(installed.read_text() + "my edit\n")
    with pytest.raises(InstallError, match="changed since it was installed"):
        undo_install()
    assert installed.read_text().endswith("my edit\n")


def test_link_mode_and_a_runtime_that_does_not_follow_links(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    a = skill(repo, "alpha")
    p = plan(repo, env, profiles=("codex", "continue"), mode="link")
    cont = next(pl for pl in p.placed if pl.profile == "continue")
    assert cont.status == "not-discovered" and "does not follow a symlinked" in cont.reason
    apply_install(p)
    target = Path(env["home"]) / ".agents" / "skills" / "alpha"
    assert os.readlink(target) == str(a)
    (a / "SKILL.md").write_text((a / "SKILL.md").read_text() + "changed\n")
    assert [s.state for s in install_state.stale(["codex"])] == ["linked"]


def test_stale_states_and_update(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    a, b, c, _d = (skill(repo / "skills", n) for n in ("a1", "b2", "c3", "d4"))
    apply_install(plan(repo, env, profiles=("codex",)))
    root = Path(env["home"]) / ".agents" / "skills"
    assert {s.state for s in install_state.stale()} == {"up-to-date"}
    (a / "SKILL.md").write_text((a / "SKILL.md").read_text() + "source edit\n")
    (root / "b2" / "SKILL.md").write_text("edited here\n")
    (b / "new.md").write_text("source also changed")
    import shutil

    shutil.rmtree(c)
    shutil.rmtree(root / "d4")
    states = {os.path.basename(s.target): s for s in install_state.stale(["codex"])}
    assert states["a1"].state == "stale" and states["a1"].changed == ("SKILL.md",)
    assert states["b2"].state == "changed-here"  # never overwritten silently
    assert states["c3"].state == "source-gone" and states["d4"].state == "missing"
    assert install_state.stale(["gemini-cli"]) == []
    up = install_state.plan_update(list(states.values()))
    assert [x.target for x in up.todo] == [str(root / "a1")]
    apply_install(up)
    assert (root / "a1" / "SKILL.md").read_text().endswith("source edit\n")
    assert (root / "b2" / "SKILL.md").read_text() == "edited here\n"
    assert install_state.status_of(install_state.read_manifest()[str(root / "a1")]).state == (
        "up-to-date"
    )
    assert undo_install() is not None  # the update is taken back as one step
    assert not (root / "a1" / "SKILL.md").read_text().endswith("source edit\n")
    assert install_state.status_of(install_state.read_manifest()[str(root / "a1")]).state == (
        "stale"
    )


def test_a_large_skill_is_copied_and_past_the_bounds_refused(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    big = skill(repo, "big")
    data = big / "data"
    data.mkdir()
    for i in range(12_000):
        (data / f"f{i:05d}.txt").write_bytes(b"x")
    p = plan(repo, env, profiles=("codex",))
    assert p.actions[0].files == 12_001
    apply_install(p)
    assert len(os.listdir(Path(env["home"], ".agents", "skills", "big", "data"))) == 12_000
    with pytest.raises(TreeError, match="more than 5,000 files"):
        list_tree(str(big), max_entries=5_000)
    deep = skill(tmp_path / "deep", "deep")
    cur = deep
    for i in range(12):
        cur = cur / f"d{i}"
    cur.mkdir(parents=True)
    p = plan(tmp_path / "deep" / "deep", env, profiles=("codex",))
    assert "folder levels" in p.actions[0].blocked and not p.todo


def test_special_files_are_not_copied_or_opened(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    a = skill(repo, "alpha")
    os.mkfifo(a / "pipe")
    (a / ".git").mkdir()
    (a / ".git" / "config").write_text("[core]\n")
    p = plan(repo, env, profiles=("codex",))
    assert dict(p.actions[0].left_out) == {
        "pipe": "not a file, folder or link",
        ".git": "version-control metadata",
    }
    apply_install(p)
    t = Path(env["home"]) / ".agents" / "skills" / "alpha"
    assert sorted(os.listdir(t)) == ["SKILL.md"]


def test_bad_arguments_and_a_folder_without_skills(tmp_path: Path, env: dict) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InstallError, match="no skill"):
        plan(tmp_path / "empty", env)
    with pytest.raises(InstallError, match="scope"):
        plan(tmp_path / "empty", env, scope="global")
    with pytest.raises(InstallError, match="not a folder"):
        plan(tmp_path / "nope", env)


def test_a_plugin_for_claude_code_goes_to_its_skill_folders(tmp_path: Path, env: dict) -> None:
    """Claude Code reads its plugin cache only for the plugins its own install records
    (installed_plugins.json, enabled in settings; the lab): a copy there would never load, so
    the plugin's skills go where Claude Code loads them, as plain skills."""
    repo = tmp_path / "repo"
    (repo / ".claude-plugin").mkdir(parents=True)
    (repo / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit"}))
    skill(repo / "skills", "alpha")
    personal = plan(repo, env, profiles=("claude-code",))
    (placed,) = personal.placed
    assert placed.plugin == "" and placed.name == "alpha"
    assert placed.target == f"{env['home']}/.claude/skills/alpha"
    project = plan(repo, env, profiles=("claude-code",), scope="project")
    assert project.placed[0].target == f"{env['project']}/.claude/skills/alpha"


def test_a_source_the_runtime_already_reads_is_a_clash_after_a_copy(
    tmp_path: Path, env: dict
) -> None:
    """Copying ~/.agents/skills/foo into the project: Codex and Gemini CLI read both copies."""
    source = skill(Path(env["home"]) / ".agents" / "skills", "foo", "Foo.")
    p = plan(source, env, profiles=("codex", "gemini-cli", "claude-code"), scope="project")
    by = {pl.profile: pl for pl in p.placed}
    (codex,) = by["codex"].clashes
    assert codex.path == str(source / "SKILL.md") and codex.picks == ""  # keep-both
    assert "the source itself is in" in codex.note
    (gemini,) = by["gemini-cli"].clashes
    assert gemini.picks == gemini.new_path  # the workspace folder overrides the user folder
    assert by["claude-code"].clashes == ()  # Claude Code does not read ~/.agents/skills


def test_a_repository_search_cut_short_is_refused_not_installed_in_part(
    tmp_path: Path, env: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillprism.core import install

    repo = tmp_path / "repo"
    for i in range(6):
        skill(repo / f"group{i}", f"s{i}")
    monkeypatch.setattr(install, "UNIT_SEARCH_DIRS", 4)
    with pytest.raises(InstallError, match="search stopped after 4 folders"):
        plan(repo, env)


def test_a_repository_with_an_unreadable_folder_is_refused(tmp_path: Path, env: dict) -> None:
    repo = tmp_path / "repo"
    for i in range(2):
        skill(repo / f"group{i}", f"s{i}")
    unreadable = repo / "group0"
    os.chmod(unreadable, 0)
    try:
        if os.access(unreadable, os.R_OK):
            pytest.skip("running as a user who reads every folder")
        with pytest.raises(InstallError, match="group0"):
            plan(repo, env)
    finally:
        os.chmod(unreadable, 0o755)


def test_an_archive_beside_the_skills_does_not_stop_an_install(tmp_path: Path, env: dict) -> None:
    """An archive left packed is a note about what was seen, not a search cut short."""
    repo = tmp_path / "repo"
    skill(repo / "skills", "alpha")
    (repo / "skills" / "beta.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    p = plan(repo, env, profiles=("codex",))
    assert [pl.name for pl in p.placed] == ["alpha"] and not p.blocked


def test_verdicts_and_clashes_are_those_of_the_shared_folder(tmp_path: Path, env: dict) -> None:
    """Gemini CLI's copy goes to ~/.agents/skills with Codex's: the runtime's verdict and its
    clashes are computed there, so a skill of the same name in its own ~/.gemini/skills is a
    clash elsewhere in its roots, not at the target, and nothing is blocked."""
    repo = tmp_path / "repo"
    skill(repo, "beta", "The new beta.")
    home = Path(env["home"])
    mine = skill(home / ".gemini" / "skills", "beta", "My own beta.")
    p = plan(repo, env, profiles=("codex", "gemini-cli"))
    ((target, who),) = [(a.target, set(a.profiles)) for a in p.todo]
    assert target == f"{home}/.agents/skills/beta" and who == {"codex", "gemini-cli"}
    gemini = next(pl for pl in p.placed if pl.profile == "gemini-cli")
    assert gemini.target == target and gemini.root == f"{home}/.agents/skills"
    (clash,) = gemini.clashes
    assert clash.where == "root" and clash.path == str(mine / "SKILL.md")
    assert clash.new_path == f"{target}/SKILL.md"


def test_a_plugin_for_every_runtime_is_read_once_by_each(tmp_path: Path, env: dict) -> None:
    """A plugin installed for the five runtimes: Claude Code's copy is a plain skill in
    ~/.claude/skills (its plugin cache loads only what its own install records), and the joint
    choice of folders leaves every runtime exactly one copy to read."""
    repo = tmp_path / "repo"
    (repo / ".claude-plugin").mkdir(parents=True)
    (repo / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit"}))
    skill(repo / "skills", "alpha")
    p = plan(repo, env)
    targets = {a.target: set(a.profiles) for a in p.actions}
    assert not [t for t in targets if "/.claude/plugins/" in t]
    assert "claude-code" in targets[f"{env['home']}/.claude/skills/alpha"]
    assert set(copies_read(p, env, "alpha").values()) == {1}
    assert {pl.status for pl in p.placed} == {"ok"}
