"""The shipped runtime profiles: each loads, broken profiles fail with the file and the dotted key,
and each profile resolves a small skill tree the way its runtime does (which copy wins, and the
state of every copy). Trees live under tmp folders; HOME/XDG point at a tmp home (conftest)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.codes import RULES
from skillprism.core.profiles import (
    ProfileError,
    available_profiles,
    load_profile,
    load_profile_file,
)
from skillprism.core.resolve import build_catalog
from skillprism.core.roots import profile_roots
from skillprism.paths import shipped_profiles_dir, user_profiles_dir

SHIPPED = (
    "agentskills",
    "claude-code",
    "codex",
    "gemini-cli",
    "copilot-vscode",
    "opencode",
    "workspace-v1",
    "agent-tiers",
    "pegasus",
    "oh-my-pi",
    "pi",
    "autopoiesis",
    "copilot-cli",
    "cline",
    "roo-code",
    "qwen-code",
    "mistral-vibe",
    "hermes-agent",
    "openclaw",
    "goose",
    "openhands",
    "continue",
    "amp",
    "cursor",
    "windsurf",
    "kiro",
    "junie",
    "factory-droid",
    "kilo-code",
    "opencode-2",
)
DOCS = Path(__file__).resolve().parent.parent / "docs" / "profiles.md"


# --- helpers -------------------------------------------------------------------------------------


def skill(
    root: Path,
    folder: str,
    name: str | bool | None = None,
    description: str | None = "Does a thing. Use when testing.",
    extra: str = "",
    body: str = "# Title\n\nInstructions for the model.\n",
    raw: str | None = None,
) -> Path:
    """Write `<root>/<folder>/SKILL.md`; `name` defaults to the last folder component, and
    `name=False` / `description=None` leave the key out."""
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if raw is None:
        lines = ["---"]
        if name is not False:
            lines.append(f"name: {name if name is not None else Path(folder).name}")
        if description is not None:
            lines.append(f"description: {description}")
        if extra:
            lines.append(extra.rstrip("\n"))
        lines.append("---")
        raw = "\n".join(lines) + "\n" + body
    path.write_text(raw, encoding="utf-8")
    return path


def resolve(profile: str, project: Path, home: Path, env: dict[str, str] | None = None) -> Catalog:
    return build_catalog(load_profile(profile), project=str(project), home=str(home), env=env or {})


def entry(catalog: Catalog, path: Path) -> SkillEntry:
    by_key = catalog.by_key()
    assert str(path) in by_key, f"{path} not in {sorted(by_key)}"
    return by_key[str(path)]


def codes(e: SkillEntry) -> set[str]:
    return {d.code for d in e.diagnostics}


def code(rule: str) -> str:
    return RULES[rule].code


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """(project, home) folders; the project is a repository root (it holds .git)."""
    project = tmp_path / "work" / "repo"
    home = tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    return project, home


# --- loading -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_profile_loads(name: str) -> None:
    profile = load_profile(name)
    assert profile.name == name
    assert (shipped_profiles_dir() / f"{name}.toml").is_file()
    assert profile.title and profile.summary
    assert profile.sources, "every profile cites its sources"
    assert profile.roots, "every profile names its roots"
    text = (shipped_profiles_dir() / f"{name}.toml").read_text(encoding="utf-8")
    assert text.lstrip().startswith("#"), "profiles start with a comment that explains them"


def test_shipped_set_is_complete() -> None:
    assert set(SHIPPED) <= set(available_profiles())


def test_docs_cover_every_key_the_shipped_profiles_use() -> None:
    import tomllib

    docs = DOCS.read_text(encoding="utf-8")
    keys: set[str] = set()
    for name in SHIPPED:
        data = tomllib.loads((shipped_profiles_dir() / f"{name}.toml").read_text(encoding="utf-8"))
        for key, value in data.items():
            keys.add(key)
            if key in ("discovery", "precedence", "frontmatter", "tier2", "settings"):
                keys.update(value)
            if key == "tier1":
                keys.update(k for k in value if k not in ("budget", "styles"))
                keys.update(value.get("budget", {}))
            if key == "roots":
                for root in value:
                    keys.update(root)
    spelled = ("`{}`", "`[{}]`", "`[[{}]]`")
    missing = sorted(k for k in keys if not any(form.format(k) in docs for form in spelled))
    assert not missing, f"docs/profiles.md does not document {missing}"
    for name in SHIPPED:
        assert f"`{name}`" in docs, f"docs/profiles.md has no row for {name}"


GOOD = """
schema = 1
name = "mine"
[discovery]
layout = "one-level"
[[roots]]
scope = "project"
path = "{project}/.mine/skills"
[precedence]
rule = "first-wins"
[rules]
unknown-field = "warning"
"""


def _write(tmp_path: Path, text: str, name: str = "broken.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_minimal_user_profile_loads(tmp_path: Path) -> None:
    profile = load_profile_file(_write(tmp_path, GOOD, "mine.toml"))
    assert profile.name == "mine" and profile.roots[0].walk == "up"


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (('layout = "one-level"', "layout = 1"), "discovery.layout"),
        (('layout = "one-level"', 'layout = "one-level"\nmax_depth = "6"'), "discovery.max_depth"),
        (('layout = "one-level"', 'layout = "one-level"\ncolour = "blue"'), "discovery.colour"),
        (('rule = "first-wins"', 'rule = "random-wins"'), "precedence.rule"),
        (('layout = "one-level"', 'layout = "two-level"'), "discovery.layout"),
        (('unknown-field = "warning"', 'no-such-rule = "warning"'), "rules.no-such-rule"),
        (('unknown-field = "warning"', 'unknown-field = "explode"'), "rules.unknown-field.action"),
        (('path = "{project}/.mine/skills"', 'path = "x"\nwalk = "sideways"'), "roots[0].walk"),
        (('path = "{project}/.mine/skills"', 'path = "x"\nplace = "here"'), "roots[0].place"),
        (('rule = "first-wins"', 'rule = "first-wins"\n[fields]\nx = "number"'), "fields.x"),
        (("schema = 1", "schema = 2"), "schema"),
        (('name = "mine"', "title = 'no name'"), "name"),
        (("schema = 1", "schema = 1\nsurprise = true"), "surprise"),
    ],
)
def test_broken_profile_names_file_and_key(
    tmp_path: Path, change: tuple[str, str], key: str
) -> None:
    old, new = change
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(ProfileError) as err:
        load_profile_file(path)
    message = str(err.value)
    assert str(path) in message
    assert f"'{key}'" in message, message


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD + "\n[discovery\n")
    with pytest.raises(ProfileError, match=re.escape(str(path)) + ".*not valid TOML"):
        load_profile_file(path)


def test_profile_by_path_and_from_the_user_folder(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD, "mine.toml")
    assert load_profile(str(path)).name == "mine"
    folder = user_profiles_dir()
    folder.mkdir(parents=True)
    (folder / "team.toml").write_text(GOOD.replace('"mine"', '"team"'), encoding="utf-8")
    assert "team" in available_profiles()
    assert load_profile("team").name == "team"


# --- Claude Code ---------------------------------------------------------------------------------


def test_claude_code_personal_beats_project(tree: tuple[Path, Path]) -> None:
    project, home = tree
    personal = skill(home / ".claude/skills", "deploy")
    local = skill(project / ".claude/skills", "deploy")
    cat = resolve("claude-code", project, home)
    assert entry(cat, personal).status == "ok"
    shadowed = entry(cat, local)
    assert shadowed.status == "shadowed" and shadowed.shadowed_by == str(personal)
    assert code("shadowed") in codes(shadowed)


def test_claude_code_walks_up_to_the_repository_root(tree: tuple[Path, Path]) -> None:
    project, home = tree
    cwd = project / "apps" / "web"
    cwd.mkdir(parents=True)
    at_root = skill(project / ".claude/skills", "lint")
    nearer = skill(project / "apps/.claude/skills", "lint")
    only_root = skill(project / ".claude/skills", "format")
    outside = skill(project.parent / ".claude/skills", "beyond")  # above the repository root
    cat = resolve("claude-code", cwd, home)
    assert entry(cat, nearer).status == "ok"  # nearest wins (assumed, listed in the profile)
    assert entry(cat, at_root).status == "shadowed"
    assert entry(cat, only_root).status == "ok"
    assert str(outside) not in cat.by_key()


def test_claude_code_lenient_frontmatter(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / ".claude/skills"
    broken = skill(root, "broken", raw="---\nname: [unclosed\n---\nFirst paragraph here.\n")
    named = skill(root, "by-dir", name="Other Name", description=None, body="Say hi.\n")
    cat = resolve("claude-code", project, home)
    b = entry(cat, broken)
    assert b.status == "warning" and b.name == "broken"  # loads with empty metadata
    n = entry(cat, named)
    assert n.name == "by-dir" and n.description == "Say hi."  # directory name, first paragraph
    assert n.status == "warning"


def test_claude_code_plugins_are_namespaced(tree: tuple[Path, Path]) -> None:
    project, home = tree
    plugin = home / ".claude/plugins/cache/market/tools/1.0.0"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "tools"}))
    from_plugin = skill(plugin / "skills", "deploy")
    personal = skill(home / ".claude/skills", "deploy")
    # installed as Claude Code installs it: recorded, enabled, from a known marketplace
    plugins = home / ".claude/plugins"
    (plugins / "installed_plugins.json").write_text(
        json.dumps({"version": 2, "plugins": {"tools@market": [{"installPath": str(plugin)}]}})
    )
    (plugins / "known_marketplaces.json").write_text(
        json.dumps({"market": {"source": {"source": "github", "repo": "o/r"}}})
    )
    (home / ".claude/settings.json").write_text(
        json.dumps({"enabledPlugins": {"tools@market": True}})
    )
    cat = resolve("claude-code", project, home)
    assert entry(cat, from_plugin).qualified_name == "tools:deploy"
    assert entry(cat, from_plugin).status == "ok"
    assert entry(cat, personal).status == "ok"


# --- Codex ---------------------------------------------------------------------------------------


def test_codex_recursive_scan_skips_hidden_and_deep(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = home / ".agents/skills"
    deep_ok = skill(root, "team/tools/fmt")
    hidden = skill(root, ".drafts/secret")
    too_deep = skill(root, "a/b/c/d/e/f/g")
    cat = resolve("codex", project, home)
    assert entry(cat, deep_ok).status == "ok"
    assert entry(cat, hidden).status == "not-discovered"
    assert entry(cat, too_deep).status == "not-discovered"


def test_codex_keeps_both_same_name_skills(tree: tuple[Path, Path]) -> None:
    project, home = tree
    repo_copy = skill(project / ".agents/skills", "review")
    user_copy = skill(home / ".agents/skills", "review")
    cat = resolve("codex", project, home)
    for path in (repo_copy, user_copy):
        e = entry(cat, path)
        assert e.status == "warning" and not e.shadowed_by
        assert code("kept-both") in codes(e)
    assert len(cat.winners()) == 2


def test_codex_rules(tree: tuple[Path, Path]) -> None:
    project, home = tree
    codex_home = home / "codex-home"
    root = project / ".agents/skills"
    no_desc = skill(root, "no-desc", description=None)
    long_name = skill(root, "long", name="x" * 65)
    defaulted = skill(root, "Any_Name", name=False, extra="owner: me")
    system = skill(codex_home / "skills/.system", "builtin-helper")
    cat = resolve("codex", project, home, {"CODEX_HOME": str(codex_home)})
    assert entry(cat, no_desc).status == "skipped"
    assert entry(cat, long_name).status == "skipped"
    d = entry(cat, defaulted)
    assert d.name == "Any_Name" and d.status == "ok"  # no charset check, unknown key ignored
    s = entry(cat, system)  # hidden below $CODEX_HOME/skills, but a root of its own
    assert s.status == "ok" and s.root.scope == "system"


# --- Gemini CLI ----------------------------------------------------------------------------------


def test_gemini_last_wins_with_its_warning(tree: tuple[Path, Path]) -> None:
    project, home = tree
    user_copy = skill(home / ".gemini/skills", "search")
    workspace_copy = skill(project / ".agents/skills", "search")
    cat = resolve("gemini-cli", project, home)
    assert entry(cat, workspace_copy).status == "ok"
    loser = entry(cat, user_copy)
    assert loser.status == "shadowed"
    messages = [d.message for d in loser.diagnostics if d.code == code("shadowed")]
    assert messages == [
        f'Skill conflict detected: "search" from "{workspace_copy}" is overriding the same '
        f'skill from "{user_copy}".'
    ]


def test_gemini_sanitises_names_and_falls_back(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / ".gemini/skills"
    sanitised = skill(root, "ns-tool", name='"ns:tool"')
    colon = skill(root, "colon", description="Use when: the user asks: twice")
    at_root = skill(root, ".", name="top")
    cat = resolve("gemini-cli", project, home)
    s = entry(cat, sanitised)
    assert s.name == "ns-tool" and code("name-sanitized") in codes(s)
    c = entry(cat, colon)
    assert c.status == "warning" and c.description == "Use when: the user asks: twice"
    assert entry(cat, at_root).status == "ok"  # SKILL.md directly in a root


# --- Copilot in VS Code --------------------------------------------------------------------------


def test_copilot_silently_skips_invalid_names(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / ".github/skills"
    good = skill(root, "good-skill")
    upper = skill(root, "Bad-Name")
    mismatch = skill(root, "folder", name="other")
    cat = resolve("copilot-vscode", project, home)
    assert entry(cat, good).status == "ok"
    for path in (upper, mismatch):
        e = entry(cat, path)
        assert e.status == "skipped"
        assert any("silently" in d.effect for d in e.diagnostics)


def test_copilot_project_beats_personal_assumed(tree: tuple[Path, Path]) -> None:
    project, home = tree
    personal = skill(home / ".copilot/skills", "docs")
    local = skill(project / ".agents/skills", "docs")
    cat = resolve("copilot-vscode", project, home)
    assert entry(cat, local).status == "ok"
    assert entry(cat, personal).status == "shadowed"
    assert any("unverified" in a or "assume" in a for a in cat.profile.assumptions)


# --- OpenCode ------------------------------------------------------------------------------------


def test_opencode_last_loaded_wins_up_the_walk(tree: tuple[Path, Path]) -> None:
    project, home = tree
    cwd = project / "pkg"
    cwd.mkdir()
    global_copy = skill(home / ".claude/skills", "tidy")
    nearer = skill(cwd / ".claude/skills", "tidy")
    at_root = skill(project / ".claude/skills", "nested/tidy")  # recursive: any depth
    cat = resolve("opencode", cwd, home)
    # Walked up last, so loaded last: the likely winner. OpenCode parses the copies concurrently
    # (winner = "varies"), so no copy is certain: each carries clash-winner-varies.
    winner = entry(cat, at_root)
    assert winner.loaded and winner.status == "warning"
    for path in (at_root, nearer, global_copy):
        assert any(
            d.code == RULES["clash-winner-varies"].code for d in entry(cat, path).diagnostics
        )
    for path in (nearer, global_copy):
        e = entry(cat, path)
        assert e.status == "shadowed" and e.reason.startswith("probably shadowed")
        assert any("duplicate skill name" in d.message for d in e.diagnostics)


def test_opencode_requires_name_and_description(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / ".opencode/skills"
    ok = skill(root, "fine", name="Fine Name")
    no_desc = skill(root, "no-desc", description=None)
    no_name = skill(root, "no-name", name=False)
    cat = resolve("opencode", project, home)
    assert entry(cat, ok).status == "ok" and entry(cat, ok).name == "Fine Name"
    # opencode-ai 1.18.33 loads a skill without a description (only tier 1 leaves it out)...
    assert entry(cat, no_desc).status == "warning"
    # ...but silently drops one without a string name.
    assert entry(cat, no_name).status == "skipped"


# --- workspace skill pipeline V1 -----------------------------------------------------------------


def test_workspace_v1_fallback_parse_and_last_wins(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / "skills"
    first = skill(root, "alpha", name="dup")
    last = skill(root, "zeta", name="dup")
    colon = skill(root, "colon", description="Survey: read the repo: then act")
    no_name = skill(root, "anon", name=False)
    cat = resolve("workspace-v1", project, home)
    assert entry(cat, last).status == "ok"
    assert entry(cat, first).status == "shadowed"
    c = entry(cat, colon)
    assert c.status == "warning" and c.description == "Survey: read the repo: then act"
    assert code("yaml-fallback") in codes(c)
    assert entry(cat, no_name).status == "skipped"


# --- three-tier context provider -----------------------------------------------------------------


def test_agent_tiers_strict_schema(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / ".agent/skills"
    good = skill(root, "tidy")
    extra = skill(root, "extra", extra="triggers: [a]")
    mismatch = skill(root, "folder", name="other")
    user_copy = skill(home / ".agent/skills", "tidy")
    cat = resolve("agent-tiers", project, home)
    assert entry(cat, good).status == "ok"
    assert entry(cat, user_copy).status == "shadowed"  # project over user (assumed)
    e = entry(cat, extra)
    assert e.status == "error" and code("unknown-field") in codes(e)
    assert entry(cat, mismatch).status == "error"


# --- Pegasus -------------------------------------------------------------------------------------


def test_pegasus_user_overrides_builtin(tree: tuple[Path, Path]) -> None:
    project, home = tree
    builtin = skill(project / "skills", "code-review")
    user = skill(project / "data/skills", "code-review")
    cat = resolve("pegasus", project, home)
    assert entry(cat, user).status == "ok"
    assert entry(cat, builtin).status == "shadowed"


def test_pegasus_fields(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / "skills"
    defaults = skill(root, "commit", name=False, description=None, body="Commit things.\n")
    spaces = skill(root, "spaces", extra="allowed-tools: read_file grep_files")
    bad_context = skill(root, "bad-context", extra="context: background")
    fork = skill(root, "fork", extra="context: fork\nallowed-tools: read_file, grep_files")
    cat = resolve("pegasus", project, home)
    d = entry(cat, defaults)
    assert (d.name, d.description, d.status) == ("commit", "Commit things.", "ok")
    assert code("allowed-tools-form") in codes(entry(cat, spaces))
    assert entry(cat, bad_context).status == "error"
    assert entry(cat, fork).status == "ok"


# --- oh-my-pi ------------------------------------------------------------------------------------


def test_oh_my_pi_first_wins_by_provider_priority(tree: tuple[Path, Path]) -> None:
    project, home = tree
    native = skill(project / ".omp/skills", "pdf")
    claude = skill(project / ".claude/skills", "pdf")
    agents = skill(home / ".agents/skills", "pdf")
    nested = skill(project / ".omp/skills", "team/internal")
    kept = skill(project / ".claude/skills", "globbed", extra="globs: ['*.py']\nowner: me")
    cat = resolve("oh-my-pi", project, home)
    assert entry(cat, native).status == "ok"
    assert entry(cat, claude).status == "shadowed"
    assert entry(cat, agents).status == "shadowed"
    assert entry(cat, nested).status == "not-discovered"
    assert entry(cat, kept).status == "ok"  # unknown keys kept as metadata


# --- autopoiesis ---------------------------------------------------------------------------------


def test_autopoiesis_required_metadata_and_custom_wins(tree: tuple[Path, Path]) -> None:
    project, home = tree
    workspace = home / "ws"
    meta = "metadata:\n  version: 1.0.0\n  tags:\n    - skills"
    complete = skill(project / "skills", "skillmaker", extra=meta)
    missing = skill(project / "skills", "deep/no-meta")  # recursive scan
    no_name = skill(project / "skills", "anon", name=False, extra=meta)
    yaml11 = skill(project / "skills", "flag", name="no", extra=meta)  # yaml.safe_load: False
    shipped = skill(project / "skills", "shared", extra=meta)
    custom = skill(workspace / "skills", "shared", extra=meta)
    cat = resolve("autopoiesis", project, home, {"AGENT_WORKSPACE_ROOT": str(workspace)})
    assert entry(cat, complete).status == "ok"
    m = entry(cat, missing)
    assert m.status == "error" and code("required-metadata") in codes(m)
    assert entry(cat, no_name).status == "skipped"
    assert entry(cat, yaml11).status == "skipped"
    assert entry(cat, custom).status == "ok"
    assert entry(cat, shipped).status == "shadowed"


# --- roots and ranks -----------------------------------------------------------------------------


def test_walk_order_and_tie_rule_decide_ranks(tree: tuple[Path, Path]) -> None:
    project, home = tree
    cwd = project / "sub"
    cwd.mkdir()
    ranks = {
        r.path: r.rank
        for r in profile_roots(load_profile("opencode"), str(cwd), str(home), {})
        if r.path.endswith(".claude/skills") and r.scope == "project"
    }
    # OpenCode loads the working folder first and keeps the last: the repository root ranks first.
    assert ranks[str(project / ".claude/skills")] < ranks[str(cwd / ".claude/skills")]
    codex = {
        r.path: r.rank
        for r in profile_roots(load_profile("codex"), str(cwd), str(home), {})
        if r.path.endswith(".agents/skills") and r.scope == "repo"
    }
    # Codex walks down from the project root: the root comes first.
    assert codex[str(project / ".agents/skills")] < codex[str(cwd / ".agents/skills")]


@pytest.mark.parametrize(
    ("table", "extra"),
    [
        ("tier1", 'entry = "- {nam}"'),
        ("tier1", 'entry = "- {name!z}"'),
        ("tier1", 'header = "{"'),
        ("tier2", 'wrapper = "{nme}"'),
        ("tier2", 'model_refusal = "no {skill}"'),
        ("precedence", 'warning = "{nope} wins"'),
        ("tier1.budget", 'warning = "{dropped:>5} gone"'),
    ],
)
def test_broken_templates_fail_when_the_profile_loads(tmp_path, table, extra) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.toml"
    path.write_text(f'schema = 1\nname = "bad"\n[{table}]\n{extra}\n', encoding="utf-8")
    with pytest.raises(ProfileError) as err:
        load_profile_file(path)
    assert str(err.value).startswith(f"{path}: key '{table}.")


@pytest.mark.parametrize("root", ["{projct}/.x/skills", "{env:HOME/.x", "{home/.x}"])
def test_broken_root_templates_fail_when_the_profile_loads(tmp_path, root) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.toml"
    path.write_text(
        f'schema = 1\nname = "bad"\n[[roots]]\nscope = "x"\npath = "{root}"\n', encoding="utf-8"
    )
    with pytest.raises(ProfileError, match=r"roots\[0\]\.path"):
        load_profile_file(path)


def test_docs_cover_every_key_the_parser_reads(monkeypatch) -> None:
    """Every key `parse_profile` asks for (with its default, so absent keys count too) has a row
    in docs/profiles.md: a new schema key cannot go undocumented."""
    from skillprism.core import profiles as prof

    asked: set[str] = set()
    real_get, real_strings = prof._Reader.get, prof._Reader.strings

    def get(self, k, *args, **kwargs):
        asked.add(k)
        return real_get(self, k, *args, **kwargs)

    def strings(self, k, *args, **kwargs):
        asked.add(k)
        return real_strings(self, k, *args, **kwargs)

    monkeypatch.setattr(prof._Reader, "get", get)
    monkeypatch.setattr(prof._Reader, "strings", strings)
    data = tomllib.loads(
        'schema = 1\nname = "all"\n[[roots]]\nscope = "p"\npath = "{project}/x"\n'
        '[[tier1.builtin]]\nname = "b"\ndescription = "d"\n'
    )
    prof.parse_profile(data, "all.toml")
    docs = DOCS.read_text(encoding="utf-8")
    structural = {"budget", "styles", "parts", "files", "keys", "env", "variables"}
    missing = sorted(
        k
        for k in asked - structural
        if not any(
            form.format(k) in docs
            for form in ("`{}`", "`[{}]`", "`[[{}]]`", "`[tier1.{}]`", "`[[tier1.{}]]`")
        )
    )
    assert not missing, f"docs/profiles.md does not document {missing}"


def test_js_string_reads_values_as_javascript_writes_them() -> None:
    from skillprism.core.js_values import js_string

    assert js_string(12345) == "12345"
    assert js_string(True) == "true"
    assert js_string(1.0) == "1"
    assert js_string(1.5) == "1.5"
    assert js_string(1e-7) == "1e-7"
    assert js_string(0.00001) == "0.00001"  # Number.prototype.toString: no exponent from 1e-6
    assert js_string(1e21) == "1e+21"
    assert js_string(12345678901234567890) == "12345678901234567000"  # beyond 2**53: a double
    assert js_string(10**400) == "Infinity"
    assert js_string([{"a": 1}]) is None
    assert js_string(float("inf")) == "Infinity"
    assert js_string(["a", 2, None, [True]]) == "a,2,,true"
    assert js_string({"a": 1}) is None  # the yaml package's mappings make String() throw


def test_name_pattern_and_non_strings_from_a_profile(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from skillprism.core.profiles import ProfileError, load_profile_file
    from skillprism.core.resolve import build_catalog

    prof = tmp_path / "p.toml"
    prof.write_text(
        'schema = 1\nname = "t"\ntitle = "T"\n[frontmatter]\ntyping = "core"\n'
        "name_pattern = '^[a-z0-9:]+$'\nnon_strings = \"js-string\"\n"
        '[fields]\nname = "string"\ndescription = "string"\n'
        '[rules]\nname-characters = "skip"\nname-not-string = "warning"\n'
        'description-not-string = "warning"\n',
        encoding="utf-8",
    )
    root = tmp_path / "skills"
    for folder, front in (
        ("ok", "name: a:b\ndescription: 42"),
        ("num", "name: 12345\ndescription: [one, two]"),
        ("bad", "name: A_b\ndescription: d"),
    ):
        (root / folder).mkdir(parents=True)
        (root / folder / "SKILL.md").write_text(f"---\n{front}\n---\nbody\n", encoding="utf-8")
    skills = {
        s.path.split("/")[-2]: s for s in build_catalog(load_profile_file(prof), [str(root)]).skills
    }
    assert (skills["ok"].name, skills["ok"].description) == ("a:b", "42")
    assert (skills["num"].name, skills["num"].description) == ("12345", "one,two")
    assert skills["bad"].status == "skipped"
    prof.write_text(prof.read_text().replace("^[a-z0-9:]+$", "^[a-z"), encoding="utf-8")
    with pytest.raises(ProfileError, match="name_pattern"):
        load_profile_file(prof)


# --- levels: derived from the lab's recorded results ----------------------------------------------


def _record(**over):  # type: ignore[no-untyped-def]
    from skillprism.core.lab_results import DivergenceGroup, LabRecord

    base = dict(
        runtime="x",
        release="1.0",
        profile="x",
        ran_on="2026-11-27",
        cases=150,
        files=500,
        facts_only=False,
        agree={"loaded": 500},
        total={"loaded": 500},
        tier1_not_obtainable=0,
        groups=(),
    )
    groups = over.pop("groups", ())
    base.update(over)
    base["groups"] = tuple(
        DivergenceGroup(kind, "tier1", reason, ("c1",), 1) for kind, reason in groups
    )
    return LabRecord(**base)


def test_the_level_is_derived_from_the_kind_of_every_difference_left() -> None:
    from skillprism.core.lab_results import derive_level

    assert derive_level(_record(), "1.0").level == "verified"
    inherent = _record(groups=[("nondeterminism", "glob order"), ("interface", "no tier 1")])
    assert derive_level(inherent, "1.0") == derive_level(_record(), "1.0")
    gap = derive_level(_record(groups=[("schema-gap", "round-robin cut")]), "1.0")
    assert gap.level == "partial" and gap.summary == "1 schema gap"
    assert "round-robin cut" in gap.held_back[0] and "c1" in gap.held_back[0]
    mixed = _record(groups=[("assumption", "a"), ("lab", "b"), ("unlisted", ""), ("lab", "c")])
    assert derive_level(mixed, "1.0").summary == (
        "1 unexplained difference, 1 profile assumption, 2 lab limitations"
    )
    facts = derive_level(_record(facts_only=True, limit="only in a session"), "1.0")
    assert facts.level == "partial" and facts.held_back == ("only in a session",)
    other = derive_level(_record(), "2.0")
    assert other.level == "documented" and "release 1.0" in other.held_back[0]
    assert derive_level(_record(), "2026-08 (reference validator x 1.0)").level == "verified"
    assert derive_level(_record(), "1.0.1").level == "documented"
    assert derive_level(_record(error="boom"), "1.0").level == "documented"


def test_a_profile_file_cannot_write_a_lab_level(tmp_path: Path) -> None:
    for level in ("verified", "partial"):
        path = _write(tmp_path, GOOD + f'[runtime]\nrelease = "1"\nlevel = "{level}"\n')
        with pytest.raises(ProfileError, match=r"'runtime\.level'.*derived from the conformance"):
            load_profile_file(path)
    path = _write(tmp_path, GOOD + '[runtime]\nrelease = "1"\nlevel = "documented"\n', "d.toml")
    runtime = load_profile_file(path).runtime
    assert runtime.level == "documented" and runtime.level_source == "profile"
    assert "not run by the lab" in runtime.provenance("Mine")


def _lab_results() -> dict:  # type: ignore[type-arg]
    from skillprism.core.lab_results import results_path

    return json.loads(results_path().read_text(encoding="utf-8"))


def test_every_lab_runtime_has_recorded_results_for_its_profiles_release() -> None:
    import sys

    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    from conformance.runtimes import RUNTIMES
    from skillprism.core.lab_results import release_matches

    records = {r["runtime"]: r for r in _lab_results()["runtimes"]}
    assert sorted(records) == sorted(RUNTIMES)
    for name, rt in RUNTIMES.items():
        record = records[name]
        assert record["release"] == rt.release, name
        assert record["profile"] == rt.profile
        assert release_matches(load_profile(rt.profile).runtime.release, rt.release), name
        assert not record["error"], (name, record["error"])


@pytest.mark.parametrize("name", SHIPPED)
def test_each_profiles_level_is_the_one_its_recorded_results_give(name: str) -> None:
    """The rule, applied here to the committed results file on its own: verified when every
    difference recorded for the profile's release is nondeterminism or an interface limit and
    the loader ran; partial otherwise; the profile's own level when the lab does not run it."""
    profile = load_profile(name)
    records = [r for r in _lab_results()["runtimes"] if r["profile"] == name]
    if not records:
        assert profile.runtime.level in ("documented", "specified")
        assert profile.runtime.level_source == "profile" and profile.runtime.held_back
        return
    (record,) = records
    blocking = [
        g for g in record["divergences"] if g["kind"] not in ("nondeterminism", "interface")
    ]
    expected = "partial" if blocking or record["facts_only"] else "verified"
    assert profile.runtime.level == expected, (name, blocking[:3])
    assert profile.runtime.level_source == "lab"
    assert profile.runtime.verified_on == record["ran_on"]
    assert len(profile.runtime.held_back) == len(blocking) + int(record["facts_only"])
    if expected == "partial":
        assert profile.runtime.held_back_summary in profile.provenance


def test_recorded_results_agree_with_the_known_divergences() -> None:
    """Every recorded group of differences carries the kind and reason its entry in
    conformance/known-divergences.toml has now: editing an entry means running the lab again."""
    known = tomllib.loads(
        (
            Path(__file__).resolve().parent.parent / "conformance" / "known-divergences.toml"
        ).read_text(encoding="utf-8")
    )["divergence"]

    def field(k: dict) -> str:  # type: ignore[type-arg]
        return ", ".join([k["field"]] if isinstance(k["field"], str) else k["field"])

    by_reason = {(k["reason"], field(k)): k["kind"] for k in known}
    for record in _lab_results()["runtimes"]:
        for group in record["divergences"]:
            if group["kind"] == "unlisted":
                continue
            assert by_reason.get((group["reason"], group["field"])) == group["kind"], (
                record["runtime"],
                group["reason"][:80],
            )


def test_the_sheet_and_the_one_line_name_what_keeps_a_profile_from_the_next_level() -> None:
    from skillprism.core.profile_sheet import profile_sheet, profile_sheet_markdown

    for name in available_profiles():
        profile = load_profile(name)
        sheet = profile_sheet(profile)
        text = profile_sheet_markdown(profile)
        if profile.runtime.level == "verified":
            assert not sheet["held_back"] and "What keeps it" not in text
            continue
        assert sheet["held_back"] and f"## What keeps it from {sheet['next_level']}" in text
        for why in sheet["held_back"]:
            assert why in text


# --- schema keys the lab's held-out differences needed -------------------------------------------


def _profile(tmp_path: Path, extra: str, name: str = "t") -> Path:
    return _write(tmp_path, f'schema = 1\nname = "{name}"\n{extra}', f"{name}.toml")


def test_a_root_can_skip_hidden_folders_on_its_own(tree: tuple[Path, Path]) -> None:
    project, home = tree
    prof = load_profile("opencode")
    a = skill(project / ".claude/skills", ".hidden-a", "hidden-a")
    b = skill(project / ".opencode/skills", ".hidden-b", "hidden-b")
    c = skill(project / ".opencode/skills", "visible", "visible")
    catalog = build_catalog(prof, project=str(project), home=str(home), env={})
    assert entry(catalog, a).loaded and entry(catalog, c).loaded
    assert entry(catalog, b).status == "not-discovered"
    assert "hidden folder" in entry(catalog, b).reason


def test_gemini_loads_one_roots_folders_in_descending_order(tree: tuple[Path, Path]) -> None:
    project, home = tree
    root = project / ".gemini/skills"
    first = skill(root, "a-first", "same", "From a-first.")
    last = skill(root, "z-last", "same", "From z-last.")
    catalog = resolve("gemini-cli", project, home)
    # glob 12 walks z..a, and the copy loaded last (a-first) wins: a fixed pick, not a varying one
    assert entry(catalog, first).loaded and entry(catalog, last).status == "shadowed"
    assert code("clash-winner-varies") not in codes(entry(catalog, first))


def test_unclosed_frontmatter_runs_to_the_end_for_gray_matter(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    ok = skill(root, "ok", raw="---\nname: ok\ndescription: Never closed.\n")
    bad = skill(root, "bad", raw="---\nname: bad\ndescription: Never closed.\n\n# Body\n\nText.\n")
    plain = load_profile_file(_profile(tmp_path, "", "plain"))
    gray = load_profile_file(
        _profile(
            tmp_path,
            '[frontmatter]\nunclosed = "to-end"\n[rules]\nfrontmatter-unclosed = "warning"\n',
            "gray",
        )
    )
    by = {p.name: {s.path: s for s in build_catalog(p, [str(root)]).skills} for p in (plain, gray)}
    assert by["plain"][str(ok)].status == "skipped"
    assert by["gray"][str(ok)].loaded and by["gray"][str(ok)].description == "Never closed."
    assert by["gray"][str(bad)].status == "skipped"  # '# Body' then 'Text.': not YAML


def test_js_yaml3_tab_indents(tmp_path: Path) -> None:
    from skillprism.core.reading import js_yaml3_tab_indents

    assert js_yaml3_tab_indents("a: 1\nm:\n\tk: v\n  \t x: y") == "a: 1\nm:\nk: v\n  x: y"
    assert js_yaml3_tab_indents("\tname: x\n\tdescription: y") == "\tname: x\ndescription: y"
    root = tmp_path / "skills"
    tabbed = skill(root, "tabbed", extra="metadata:\n\tauthor: lab")
    prof = load_profile_file(
        _profile(tmp_path, '[frontmatter]\nyaml_repair = ["tab-indents-js-yaml3"]\n', "js3")
    )
    (s,) = build_catalog(prof, [str(root)]).skills
    assert s.path == str(tabbed) and s.loaded and s.frontmatter["author"] == "lab"
    (s,) = build_catalog(load_profile_file(_profile(tmp_path, "", "y12")), [str(root)]).skills
    assert s.status == "skipped"  # YAML itself refuses a tab in indentation


def test_a_recursive_root_may_leave_its_own_skill_file_unread(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    top = skill(tmp_path, "skills", "top")
    below = skill(root, "below", "below")
    text = '[discovery]\nlayout = "recursive"\nroot_file = false\n'
    text += f'[[roots]]\nscope = "p"\npath = "{root}"\n'
    prof = load_profile_file(_profile(tmp_path, text, "droid"))
    catalog = build_catalog(prof, project=str(tmp_path), home=str(tmp_path), env={})
    assert entry(catalog, below).loaded
    assert entry(catalog, top).status == "not-discovered"
    assert "only in the folders below" in entry(catalog, top).reason


def test_framing_keys_for_continue_vibe_and_cline(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    comment = skill(
        root, "comment", raw="<!-- x -->\n---\nname: comment\ndescription: D.\n---\nB\n"
    )
    keep = skill(root, "keep", raw="---\nname: keep\ndescription: |+\n  K\n\n---\nB\n")
    bare = root / "bare" / "SKILL.md"
    bare.parent.mkdir(parents=True)
    bare.write_bytes(b"---\rname: other\rdescription: D.\r---\rBody\r")
    plain = load_profile_file(_profile(tmp_path, "[frontmatter]\ntrim = []\n", "plain"))
    tuned = load_profile_file(
        _profile(
            tmp_path,
            '[frontmatter]\nbefore_opener = "anything"\nkeep_last_line_break = true\n'
            'bare_cr = "text"\nname_default = "directory"\ntrim = []\n'
            '[rules]\nno-frontmatter = "warning"\ndescription-missing = "warning"\n',
            "tuned",
        )
    )
    by = {p.name: {s.path: s for s in build_catalog(p, [str(root)]).skills} for p in (plain, tuned)}
    assert by["plain"][str(comment)].status == "skipped"
    assert by["tuned"][str(comment)].loaded and by["tuned"][str(comment)].description == "D."
    assert by["plain"][str(keep)].description == "K\n"
    assert by["tuned"][str(keep)].description == "K\n\n"
    # bare CR line ends: read as lines by default, no frontmatter for a runtime that needs \n
    assert by["plain"][str(bare)].name == "other"
    assert by["tuned"][str(bare)].name == "bare" and not by["tuned"][str(bare)].description
