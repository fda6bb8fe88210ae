"""The bundled demo set (`skills/`) shows what it promises: every state, a shadowed pair across two
roots, a skill nested too deep, one over the body guidance, one with resources, one with arguments
and Claude Code-only keys, and one with broken YAML."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from skillprism.core.activate import activate, find_skill
from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.disclose import Tier1Model
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.resources import list_resources
from skillprism.paths import demo_skills_dir

DEMO = demo_skills_dir()
PROJECT = "project/.claude/skills"
USER = "user/.claude/skills"

# Skill folder (relative to the demo folder) -> state, per profile.
AGENTSKILLS_STATES = {
    "hello-world": "ok",
    f"{PROJECT}/changelog-writer": "ok",
    f"{PROJECT}/code-review": "ok",
    f"{PROJECT}/pdf-extract": "ok",
    f"{PROJECT}/commit-message": "warning",
    f"{PROJECT}/python-style-guide": "warning",
    f"{PROJECT}/release-notes": "error",  # Claude Code-only keys are unknown to the specification
    f"{PROJECT}/deploy": "error",
    f"{PROJECT}/sql-review": "skipped",
    f"{PROJECT}/frontend/storybook-stories": "not-discovered",
    f"{USER}/code-review": "shadowed",
}
CLAUDE_CODE_STATES = {
    **AGENTSKILLS_STATES,
    f"{PROJECT}/release-notes": "ok",
    f"{PROJECT}/deploy": "ok",
    # 'Use when: ...' unquoted: Claude Code 2.1.330 quotes the value and reads the YAML again
    # (yaml_repair, lab: y-colon)
    f"{PROJECT}/sql-review": "ok",
}
CODEX_STATES = {
    **AGENTSKILLS_STATES,
    f"{PROJECT}/release-notes": "ok",  # serde ignores keys it does not know
    f"{PROJECT}/deploy": "ok",
    f"{PROJECT}/frontend/storybook-stories": "ok",  # Codex searches recursively
    f"{PROJECT}/code-review": "warning",  # keep-both: the model sees both copies
    f"{USER}/code-review": "warning",
    # 'Use when: ...' unquoted: Codex 0.169.0 reads the value as text (yaml_repair, lab: y-colon)
    f"{PROJECT}/sql-review": "ok",
}


def catalog(profile: str) -> Catalog:
    return build_catalog(load_profile(profile), [str(DEMO)])


def rel(entry: SkillEntry) -> str:
    return Path(entry.directory).relative_to(DEMO).as_posix()


def by_rel(cat: Catalog) -> dict[str, SkillEntry]:
    return {rel(s): s for s in cat.skills}


def codes(entry: SkillEntry) -> set[str]:
    return {d.code for d in entry.diagnostics}


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("agentskills", AGENTSKILLS_STATES),
        ("claude-code", CLAUDE_CODE_STATES),
        ("codex", CODEX_STATES),
    ],
)
def test_every_skill_has_the_promised_state(profile: str, expected: dict[str, str]) -> None:
    cat = catalog(profile)
    assert {r: s.status for r, s in by_rel(cat).items()} == expected


def test_state_counts_under_the_specification_cover_every_state() -> None:
    counts = Counter(s.status for s in catalog("agentskills").skills)
    assert counts == {
        "ok": 4,
        "warning": 2,
        "error": 2,
        "shadowed": 1,
        "not-discovered": 1,
        "skipped": 1,
    }


def test_state_counts_under_claude_code() -> None:
    counts = Counter(s.status for s in catalog("claude-code").skills)
    assert counts == {"ok": 7, "warning": 2, "shadowed": 1, "not-discovered": 1}


def test_names_are_plain_under_claude_code() -> None:
    # A folder named `.claude/skills` inside the demo is a project/personal root, not a plugin:
    # no skill may be listed as `<folder>:name`.
    cat = catalog("claude-code")
    assert all(":" not in s.qualified_name for s in cat.skills if s.qualified_name)


@pytest.mark.parametrize("profile", ["agentskills", "claude-code"])
def test_shadowed_pair_across_two_roots(profile: str) -> None:
    skills = by_rel(catalog(profile))
    winner, loser = skills[f"{PROJECT}/code-review"], skills[f"{USER}/code-review"]
    assert winner.name == loser.name == "code-review"
    assert winner.root.path != loser.root.path
    assert winner.description != loser.description  # different content, same name
    assert loser.status == "shadowed" and loser.shadowed_by == winner.path
    assert "SP301" in codes(loser)
    assert winner.status == "ok" and not winner.shadowed_by


def test_codex_keeps_both_copies_of_the_pair() -> None:
    skills = by_rel(catalog("codex"))
    for root in (PROJECT, USER):
        assert "SP307" in codes(skills[f"{root}/code-review"])


def test_last_wins_runtimes_pick_the_other_copy() -> None:
    skills = by_rel(catalog("gemini-cli"))
    assert skills[f"{USER}/code-review"].status == "ok"
    assert skills[f"{PROJECT}/code-review"].status == "shadowed"


@pytest.mark.parametrize("profile", ["agentskills", "claude-code"])
def test_too_deep_skill_is_not_discovered_with_its_reason(profile: str) -> None:
    entry = by_rel(catalog(profile))[f"{PROJECT}/frontend/storybook-stories"]
    assert entry.status == "not-discovered"
    assert "two levels below a skills root" in entry.reason
    assert "one level deep" in entry.reason
    assert entry.diagnostics[0].code == "SP300"


@pytest.mark.parametrize("profile", ["agentskills", "claude-code"])
def test_style_guide_is_over_the_body_guidance(profile: str) -> None:
    entry = by_rel(catalog(profile))[f"{PROJECT}/python-style-guide"]
    assert {"SP601", "SP602"} <= codes(entry)
    assert entry.status == "warning"
    text = Path(entry.path).read_text(encoding="utf-8")
    assert text.count("\n") > 500 and len(text) > 20_000


def test_style_guide_activation_is_over_the_tier2_guidance() -> None:
    cat = catalog("claude-code")
    result = activate(cat, find_skill(cat, "python-style-guide"))
    assert result.allowed and result.over_guidance


def test_warnings_skill_shows_crlf_and_reference_findings() -> None:
    entry = by_rel(catalog("agentskills"))[f"{PROJECT}/commit-message"]
    assert Path(entry.path).read_bytes().count(b"\r\n") > 10  # really saved with CRLF
    found = codes(entry)
    assert {"SP107", "SP501", "SP504"} <= found
    assert not any(d.severity.value == "error" for d in entry.diagnostics)


def test_broken_yaml_is_skipped_by_the_specification_and_repaired_by_claude_code() -> None:
    spec = by_rel(catalog("agentskills"))[f"{PROJECT}/sql-review"]
    assert spec.status == "skipped" and "SP113" in codes(spec)
    claude = by_rel(catalog("claude-code"))[f"{PROJECT}/sql-review"]
    # Claude Code quotes the value holding ': ' and reads the frontmatter again (SP124, info).
    assert claude.status == "ok" and "SP124" in codes(claude) and "SP113" not in codes(claude)
    assert claude.name == "sql-review"  # the directory name
    assert claude.description and claude.description.endswith("adds or changes a migration file.")


def test_claude_code_only_keys_are_errors_under_the_specification_only() -> None:
    spec = by_rel(catalog("agentskills"))
    claude = by_rel(catalog("claude-code"))
    for folder in ("release-notes", "deploy"):
        assert "SP216" in codes(spec[f"{PROJECT}/{folder}"])
        assert claude[f"{PROJECT}/{folder}"].status == "ok"


def test_release_notes_activates_with_substitution_under_claude_code() -> None:
    cat = catalog("claude-code")
    skill = find_skill(cat, "release-notes")
    result = activate(cat, skill, args="v2.4.0 developers")
    assert result.allowed
    content = result.content
    assert "# Release notes for v2.4.0" in content  # $version (declared argument)
    assert "- Audience: developers" in content  # $audience
    assert "`/release-notes v2.4.0 developers`" in content  # $ARGUMENTS
    assert "git tag --list v2.4.0" in content  # $0
    assert f"{skill.directory}/template.md" in content  # ${CLAUDE_SKILL_DIR}
    assert "$version" not in content and "$0" not in content and "$ARGUMENTS" not in content
    assert not result.appended
    assert {s.kind for s in result.substitutions} >= {
        "named",
        "positional",
        "arguments",
        "variable",
    }
    assert result.fork  # context: fork
    assert result.allowed_tools == ("Bash(git log:*)", "Bash(git tag:*)", "Read")


def test_release_notes_without_audience_leaves_it_empty() -> None:
    cat = catalog("claude-code")
    result = activate(cat, find_skill(cat, "release-notes"), args="v2.4.0")
    assert "- Audience:  (when this is empty, write for users)" in result.content


def test_arguments_are_appended_when_the_body_has_no_placeholder() -> None:
    cat = catalog("claude-code")
    result = activate(cat, find_skill(cat, "pdf-extract"), args='report.pdf "page 3"')
    assert result.appended
    assert result.content.endswith('ARGUMENTS: report.pdf "page 3"')


def test_deploy_is_user_only_under_claude_code() -> None:
    cat = catalog("claude-code")
    deploy = find_skill(cat, "deploy")
    by_model = activate(cat, deploy, args="staging")
    assert not by_model.allowed and "disable-model-invocation" in by_model.refusal
    by_user = activate(cat, deploy, args="staging", invoker="user")
    assert by_user.allowed and "# Deploy to staging" in by_user.content
    assert [cmd for _, cmd in by_user.would_run] == [
        "git rev-parse --abbrev-ref HEAD",
        "git status --short",
    ]
    outcomes = {e.name: e.outcome for e in Tier1Model(cat).compute().entries}
    assert outcomes["deploy"] == "excluded"
    assert outcomes["release-notes"] == "full"


def test_pdf_extract_lists_scripts_references_and_assets() -> None:
    entry = by_rel(catalog("agentskills"))[f"{PROJECT}/pdf-extract"]
    assert entry.status == "ok" and not entry.diagnostics
    groups = list_resources(entry.directory).grouped()
    assert [r.rel_path for r in groups["scripts"]] == ["scripts/extract_tables.py"]
    assert [r.rel_path for r in groups["references"]] == ["references/tables.md"]
    assert [r.rel_path for r in groups["assets"]] == ["assets/table-regions.png"]
    png = Path(entry.directory, "assets", "table-regions.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png.endswith(b"IEND\xaeB`\x82")


def test_valid_skills_say_what_they_do_and_when() -> None:
    for entry in catalog("claude-code").skills:
        if entry.status not in ("ok", "shadowed"):
            continue
        text = f"{entry.description} {entry.frontmatter.get('when_to_use', '')}"
        assert 60 <= len(text) <= 1024, rel(entry)
        assert "use when" in text.lower() or "only for when" in text.lower(), rel(entry)


def test_readme_names_every_demo_skill() -> None:
    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    for folder in AGENTSKILLS_STATES:
        assert f"`{folder.split('/.claude/skills/')[-1]}`" in readme, folder
