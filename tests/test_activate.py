"""Tier 2: activation content, wrappers, permissions, substitution, fork, consent, costs; and the
activate / resource commands."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from skillprism.cli import main
from skillprism.core.activate import ActivationError, activate, find_skill, resources_tree
from skillprism.core.profiles import load_profile_file
from skillprism.core.resolve import build_catalog

BODY = """# Greet

Say hello to $who in a $mood way. All: $ARGUMENTS. First: $0.
Dir: ${SKILL_DIR}

!`date`
"""

TIER2 = """
[tier2]
mechanism = "Skill tool"
user_command = "/{name}"
wrapper = "Base directory for this skill: {base_dir}\\n\\n{body}"
arguments = true
indexed = true
positional = true
named = true
append_when_absent = "\\n\\nARGUMENTS: {args}"
variables = { SKILL_DIR = "{base_dir}" }
model_invocation_off = { "disable-model-invocation" = true }
user_invocation_off = { "user-invocable" = false }
shell_injection = true
model_refusal = "Skill {name} cannot be used with Skill tool due to disable-model-invocation"
user_refusal = "Skill {name} is not user-invocable"
fork_field = "context"
compaction_keep_tokens = 50
guidance_tokens = 60
"""


def write_profile(tmp_path: Path, extra: str = TIER2) -> Path:
    p = tmp_path / "rt.toml"
    p.write_text(
        'schema = 1\nname = "rt"\ntitle = "Test runtime"\n[frontmatter]\ntyping = "core"\n'
        '[rules]\nunknown-field = "ignore"\n' + textwrap.dedent(extra),
        encoding="utf-8",
    )
    return p


def make_skill(root: Path, name: str, fm: str = "", body: str = BODY) -> Path:
    d = root / name
    (d / "references").mkdir(parents=True, exist_ok=True)
    (d / "references" / "notes.md").write_text("notes\n", encoding="utf-8")
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Greets.\n{fm}---\n{body}", encoding="utf-8"
    )
    return d


def run(tmp_path: Path, fm: str = "", args: str = "", invoker: str = "model", extra: str = TIER2):  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skill(root, "greet", fm)
    catalog = build_catalog(load_profile_file(write_profile(tmp_path, extra)), [str(root)])
    return activate(catalog, find_skill(catalog, "greet"), args=args, invoker=invoker)


def test_content_is_wrapped_substituted_and_offsets_point_at_values(tmp_path: Path) -> None:
    a = run(tmp_path, "arguments: [who, mood]\n", args='"Ada Lovelace" cheerful')
    base = str(tmp_path / "skills" / "greet")
    assert a.allowed
    assert a.content.startswith(f"Base directory for this skill: {base}\n\n# Greet\n")
    assert "Say hello to Ada Lovelace in a cheerful way." in a.content
    assert 'All: "Ada Lovelace" cheerful. First: Ada Lovelace.' in a.content
    assert f"Dir: {base}" in a.content
    assert not a.appended
    for s in a.substitutions:
        assert a.content[s.start : s.end] == s.value
    assert {s.placeholder for s in a.substitutions} >= {"$who", "$mood", "$ARGUMENTS", "$0"}


def test_arguments_appended_when_the_body_has_no_placeholder(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "plain", body="Just do it.\n")
    catalog = build_catalog(load_profile_file(write_profile(tmp_path)), [str(root)])
    a = activate(catalog, find_skill(catalog, "plain"), args="now please")
    assert a.content.endswith("Just do it.\n\n\nARGUMENTS: now please")
    assert a.appended


def test_no_arguments_leaves_nothing_behind(tmp_path: Path) -> None:
    a = run(tmp_path, "arguments: [who, mood]\n")
    assert "All: . First: $0." in a.content
    assert "ARGUMENTS:" not in a.content
    assert a.unmatched == ("$0",)


def test_model_refusal_for_disable_model_invocation(tmp_path: Path) -> None:
    a = run(tmp_path, "disable-model-invocation: true\n")
    assert not a.allowed and a.content == ""
    assert a.refusal == "Skill greet cannot be used with Skill tool due to disable-model-invocation"
    assert [d.code for d in a.diagnostics] == ["SP408"]
    user = run(tmp_path, "disable-model-invocation: true\n", invoker="user")
    assert user.allowed and user.mechanism == "/greet"


def test_user_refusal_for_user_invocable_false(tmp_path: Path) -> None:
    a = run(tmp_path, "user-invocable: false\n", invoker="user")
    assert not a.allowed and a.refusal == "Skill greet is not user-invocable"
    assert run(tmp_path, "user-invocable: false\n").allowed


def test_fork_tools_shell_lines_and_cost(tmp_path: Path) -> None:
    a = run(tmp_path, "context: fork\nagent: explore\nallowed-tools: Read, Grep\n")
    assert a.fork and a.agent == "explore"
    assert a.allowed_tools == ("Read", "Grep")
    assert a.would_run == ((13, "date"),)  # 7 frontmatter lines, then the body
    assert "!`date`" in a.content  # shown, never run
    assert a.tokens == -(-a.chars // 4) and a.counter == "estimate chars/4"
    assert a.over_guidance and any(d.code == "SP407" for d in a.diagnostics)
    assert a.compaction_kept_chars is not None and a.compaction_kept_chars < a.chars


def test_consent_first_then_safe(tmp_path: Path) -> None:
    extra = '[tier2]\nconsent = "first-activation"\n'
    root = tmp_path / "skills"
    make_skill(root, "greet")
    catalog = build_catalog(load_profile_file(write_profile(tmp_path, extra)), [str(root)])
    skill = find_skill(catalog, "greet")
    assert activate(catalog, skill).consent.startswith("risky")
    assert activate(catalog, skill, first_activation=False).consent.startswith("safe")


def test_unknown_skill_lists_the_visible_ones(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "greet")
    catalog = build_catalog(load_profile_file(write_profile(tmp_path)), [str(root)])
    with pytest.raises(ActivationError, match=r'Skill "nope" not found\. Visible skills: greet'):
        find_skill(catalog, "nope")


def test_resources_tree(tmp_path: Path) -> None:
    d = make_skill(tmp_path, "greet")
    (d / "scripts").mkdir()
    (d / "scripts" / "run.py").write_text("print(1)\n")
    assert resources_tree(str(d)) == "references/\n  notes.md\nscripts/\n  run.py"


def test_activate_command_prints_content_and_refusals(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skill(root, "greet", "arguments: [who, mood]\n")
    make_skill(root, "secret", "disable-model-invocation: true\n")
    prof = str(write_profile(tmp_path))
    assert main(["activate", "greet", "--profile", prof, "--args", "Bob calm", str(root)]) == 0
    out = capsys.readouterr()
    assert "Say hello to Bob in a calm way." in out.out
    assert "line 11 would run (not run here): date" in out.err
    assert main(["activate", "secret", "--profile", prof, str(root)]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "disable-model-invocation" in out.err
    assert main(["activate", "greet", "--profile", prof, "--format", "json", str(root)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (
        doc["allowed"]
        and doc["tokens"] > 0
        and doc["would_run"] == [{"line": 11, "command": "date"}]
    )
    assert main(["activate", "nope", "--profile", prof, str(root)]) == 1
    assert "Visible skills" in capsys.readouterr().err


def test_activate_path_picks_a_shadowed_copy(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = tmp_path / "a", tmp_path / "b"
    make_skill(a, "greet", body="from A\n")
    make_skill(b, "greet", body="from B\n")
    prof = str(write_profile(tmp_path))
    assert main(["activate", "greet", "--profile", prof, str(a), str(b)]) == 0
    assert "from A" in capsys.readouterr().out
    assert (
        main(["activate", "greet", "--profile", prof, "--path", str(b / "greet"), str(a), str(b)])
        == 0
    )
    out = capsys.readouterr()
    assert "from B" in out.out and "shadowed" in out.err


def test_resource_command_reads_and_refuses(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skill(root, "greet")
    prof = str(write_profile(tmp_path))
    assert main(["resource", "greet", "references/notes.md", "--profile", prof, str(root)]) == 0
    assert capsys.readouterr().out == "notes\n"
    for escape in ("../../etc/passwd", "/etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "C:\\Windows"):
        assert main(["resource", "greet", escape, "--profile", prof, str(root)]) == 1
        out = capsys.readouterr()
        assert out.out == "" and "SP50" in out.err
    assert (
        main(
            ["resource", "greet", "skill://greet/references/notes.md", "--profile", prof, str(root)]
        )
        == 0
    )
    assert capsys.readouterr().out == "notes\n"
    assert (
        main(
            [
                "resource",
                "greet",
                "references/notes.md",
                "--profile",
                prof,
                "--format",
                "json",
                str(root),
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["media_type"] == "text/markdown" and doc["chars"] == 6


def test_only_listed_resources(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skill(root, "greet")
    prof = str(write_profile(tmp_path, TIER2 + "\n[tier3]\nonly_listed = true\n"))
    assert main(["resource", "greet", "SKILL.md", "--profile", prof, str(root)]) == 1
    assert main(["resource", "greet", "references/notes.md", "--profile", prof, str(root)]) == 0


def test_allowed_tools_split_outside_parentheses(tmp_path: Path) -> None:
    a = run(tmp_path, "allowed-tools: Bash(git log:*) Read, Grep\n")
    assert a.allowed_tools == ("Bash(git log:*)", "Read", "Grep")


@pytest.mark.parametrize("profile", ["gemini-cli", "codex", "opencode", "claude-code"])
def test_listing_and_activation_agree_on_who_may_invoke(profile: str) -> None:
    """The demo skill `deploy` sets disable-model-invocation: only runtimes that honour it (by
    their profile's data) both leave it out of the listing and refuse the model's activation."""
    from skillprism.core.activate import find_skill
    from skillprism.core.disclose import Tier1Model
    from skillprism.core.profiles import load_profile
    from skillprism.core.resolve import build_catalog
    from skillprism.paths import demo_skills_dir

    catalog = build_catalog(load_profile(profile), [str(demo_skills_dir())])
    listed = {e.name for e in Tier1Model(catalog).compute().entries if e.outcome != "excluded"}
    allowed = activate(catalog, find_skill(catalog, "deploy")).allowed
    honours = bool(catalog.profile.disclosure.tier2.model_invocation_off)
    assert ("deploy" in listed) is allowed is (not honours)
    assert honours is (profile == "claude-code")


def test_a_name_not_found_among_many_names_the_closest(tmp_path: Path) -> None:
    from skillprism.core.activate import MAX_NAMES_LISTED
    from skillprism.core.profiles import load_profile

    for i in range(MAX_NAMES_LISTED + 5):
        d = tmp_path / "skills" / f"tool-{i:02d}-automation"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: tool-{i:02d}-automation\ndescription: Tool {i}.\n---\nBody.\n",
            encoding="utf-8",
        )
    catalog = build_catalog(load_profile("agentskills"), [str(tmp_path / "skills")])
    with pytest.raises(ActivationError) as err:
        find_skill(catalog, "tool-07-automaton")
    text = str(err.value)
    assert f"among {MAX_NAMES_LISTED + 5} visible skills" in text
    assert "did you mean tool-07-automation" in text and "tool-33-automation" not in text
