"""Enable/disable through a runtime's own setting: the minimal TOML and JSON edits (comments and
order kept), the refusal when a file changed after it was read, undo, the resolver honouring the
setting with a reason, and `skillprism enable/disable` (--dry-run, --undo). The check with
Codex's own loader is in tests/test_toggle_lab.py."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism import cli
from skillprism.app.workspace import BudgetInputs, Workspace, WorkspaceError
from skillprism.core.local_state_spec import ToggleSpec
from skillprism.core.profiles import ProfileError, load_profile, parse_profile
from skillprism.core.toggle import ToggleError, _json_name_map, _toml_path_entries, plan_toggle

CODEX = """# my Codex settings
model = "o3"  # the one I like

[projects."/src/app"]
trust_level = "trusted"
"""


def test_toml_disable_adds_one_entry_and_keeps_the_rest() -> None:
    out = _toml_path_entries(CODEX, "skills.config", ["/h/a/SKILL.md"], False, "c.toml")
    assert out.startswith(CODEX)  # every byte of the user's text kept, in order
    assert tomllib.loads(out)["skills"]["config"] == [{"path": "/h/a/SKILL.md", "enabled": False}]
    # again: nothing changes; another skill: a second entry
    assert _toml_path_entries(out, "skills.config", ["/h/a/SKILL.md"], False, "c") == out
    two = _toml_path_entries(out, "skills.config", ["/h/b/SKILL.md"], False, "c")
    assert [e["path"] for e in tomllib.loads(two)["skills"]["config"]] == [
        "/h/a/SKILL.md",
        "/h/b/SKILL.md",
    ]
    # enable takes the entry out again, the user's text still intact
    back = _toml_path_entries(two, "skills.config", ["/h/a/SKILL.md"], True, "c")
    assert back.startswith(CODEX)
    assert tomllib.loads(back)["skills"]["config"] == [{"path": "/h/b/SKILL.md", "enabled": False}]


def test_toml_an_existing_entry_is_switched_not_duplicated() -> None:
    text = CODEX + '\n[[skills.config]]\npath = "/h/a/SKILL.md"\nenabled = true  # on\nnote = "x"\n'
    off = _toml_path_entries(text, "skills.config", ["/h/a/SKILL.md"], False, "c")
    assert off == text.replace("enabled = true", "enabled = false")
    on = _toml_path_entries(off, "skills.config", ["/h/a/SKILL.md"], True, "c")
    assert on == text  # an entry with other keys is kept, only switched


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("model = \n", "not valid TOML"),
        ("skills = 3\n", "not a table"),
        ("[skills]\nconfig = 3\n", "not an array of tables"),
    ],
)
def test_toml_that_cannot_be_edited_is_refused(text: str, says: str) -> None:
    with pytest.raises(ToggleError, match=says):
        _toml_path_entries(text, "skills.config", ["/h/a/SKILL.md"], False, "c.toml")


SETTINGS = """{
  // my Claude Code settings
  "model": "opus",
  "skillOverrides": {
    "other": "name-only"  /* keep it short */
  },
  "env": {"A": "1"}
}
"""


def test_json_member_is_added_and_removed_in_place() -> None:
    off = _json_name_map(SETTINGS, "skillOverrides", "alpha", "off", "s.json")
    assert "// my Claude Code settings" in off and "/* keep it short */" in off
    assert off.count("\n") == SETTINGS.count("\n") + 1  # one line more, nothing reflowed
    assert _json_name_map(off, "skillOverrides", "alpha", None, "s.json") == SETTINGS
    # replaced in place when present
    again = _json_name_map(off, "skillOverrides", "alpha", "name-only", "s.json")
    assert again == off.replace('"alpha": "off"', '"alpha": "name-only"')


def test_json_without_the_map_or_the_file() -> None:
    assert json.loads(_json_name_map(None, "skillOverrides", "a", "off", "s")) == {
        "skillOverrides": {"a": "off"}
    }
    assert _json_name_map(None, "skillOverrides", "a", None, "s") is None
    out = _json_name_map('{"model": "opus"}\n', "skillOverrides", "a", "off", "s")
    assert json.loads(out) == {"model": "opus", "skillOverrides": {"a": "off"}}
    trailing = '{\n  "x": 1,\n}\n'  # JSONC's trailing comma stays valid
    out = _json_name_map(trailing, "skillOverrides", "a", "off", "s")
    assert out == '{\n  "x": 1,\n  "skillOverrides": {"a": "off"},\n}\n'


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[1, 2]", "not a JSON object"),
        ('{"a": }', "not a JSON value"),
        ('{"skillOverrides": "off"}', "not an object"),
        ('{"a": 1} x', "text after"),
        ('{"a": "b', "unterminated"),
    ],
)
def test_json_that_cannot_be_edited_is_refused(text: str, says: str) -> None:
    with pytest.raises(ToggleError, match=says):
        _json_name_map(text, "skillOverrides", "n", "off", "s.json")


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(
    existing=st.dictionaries(names, st.sampled_from(["on", "off", "name-only"]), max_size=5),
    others=st.dictionaries(names, st.integers(), max_size=3),
    name=names,
    indent=st.sampled_from([None, 2, 4]),
)
def test_json_edits_mean_what_they_say(existing, others, name, indent) -> None:
    data = {**others, "skillOverrides": existing}
    text = json.dumps(data, indent=indent)
    off = _json_name_map(text, "skillOverrides", name, "off", "s")
    assert json.loads(off) == {**others, "skillOverrides": {**existing, name: "off"}}
    removed = _json_name_map(off, "skillOverrides", name, None, "s")
    rest = {k: v for k, v in existing.items() if k != name}
    assert json.loads(removed) == {**others, "skillOverrides": rest}


def test_the_profiles_say_which_setting() -> None:
    codex = load_profile("codex").disclosure.toggle
    assert (codex.form, codex.key, codex.evidence) == ("path-entries", "skills.config", "lab")
    claude = load_profile("claude-code").disclosure.toggle
    assert (claude.form, claude.key, claude.off_value) == ("name-map", "skillOverrides", "off")
    base = {"schema": 1, "name": "t", "roots": [{"scope": "p", "path": "{project}/s"}]}
    with pytest.raises(ProfileError, match=r"toggle\.note"):
        parse_profile({**base, "toggle": {"form": "none"}}, "t")
    with pytest.raises(ProfileError, match=r"toggle\.off_value"):
        parse_profile(
            {
                **base,
                "toggle": {
                    "form": "name-map",
                    "file": "f",
                    "key": "k",
                    "source": "s",
                    "format": "json",
                },
            },
            "t",
        )


# --- the Workspace -----------------------------------------------------------------------------


def skill(root: Path, name: str) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} skill.\n---\n\nBody.\n")
    return d / "SKILL.md"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = Path(os.environ["HOME"])
    for name in ("alpha", "beta"):
        skill(home / ".codex" / "skills", name)
        skill(home / ".claude" / "skills", name)
    (home / ".codex" / "config.toml").write_text(CODEX)
    return home


def outcome(ws: Workspace, spec: str, name: str) -> tuple[str, str]:
    entry = next(e for e in ws.tier1(spec, BudgetInputs()).entries if e.name == name)
    return entry.outcome, entry.reason


@pytest.mark.parametrize(
    ("spec", "reason"),
    [("codex", "disabled in the runtime's settings"), ("claude-code", "override off")],
)
def test_disable_is_honoured_with_a_reason_and_undone(home, tmp_path, spec, reason) -> None:
    ws = Workspace(str(tmp_path), profiles=[spec], home=str(home))
    assert outcome(ws, spec, "alpha")[0] == "full"
    change = ws.plan_toggle(spec, "alpha", enable=False)
    before = change.before
    ws.apply_change(change)
    ws = Workspace(str(tmp_path), profiles=[spec], home=str(home))
    assert outcome(ws, spec, "alpha") == ("excluded", reason)
    assert outcome(ws, spec, "beta")[0] == "full"
    ws.undo_change(change)
    after_undo = Path(change.path).read_text() if before is not None else None
    assert after_undo == before and (before is not None or not os.path.exists(change.path))
    assert outcome(Workspace(str(tmp_path), profiles=[spec], home=str(home)), spec, "alpha")[0] == (
        "full"
    )


def test_a_file_changed_after_it_was_read_is_not_overwritten(home, tmp_path) -> None:
    ws = Workspace(str(tmp_path), profiles=["codex"], home=str(home))
    change = ws.plan_toggle("codex", "alpha", enable=False)
    config = home / ".codex" / "config.toml"
    config.write_text(CODEX + 'approval_policy = "never"\n')  # the user edits it meanwhile
    with pytest.raises(WorkspaceError, match="changed since Skill Prism read it"):
        ws.apply_change(change)
    assert config.read_text() == CODEX + 'approval_policy = "never"\n'
    # undo refuses the same way when the file moved on after the write
    change = ws.plan_toggle("codex", "alpha", enable=False)
    ws.apply_change(change)
    config.write_text(config.read_text() + "# later\n")
    with pytest.raises(WorkspaceError, match="changed since"):
        ws.undo_change(change)


def test_no_setting_and_unknown_skill_are_clear(home, tmp_path) -> None:
    ws = Workspace(str(tmp_path), profiles=["goose", "codex"], home=str(home))
    with pytest.raises(WorkspaceError, match="move the skill's folder out"):
        ws.plan_toggle("goose", "alpha", enable=False)
    with pytest.raises(WorkspaceError, match=r"Codex: .*nope"):
        ws.plan_toggle("codex", "nope", enable=False)
    spec = ToggleSpec(form="none", note="it has none")
    with pytest.raises(ToggleError, match="it has none"):
        plan_toggle(spec, name="a", skill_file="/x", enable=False, project="/", home="/", env={})


# --- the CLI -----------------------------------------------------------------------------------


def test_cli_dry_run_writes_nothing_then_disable_and_undo(home, tmp_path, capsys) -> None:
    config = home / ".codex" / "config.toml"
    base = ["--profile", "codex", "--project", str(tmp_path)]
    assert cli.main(["disable", "alpha", *base, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+[[skills.config]]" in out and "+enabled = false" in out
    assert config.read_text() == CODEX
    assert cli.main(["disable", "alpha", *base]) == 0
    assert "enabled = false" in config.read_text()
    assert cli.main(["disable", "alpha", *base]) == 0
    assert "already so" in capsys.readouterr().err
    assert cli.main(["disable", "--undo"]) == 0
    assert config.read_text() == CODEX
    assert cli.main(["enable", "--undo"]) == 2  # nothing left to undo
    assert "nothing to undo" in capsys.readouterr().err
    assert cli.main(["disable", "alpha", "--profile", "goose"]) == 2
    assert "move the skill's folder out" in capsys.readouterr().err


# --- Qwen Code: a list of names (skills.disabled), matched case-insensitively ---------------


def test_json_name_list_adds_once_and_removes_every_spelling() -> None:
    from skillprism.core.toggle import _json_name_list

    text = '{\n  // mine\n  "model": "qwen3",\n  "skills": {\n    "disabled": ["Other"]\n  }\n}\n'
    out = _json_name_list(text, "skills.disabled", "alpha", True, "s")
    assert out == text.replace('["Other"]', '["Other", "alpha"]')
    assert _json_name_list(out, "skills.disabled", "ALPHA", True, "s") == out  # already there
    assert _json_name_list(out, "skills.disabled", "Alpha", False, "s") == text
    created = _json_name_list('{"model": "q"}', "skills.disabled", "alpha", True, "s")
    assert json.loads(created) == {"model": "q", "skills": {"disabled": ["alpha"]}}
    both = '{"skills": {"disabled": ["a", "ALPHA", "b", "alpha"]}}'
    out = _json_name_list(both, "skills.disabled", "alpha", False, "s")
    assert json.loads(out) == {"skills": {"disabled": ["a", "b"]}}
    with pytest.raises(ToggleError, match="not a list"):
        _json_name_list('{"skills": {"disabled": "alpha"}}', "skills.disabled", "a", True, "s")
    with pytest.raises(ToggleError, match=r"skills is not an object"):
        _json_name_list('{"skills": 1}', "skills.disabled", "a", True, "s")


def test_qwen_disable_is_honoured_case_insensitively(tmp_path) -> None:
    home = Path(os.environ["HOME"])
    for name in ("Alpha", "beta"):
        skill(home / ".qwen" / "skills", name)
    ws = Workspace(str(tmp_path), profiles=["qwen-code"], home=str(home))
    change = ws.plan_toggle("qwen-code", "Alpha", enable=False)
    assert change.path == str(home / ".qwen" / "settings.json") and change.before is None
    ws.apply_change(change)
    assert json.loads(Path(change.path).read_text()) == {"skills": {"disabled": ["Alpha"]}}
    ws = Workspace(str(tmp_path), profiles=["qwen-code"], home=str(home))
    assert outcome(ws, "qwen-code", "Alpha") == ("excluded", "disabled in the runtime's settings")
    # a project's settings add to the user's (UNION), in any spelling
    (tmp_path / ".qwen").mkdir()
    (tmp_path / ".qwen" / "settings.json").write_text('{"skills": {"disabled": ["BETA"]}}')
    ws = Workspace(str(tmp_path), profiles=["qwen-code"], home=str(home))
    assert outcome(ws, "qwen-code", "beta")[0] == "excluded"
    ws.undo_change(change)
    assert not os.path.exists(change.path)  # the file did not exist before: it is gone again


def test_a_disabled_list_of_the_wrong_shape_is_reported(tmp_path) -> None:
    home = Path(os.environ["HOME"])
    skill(home / ".qwen" / "skills", "alpha")
    (home / ".qwen").mkdir(exist_ok=True)
    (home / ".qwen" / "settings.json").write_text('{"skills": {"disabled": "alpha"}}')
    ws = Workspace(str(tmp_path), profiles=["qwen-code"], home=str(home))
    _settings, unread = ws.budget_settings("qwen-code", BudgetInputs())
    assert any("expected a list of skill names" in p for p in unread)
    assert outcome(ws, "qwen-code", "alpha")[0] == "full"


# --- OpenCode: permission rules (permission.skill), the last matching pattern wins ------------


def test_permission_rules_last_match_wins() -> None:
    from skillprism.core.disclose import permission_action

    rules = (("*", "allow"), ("pdf-*", "deny"), ("pdf-keep", "ask"))
    assert permission_action(rules, "pdf-x") == "deny"
    assert permission_action(rules, "pdf-keep") == "ask"
    assert permission_action(rules, "other") == "allow"
    assert permission_action((("a?c", "deny"),), "abc") == "deny"
    assert permission_action((("a.c", "deny"),), "abc") is None  # '.' is literal
    assert permission_action((), "x") is None


def test_opencode_disable_writes_a_deny_rule_and_is_honoured(tmp_path) -> None:
    home = Path(os.environ["HOME"])
    for name in ("alpha", "beta"):
        skill(home / ".agents" / "skills", name)
    cfg = home / ".config" / "opencode" / "opencode.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "permission": {\n'
        '    "bash": "ask"\n  }\n}\n'
    )
    ws = Workspace(str(tmp_path), profiles=["opencode"], home=str(home))
    change = ws.plan_toggle("opencode", "alpha", enable=False)
    assert change.path == str(cfg)
    ws.apply_change(change)
    assert json.loads(cfg.read_text())["permission"] == {"bash": "ask", "skill": {"alpha": "deny"}}
    ws = Workspace(str(tmp_path), profiles=["opencode"], home=str(home))
    assert outcome(ws, "opencode", "alpha") == (
        "excluded",
        "denied by the runtime's permission rules",
    )
    assert outcome(ws, "opencode", "beta")[0] == "full"
    # a project's later rule allows it again (the last matching rule wins)
    (tmp_path / "opencode.json").write_text('{"permission": {"skill": {"alp*": "allow"}}}')
    ws = Workspace(str(tmp_path), profiles=["opencode"], home=str(home))
    assert outcome(ws, "opencode", "alpha")[0] == "full"
    (tmp_path / "opencode.json").write_text('{"permission": {"skill": "deny"}}')
    ws = Workspace(str(tmp_path), profiles=["opencode"], home=str(home))
    assert outcome(ws, "opencode", "beta")[0] == "excluded"
    (tmp_path / "opencode.json").unlink()
    enable = Workspace(str(tmp_path), profiles=["opencode"], home=str(home)).plan_toggle(
        "opencode", "alpha", enable=True
    )
    assert json.loads(enable.after)["permission"] == {"bash": "ask", "skill": {}}


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=60),
        st.text(alphabet='{}[]":,/*\\ \nabfnrtu0123456789-.e+', max_size=60),
    ),
    form=st.sampled_from(["map", "list"]),
    add=st.booleans(),
)
def test_any_text_is_edited_or_refused_with_a_reason(text, form, add) -> None:
    from skillprism.core.toggle import _json_name_list

    try:
        if form == "map":
            out = _json_name_map(text, "a.b", "n", "off" if add else None, "s.json")
        else:
            out = _json_name_list(text, "a.b", "n", add, "s.json")
    except ToggleError as err:
        assert str(err).startswith("s.json: line ")
        return
    assert out is None or isinstance(out, str)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=60),
        st.text(alphabet='[]{}="#.,\n skillsconfigpathenabledtruefalse123', max_size=80),
        st.sampled_from(
            [
                "skills = {config = []}\n",
                'skills = {config = [{path = "/h/a/SKILL.md", enabled = true}]}\n',
                "[skills]\nconfig = [1, 2]\n",
                "[[skills.config]]\npath = 3\n",
                "[skills.config]\npath = 'x'\n",
            ]
        ),
    ),
    enable=st.booleans(),
)
def test_any_toml_is_edited_or_refused_with_a_reason(text, enable) -> None:
    try:
        out = _toml_path_entries(text, "skills.config", ["/h/a/SKILL.md"], enable, "c.toml")
    except ToggleError as err:
        assert str(err).startswith("c.toml: ")
        return
    data = tomllib.loads(out)  # the result is valid TOML
    entries = data.get("skills", {}).get("config", [])
    mine = [e for e in entries if isinstance(e, dict) and e.get("path") == "/h/a/SKILL.md"]
    if not enable:
        assert mine and all(e["enabled"] is False for e in mine)
    else:
        assert all(e.get("enabled") is not False for e in mine)


def test_a_private_settings_file_stays_private(home, tmp_path) -> None:
    config = home / ".codex" / "config.toml"
    config.chmod(0o600)
    assert cli.main(["disable", "alpha", "--profile", "codex", "--project", str(tmp_path)]) == 0
    assert config.stat().st_mode & 0o777 == 0o600
    from skillprism.paths import user_state_dir

    assert (user_state_dir() / "last-toggle.json").stat().st_mode & 0o777 == 0o600
    assert cli.main(["disable", "--undo"]) == 0
    assert config.stat().st_mode & 0o777 == 0o600 and config.read_text() == CODEX


def test_gemini_disable_writes_skills_disabled_and_is_honoured(tmp_path) -> None:
    home = Path(os.environ["HOME"])
    for name in ("alpha", "beta"):
        skill(home / ".gemini" / "skills", name)
    settings_file = home / ".gemini" / "settings.json"
    settings_file.write_text('{\n  // mine\n  "ui": {"theme": "GitHub"}\n}\n')
    assert (
        cli.main(["disable", "ALPHA", "--profile", "gemini-cli", "--project", str(tmp_path)]) == 2
    )
    assert (
        cli.main(["disable", "alpha", "--profile", "gemini-cli", "--project", str(tmp_path)]) == 0
    )
    text = settings_file.read_text()
    assert text.startswith('{\n  // mine\n  "ui": {"theme": "GitHub"},\n')
    assert '"skills": {"disabled": ["alpha"]}' in text
    ws = Workspace(str(tmp_path), profiles=["gemini-cli"], home=str(home))
    assert outcome(ws, "gemini-cli", "alpha")[0] == "excluded"  # read as JSONC, comment and all
    settings_file.write_text('{"skills": {"disabled": ["Alpha"]}}')
    ws = Workspace(str(tmp_path), profiles=["gemini-cli"], home=str(home))
    assert outcome(ws, "gemini-cli", "alpha") == ("excluded", "disabled in the runtime's settings")
    assert outcome(ws, "gemini-cli", "beta")[0] == "full"


def test_toml_name_list_adds_and_removes_names_keeping_the_rest() -> None:
    """Mistral Vibe's disabled_skills: a TOML array of names, created after the top-level keys
    (before any table), names matched case-insensitively when removed."""
    from skillprism.core.toggle import _toml_name_list

    text = '# mine\nmodel = "x"\n\n[tools.bash]\nallow = true\n'
    one = _toml_name_list(text, "disabled_skills", ["lab-alpha"], True, "c.toml")
    assert one == (
        '# mine\nmodel = "x"\ndisabled_skills = ["lab-alpha"]\n\n[tools.bash]\nallow = true\n'
    )
    assert _toml_name_list(one, "disabled_skills", ["LAB-ALPHA"], True, "c.toml") == one
    two = _toml_name_list(one, "disabled_skills", ["lab-beta", "lab-beta"], True, "c.toml")
    assert 'disabled_skills = ["lab-alpha", "lab-beta"]' in two
    back = _toml_name_list(two, "disabled_skills", ["Lab-Alpha"], False, "c.toml")
    assert 'disabled_skills = ["lab-beta"]' in back and back.startswith('# mine\nmodel = "x"\n')
    assert _toml_name_list(None, "disabled_skills", ["a"], False, "c.toml") is None
    assert _toml_name_list(None, "disabled_skills", ["a"], True, "c") == 'disabled_skills = ["a"]\n'
    with pytest.raises(ToggleError, match="not a list of skill names"):
        _toml_name_list('disabled_skills = "a"\n', "disabled_skills", ["b"], True, "c.toml")
    with pytest.raises(ToggleError, match="not valid TOML"):
        _toml_name_list("x = [\n", "disabled_skills", ["b"], True, "c.toml")


def test_plan_toggles_writes_many_skills_as_one_change(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from skillprism.core.local_state_spec import ToggleSpec
    from skillprism.core.toggle import plan_toggles

    spec = ToggleSpec(
        form="path-entries",
        file="~/.codex/config.toml",
        format="toml",
        key="skills.config",
        evidence="lab",
        source="s",
    )
    change = plan_toggles(
        spec,
        [("a", "/h/a/SKILL.md"), ("b", "/h/b/SKILL.md")],
        enable=False,
        project=str(tmp_path),
        home=str(tmp_path),
        env={},
    )
    assert change.before is None and change.entry.startswith("2 skills: ")
    assert [e["path"] for e in tomllib.loads(change.after)["skills"]["config"]] == [
        "/h/a/SKILL.md",
        "/h/b/SKILL.md",
    ]
    with pytest.raises(ToggleError, match="no skill"):
        plan_toggles(spec, [], enable=False, project="/p", home="/h", env={})


# --- YAML (Hermes Agent's skills.disabled), path entries and the project's own file (pi) -------

HERMES = """# Hermes Agent configuration
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


def test_yaml_disable_adds_one_line_and_keeps_comments_order_and_quoting() -> None:
    from skillprism.core.toggle import _yaml_name_list

    out = _yaml_name_list(HERMES, "skills.disabled", ["lab-alpha"], True, "c.yaml", False)
    assert out == HERMES.replace("    - old-notes\n", "    - old-notes\n    - lab-alpha\n")
    # names are matched exactly for a runtime that compares them so (Hermes Agent)
    assert _yaml_name_list(out, "skills.disabled", ["LAB-ALPHA"], False, "c.yaml", False) == out
    assert _yaml_name_list(out, "skills.disabled", ["lab-alpha"], False, "c.yaml", False) == HERMES
    assert _yaml_name_list(out, "skills.disabled", ["lab-alpha"], True, "c.yaml", False) == out


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, "skills:\n  disabled:\n  - n\n"),
        ("", "skills:\n  disabled:\n  - n\n"),
        ("# mine\nfoo: 1\n", "# mine\nfoo: 1\nskills:\n  disabled:\n  - n\n"),
        ("a:\n    b: 1\nskills:\n    disabled:\n    - x\n", None),  # its 4-space indent kept
        ("skills:\n  disabled: [x]\n", "skills:\n  disabled: [x, n]\n"),
    ],
)
def test_yaml_list_is_created_as_needed_in_the_files_own_layout(before, after) -> None:
    from skillprism.core.toggle import _yaml_name_list

    out = _yaml_name_list(before, "skills.disabled", ["n"], True, "c.yaml")
    assert out == (after if after is not None else before + "    - n\n")
    assert _yaml_name_list(before, "skills.disabled", ["n"], False, "c.yaml") == before


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("- a\n- b\n", "not a YAML mapping"),
        ("skills: 3\n", "skills is not a mapping"),
        ("skills:\n  disabled: x\n", "not a list of skill names"),
        ("a: [\n", "not valid YAML"),
        ("a: *nowhere\n", "not valid YAML"),
    ],
)
def test_yaml_that_cannot_be_edited_is_refused(text: str, says: str) -> None:
    from skillprism.core.toggle import _yaml_name_list

    with pytest.raises(ToggleError, match=says):
        _yaml_name_list(text, "skills.disabled", ["n"], True, "c.yaml")


@settings(max_examples=200, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=60),
        st.text(alphabet="skilsdabe:-[]{}#'\" \n,&*!|>", max_size=80),
    ),
    add=st.booleans(),
)
def test_any_yaml_is_edited_or_refused_with_a_reason(text, add) -> None:
    import yaml

    from skillprism.core.toggle import _yaml_name_list

    try:
        out = _yaml_name_list(text, "skills.disabled", ["n"], add, "c.yaml")
    except ToggleError as err:
        assert str(err).startswith("c.yaml: ")
        return
    if out is None or out == text:
        return
    names = yaml.safe_load(out)["skills"]["disabled"]  # what the runtime reads
    assert ("n" in names) == add


def test_pi_entries_name_the_folder_in_the_file_of_the_skills_own_scope(tmp_path) -> None:
    from skillprism.core.toggle import plan_toggles

    spec = load_profile("pi").disclosure.toggle
    home, project = tmp_path / "home", tmp_path / "proj"
    mine = skill(home / ".pi" / "agent" / "skills", "mine")
    theirs = skill(project / ".pi" / "skills", "theirs")
    args = {"project": str(project), "home": str(home), "env": {}}
    change = plan_toggles(spec, [("mine", str(mine))], enable=False, **args)
    assert change.path == str(home / ".pi" / "agent" / "settings.json")
    assert json.loads(change.after) == {"skills": [f"-{mine.parent}"]}
    change = plan_toggles(spec, [("theirs", str(theirs))], enable=False, **args)
    assert change.path == str(project / ".pi" / "settings.json")
    assert json.loads(change.after) == {"skills": [f"-{theirs.parent}"]}
    with pytest.raises(ToggleError, match="separately"):
        plan_toggles(spec, [("mine", str(mine)), ("theirs", str(theirs))], enable=False, **args)
    # a path is matched exactly: another spelling is not this skill
    user = home / ".pi" / "agent" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"skills": [f"-{str(mine.parent).upper()}", "+x"]}))
    change = plan_toggles(spec, [("mine", str(mine))], enable=True, **args)
    assert not change.changed
    change = plan_toggles(spec, [("mine", str(mine))], enable=False, **args)
    assert json.loads(change.after)["skills"][-1] == f"-{mine.parent}"


def test_an_entry_template_is_for_name_lists_only() -> None:
    base = {"schema": 1, "name": "t", "roots": [{"scope": "p", "path": "{project}/s"}]}
    toggle = {"form": "name-list", "file": "f", "key": "k", "source": "s", "format": "json"}
    for bad in ({"entry": "-{path}"}, {"form": "name-map", "off_value": "x", "entry": "{dir}"}):
        with pytest.raises(ProfileError, match=r"toggle\.entry"):
            parse_profile({**base, "toggle": {**toggle, **bad}}, "t")
    with pytest.raises(ProfileError, match=r"toggle\.format"):
        parse_profile(
            {**base, "toggle": {**toggle, "form": "name-map", "format": "yaml", "off_value": "x"}},
            "t",
        )


def test_a_name_flag_is_set_in_the_skills_own_object_and_removed_with_it() -> None:
    from skillprism.core.toggle import _json_name_flag

    text = '{\n  // mine\n  "skills": {\n    "entries": {\n      "gh": {"apiKey": "k"}\n    }\n  }\n}\n'
    off = _json_name_flag(text, "skills.entries", "gh", "enabled", True, "o.json")
    assert off == text.replace('{"apiKey": "k"}', '{"apiKey": "k", "enabled": false}')
    assert _json_name_flag(off, "skills.entries", "gh", "enabled", False, "o.json") == text
    new = _json_name_flag(text, "skills.entries", "lab", "enabled", True, "o.json")
    assert '"lab": {"enabled": false}' in new
    assert _json_name_flag(new, "skills.entries", "lab", "enabled", False, "o.json") == text
    assert json.loads(_json_name_flag(None, "skills.entries", "n", "enabled", True, "o.json")) == {
        "skills": {"entries": {"n": {"enabled": False}}}
    }
    with pytest.raises(ToggleError, match=r"holds a '\.'"):
        _json_name_flag(text, "skills.entries", "a.b", "enabled", True, "o.json")
    with pytest.raises(ToggleError, match="not an object"):
        _json_name_flag(
            '{"skills": {"entries": {"n": 1}}}', "skills.entries", "n", "enabled", True, "o.json"
        )
    spec = load_profile("openclaw").disclosure.toggle
    assert (spec.form, spec.key, spec.flag) == ("name-flag", "skills.entries", "enabled")


def test_copilot_disable_is_honoured_by_skill_prisms_resolver(tmp_path) -> None:
    home = Path(os.environ["HOME"])
    for name in ("alpha", "beta"):
        skill(home / ".copilot" / "skills", name)
    ws = Workspace(str(tmp_path), profiles=["copilot-cli"], home=str(home))
    assert outcome(ws, "copilot-cli", "alpha")[0] == "full"
    change = ws.plan_toggle("copilot-cli", "alpha", enable=False)
    ws.apply_change(change)
    ws = Workspace(str(tmp_path), profiles=["copilot-cli"], home=str(home))
    assert outcome(ws, "copilot-cli", "alpha")[0] == "excluded"
    assert outcome(ws, "copilot-cli", "beta")[0] == "full"


@pytest.mark.parametrize(
    ("spec", "root"),
    [
        ("pi", ".pi/agent/skills"),
        ("oh-my-pi", ".omp/agent/skills"),
        ("openclaw", ".openclaw/skills"),
        ("hermes-agent", ".hermes/skills"),
    ],
)
def test_a_disable_through_the_runtimes_own_file_is_honoured_by_skill_prism(
    tmp_path, spec, root
) -> None:  # type: ignore[no-untyped-def]
    # pi's '-<folder>' entries, oh-my-pi's name patterns (YAML), OpenClaw's entries.<name>
    # .enabled and Hermes Agent's skills.disabled (YAML): what Skill Prism writes, its own
    # listing reads back, as each runtime's loader does in the lab (tests/test_toggle_lab.py).
    home = Path(os.environ["HOME"])
    for name in ("alpha", "beta"):
        skill(home / root, name)
    ws = Workspace(str(tmp_path), profiles=[spec], home=str(home))
    assert outcome(ws, spec, "alpha")[0] == "full"
    ws.apply_change(ws.plan_toggle(spec, "alpha", enable=False))
    ws = Workspace(str(tmp_path), profiles=[spec], home=str(home))
    assert outcome(ws, spec, "alpha") == ("excluded", "disabled in the runtime's settings")
    assert outcome(ws, spec, "beta")[0] == "full"
    ws.apply_change(ws.plan_toggle(spec, "alpha", enable=True))
    ws = Workspace(str(tmp_path), profiles=[spec], home=str(home))
    assert outcome(ws, spec, "alpha")[0] == "full"


def test_settings_of_the_wrong_shape_are_reported_not_applied(tmp_path) -> None:  # type: ignore[no-untyped-def]
    home = Path(os.environ["HOME"])
    skill(home / ".hermes" / "skills", "alpha")
    (home / ".hermes" / "config.yaml").write_text("skills:\n  disabled: alpha\n")
    ws = Workspace(str(tmp_path), profiles=["hermes-agent"], home=str(home))
    _settings, unread = ws.budget_settings("hermes-agent", BudgetInputs())
    assert outcome(ws, "hermes-agent", "alpha")[0] == "full"
    assert unread and "expected a list of strings" in unread[0]
    (home / ".hermes" / "config.yaml").write_text("skills: [unclosed\n")
    _settings, unread = ws.budget_settings("hermes-agent", BudgetInputs())
    assert unread and "not valid YAML" in unread[0]
    (home / ".omp" / "agent").mkdir(parents=True)
    (home / ".omp" / "agent" / "config.yml").write_text("skills:\n  ignoredSkills: ['al*']\n")
    skill(home / ".omp" / "agent" / "skills", "alpha")
    skill(home / ".omp" / "agent" / "skills", "beta")
    ws = Workspace(str(tmp_path), profiles=["oh-my-pi"], home=str(home))
    assert outcome(ws, "oh-my-pi", "alpha")[0] == "excluded"
    assert outcome(ws, "oh-my-pi", "beta")[0] == "full"
