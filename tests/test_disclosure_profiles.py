"""The shipped profiles' disclosure data ([tier1], [tier1.budget], [tier2], [settings]) against the
verbatim formats, budgets and worked examples in docs/runtime-formats.md."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillprism.cli import main
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.profiles import available_profiles, load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.runtime_settings import apply_runtime_settings

DOC = (Path(__file__).resolve().parents[1] / "docs" / "runtime-formats.md").read_text(
    encoding="utf-8"
)
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
    "autopoiesis",
)


def skill(root: Path, name: str, description: str, extra: str = "") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nDo it.\n",
        encoding="utf-8",
    )
    return d / "SKILL.md"


def without_builtins(profile):  # type: ignore[no-untyped-def]
    """The profile as if the runtime had no built-in skills: the format and budget tests below
    look at the listing of the skills they write (the built-in ones have tests of their own)."""
    from dataclasses import replace

    t1 = replace(profile.disclosure.tier1, builtin=())
    return replace(profile, disclosure=replace(profile.disclosure, tier1=t1))


def model(profile: str, *dirs: Path, builtins: bool = False) -> Tier1Model:
    prof = load_profile(profile)
    prof = prof if builtins else without_builtins(prof)
    return Tier1Model(build_catalog(prof, [str(d) for d in dirs]))


def two_skills(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "skills"
    a = skill(root, "alpha", "Extract text from PDF files.")
    b = skill(root, "beta", "Review code changes.")
    return root, a, b


def test_every_shipped_profile_has_disclosure_data() -> None:
    assert set(SHIPPED) <= set(available_profiles())
    for name in SHIPPED:
        d = load_profile(name).disclosure
        assert d.tier2.mechanism != "read the SKILL.md file", name  # not the default
        assert d.tier2.guidance_tokens == 5000, name
        assert "{name}" in d.tier1.entry and "{name}" in d.tier1.entry_name_only, name


# --- Claude Code -----------------------------------------------------------------------------------


def test_claude_code_listing_is_the_skill_listing_attachment(tmp_path: Path) -> None:
    root, _a, _b = two_skills(tmp_path)
    skill(root, "gamma", "User only.", "disable-model-invocation: true\n")
    skill(root, "delta", "Deploys.", "when_to_use: When shipping.\n")
    r = model("claude-code", root).compute()
    # the default model's form (claude-opus-5-5): folded into a system turn, no wrapper
    assert r.text == (
        "The following skills are available for use with the Skill tool:\n"
        "\n"
        "- alpha: Extract text from PDF files.\n"
        "- beta: Review code changes.\n"
        "- delta: Deploys. - When shipping."
    )
    assert "The following skills are available for use with the Skill tool:" in DOC
    assert {e.name: e.outcome for e in r.entries}["gamma"] == "excluded"
    # the bundled skills 2.1.330 lists with default settings come after yours
    # (at the default model's 1M window: at 200k their 5,000-odd characters, always kept whole,
    # leave the 6,000-character budget no room for your descriptions)
    bundled = model("claude-code", root, builtins=True)
    lines = bundled.compute(BudgetSettings(context_window=1_000_000)).text.split("\n")
    assert lines[2:5] == [
        "- alpha: Extract text from PDF files.",
        "- beta: Review code changes.",
        "- delta: Deploys. - When shipping.",
    ]
    assert [line.split(":")[0] for line in lines[5:7]] == ["- dataviz", "- update-config"]
    assert lines[-1].startswith("- security-review: ")
    small = bundled.compute(BudgetSettings(context_window=200_000))
    assert {e.name: e.outcome for e in small.entries}["alpha"] == "name-only"


def test_claude_code_budget_worked_examples(tmp_path: Path) -> None:
    root, _a, _b = two_skills(tmp_path)
    m = model("claude-code", root)
    # 3 characters per token: the default model of 2.1.330 (claude-opus-5-5, a 1M window)
    assert m.limit(BudgetSettings(context_window=200_000))[0] == 6_000
    assert m.limit(BudgetSettings(context_window=1_000_000))[0] == 30_000
    assert m.limit(BudgetSettings(context_window=0))[0] == 6_000


def test_claude_code_entry_cap_counts_when_to_use(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "long", "d" * 1000, "when_to_use: " + "w" * 1000 + "\n")
    r = model("claude-code", root).compute(BudgetSettings(context_window=1_000_000))
    (e,) = r.entries
    assert (e.outcome, e.kept_chars, e.full_chars) == ("shortened", 1536, len("- long: ") + 2003)
    line = r.text.splitlines()[2]
    # o5n (2.1.330): slice(0, cap - 1) + "…": the entry's description is 1,536 characters long
    assert line == "- long: " + ("d" * 1000 + " - " + "w" * 1000)[:1535] + "…"


def test_claude_code_drops_least_used_descriptions_last_listed_first(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("aaa", "bbb", "ccc", "ddd"):
        skill(root, name, "d" * 100)
    m = model("claude-code", root)
    # Claude Code counts only the entries and the newlines between them (count_frame = false).
    full = len("\n".join(m.compute().text.splitlines()[2:]))
    limit = full - 2 * len(": " + "d" * 100)  # room for exactly two descriptions
    # No usage data: every priority is 0, the last listed loses its description first.
    r = m.compute(BudgetSettings(budget_chars=limit))
    assert [e.outcome for e in r.entries] == ["full", "full", "name-only", "name-only"]
    assert r.text.endswith("- ccc\n- ddd")
    # 2.1.330's debug-log line: skills listed, the listing's size before cuts, the budget
    assert r.warnings == (
        f"Skill listing over budget: 4 skills, {full} chars > {limit} budget — descriptions "
        "will be truncated. Run /skills to disable some, or raise skillListingBudgetFraction in "
        "settings.",
    )
    # With usage, the least used go first whatever their place.
    r = m.compute(BudgetSettings(budget_chars=limit, usage={"aaa": 1, "bbb": 0, "ccc": 9}))
    # bbb and ddd have 0 uses (ddd, listed last, goes first); aaa's one use keeps it.
    assert {e.name: e.outcome for e in r.entries} == {
        "aaa": "full",
        "bbb": "name-only",
        "ccc": "full",
        "ddd": "name-only",
    }


def test_claude_code_settings_files_and_env(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"skillOverrides": {"beta": "off"}, "skillListingBudgetFraction": 0.05})
    )
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"skillOverrides": {"alpha": "name-only"}})
    )
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"skillListingMaxDescChars": 300, "skillListingBudgetFraction": 0.02})
    )
    spec = load_profile("claude-code").disclosure.settings
    s, problems = apply_runtime_settings(
        spec, BudgetSettings(), project=str(project), home=str(home), env={}
    )
    assert problems == []
    assert s.overrides == {"beta": "off", "alpha": "name-only"}
    assert (s.budget_fraction, s.entry_cap_chars, s.budget_chars) == (0.02, 300, None)
    root, _a, _b = two_skills(tmp_path)
    m = model("claude-code", root)
    assert m.limit(s)[0] == 12_000  # 200k x 3 x 0.02
    r = m.compute(s)
    assert {e.name: e.outcome for e in r.entries} == {"alpha": "name-only", "beta": "excluded"}
    # SLASH_COMMAND_TOOL_CHAR_BUDGET wins over the fraction.
    s, _ = apply_runtime_settings(
        spec,
        BudgetSettings(),
        project=str(project),
        home=str(home),
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "20"},
    )
    assert s.budget_chars == 20 and m.limit(s)[0] == 20
    assert any("SLASH_COMMAND_TOOL_CHAR_BUDGET" in a for a in s.applied)


def test_claude_code_tier2_data() -> None:
    t2 = load_profile("claude-code").disclosure.tier2
    assert t2.wrapper == "Base directory for this skill: {base_dir}\n\n{body}"
    assert (t2.arguments, t2.indexed, t2.positional, t2.named) == (True, True, True, True)
    assert t2.append_when_absent == "\n\nARGUMENTS: {args}"
    assert dict(t2.variables) == {
        "CLAUDE_SKILL_DIR": "{base_dir}",
        "CLAUDE_SESSION_ID": "<session id>",
    }
    assert f"`{t2.model_refusal}`" in DOC
    assert (t2.fork_field, t2.compaction_keep_tokens, t2.user_command) == (
        "context",
        5000,
        "/{name}",
    )


# --- Codex -----------------------------------------------------------------------------------------


def codex_head(*roots: Path) -> str:
    """Codex 0.169.0's intro, its roots table (aliases r0, r1, ... in root order) and heading."""
    table = "".join(f"- `r{i}` = `{os.path.realpath(r)}`\n" for i, r in enumerate(roots))
    return (
        "<skills_instructions>\n"
        "## Skills\n"
        "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. "
        "Below is the list of skills that can be used. Each entry includes a name, description, "
        "and a short path that can be expanded into an absolute path using the skill roots "
        "table.\n### Skill roots\n" + table + "### Available skills\n"
    )


def test_codex_listing_is_exact(tmp_path: Path) -> None:
    root, _a, _b = two_skills(tmp_path)
    skill(root, "gamma", "Not honoured by Codex.", "disable-model-invocation: true\n")
    r = model("codex", root).compute()
    # Codex 0.169.0 (codex debug prompt-input): the entries are followed by the closing tag; the
    # how-to block moved into the base instructions.
    assert r.text == (
        codex_head(root)
        + "- alpha: Extract text from PDF files. (file: r0/alpha/SKILL.md)\n"
        + "- beta: Review code changes. (file: r0/beta/SKILL.md)\n"
        + "- gamma: Not honoured by Codex. (file: r0/gamma/SKILL.md)\n"
        + "</skills_instructions>"
    )


def test_codex_scope_order_system_admin_repo_user(tmp_path: Path) -> None:
    home, project, codex_home = tmp_path / "home", tmp_path / "proj", tmp_path / "codex"
    skill(home / ".agents" / "skills", "u-skill", "User.")
    skill(project / ".agents" / "skills", "r-skill", "Repo.")
    skill(codex_home / "skills" / ".system", "s-skill", "System.")
    catalog = build_catalog(
        without_builtins(load_profile("codex")),
        project=str(project),
        home=str(home),
        env={"CODEX_HOME": str(codex_home)},
    )
    r = Tier1Model(catalog).compute()
    names = [
        line.split(":")[0]
        for line in r.text.splitlines()
        if line.startswith("- ") and "`" not in line
    ]
    assert names[:3] == ["- s-skill", "- r-skill", "- u-skill"]


def test_codex_hands_out_description_characters_round_robin(tmp_path: Path) -> None:
    """Codex 0.169.0 (render.rs): every line and its line break costs ceil(bytes / 4) tokens;
    over the budget, description characters go one at a time to each skill in turn while the
    tokens they add fit, cut with no '...'; when even the bare lines do not fit, each bare line
    is listed while it still fits."""
    root = tmp_path / "skills"
    for n in ("aa", "bb", "cc"):
        skill(root, n, "z" * 200)
    m = model("codex", root)
    assert m.limit(BudgetSettings(context_window=200_000))[0] == 16_000  # 2% x 4 chars/token
    assert m.limit(BudgetSettings(context_window=0))[0] == 8_000
    full = m.compute(BudgetSettings(context_window=200_000))
    assert [e.outcome for e in full.entries] == ["full"] * 3
    bare = [f"- {n}: (file: r0/{n}/SKILL.md)" for n in ("aa", "bb", "cc")]

    def tokens(line: str) -> int:
        return -(-(len(line.encode()) + 1) // 4)

    minimum = sum(tokens(line) for line in bare)
    # room for 30 more tokens: each description gets ~10 tokens' worth, about 40 characters
    r = m.compute(BudgetSettings(context_window=(minimum + 30) * 50))  # 2% of it
    kept = [e.kept_chars for e in r.entries]
    assert [e.outcome for e in r.entries] == ["shortened"] * 3
    assert max(kept) - min(kept) <= 4 and sum(kept) > 100  # shared out, not one common cut
    assert "... (file:" not in r.text and "- aa: zzz" in r.text
    for e, line in zip(r.entries, r.text.splitlines()[-4:-1], strict=True):
        assert line == f"- {e.name}: {'z' * e.kept_chars} (file: r0/{e.name}/SKILL.md)"
    # room for the bare lines alone: only the characters that add no token (the rest of a line's
    # last 4-byte token) are given
    r = m.compute(BudgetSettings(context_window=minimum * 50))
    assert all(e.kept_chars <= 2 for e in r.entries)
    assert all(e.outcome == ("name-only" if e.kept_chars == 0 else "shortened") for e in r.entries)
    # not even those: each bare line listed while it still fits, the rest left out
    r = m.compute(BudgetSettings(context_window=(tokens(bare[0]) + tokens(bare[1])) * 50))
    assert [e.outcome for e in r.entries] == ["name-only", "name-only", "omitted"]
    assert "- cc" not in r.text
    assert r.warnings == (
        "Exceeded skills context budget of 2%. All skill descriptions were removed and 1 "
        "additional skills were not included in the model-visible skills list.",
    )
    assert "Exceeded skills context budget of 2%." in DOC
    # a fixed character budget counts characters (Codex's budget without a context window)
    r = m.compute(BudgetSettings(budget_chars=sum(len(x) + 1 for x in bare)))
    assert [e.outcome for e in r.entries] == ["name-only"] * 3 and bare[0] in r.text


def test_codex_entry_cap_then_budget_cut(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "long", "y" * 1500)
    m = model("codex", root)
    full = m.compute(BudgetSettings(context_window=200_000))
    assert f"- long: {'y' * 1021}... (file:" in full.text  # the 1,024-character cap
    bare = "- long: (file: r0/long/SKILL.md)"
    room = -(-(len(bare) + 1) // 4) + 100  # 100 tokens for the description
    r = m.compute(BudgetSettings(context_window=room * 50))
    (e,) = r.entries
    base = len(bare) + 1
    most = max(k for k in range(1100) if -(-(base + k + 1) // 4) - -(-base // 4) <= 100)
    assert e.outcome == "shortened" and e.kept_chars == most
    assert f"- long: {'y' * e.kept_chars} (file:" in r.text


def test_codex_config_toml_disables_a_skill(tmp_path: Path) -> None:
    root, a, _b = two_skills(tmp_path)
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        f'[[skills.config]]\npath = "{a}"\nenabled = false\n\n'
        '[[skills.config]]\nname = "beta"\nenabled = true\n'
    )
    spec = load_profile("codex").disclosure.settings
    s, problems = apply_runtime_settings(
        spec,
        BudgetSettings(),
        project=str(tmp_path),
        home=str(tmp_path / "home"),
        env={"CODEX_HOME": str(codex_home)},
    )
    assert problems == [] and s.disabled == frozenset({str(a)})
    r = model("codex", root).compute(s)
    assert {e.name: e.outcome for e in r.entries} == {"alpha": "excluded", "beta": "full"}
    assert "- alpha" not in r.text


# --- Pegasus ---------------------------------------------------------------------------------------


def test_pegasus_listing_and_exclusion_with_fallback(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "aa", "short")
    skill(root, "bb", "long " * 40)
    skill(root, "cc", "tiny")
    skill(root, "dd", "User only.", "disable-model-invocation: true\n")
    m = model("pegasus", root)
    assert m.limit(BudgetSettings(context_window=0))[0] == 16_000
    assert m.limit(BudgetSettings(context_window=200_000))[0] == 16_000
    footer = "\n\nUse the use_skill tool to invoke a skill when relevant."
    r = m.compute()
    assert r.text.startswith("Available skills:\n- aa: short\n- bb: long") and r.text.endswith(
        "- cc: tiny" + footer
    )
    want = "Available skills:\n- aa: short\n- cc: tiny" + footer
    r = m.compute(BudgetSettings(budget_chars=len(want)))
    assert r.text == want
    assert {e.name: e.outcome for e in r.entries} == {
        "aa": "full",
        "bb": "omitted",
        "cc": "full",
        "dd": "excluded",
    }
    assert r.warnings == ("Skill listing exceeds budget: 1 of 3 skills excluded",)


def test_pegasus_tier2_data() -> None:
    t2 = load_profile("pegasus").disclosure.tier2
    assert (t2.arguments, t2.indexed, t2.positional, t2.named) == (True, True, True, False)
    assert t2.append_when_absent == "\n\nARGUMENTS: {args}"
    assert t2.fork_field == "context" and t2.user_command == "/{name}"


# --- workspace-v1 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("allowlist", "listed"),
    [(None, ["alpha", "beta"]), ((), []), (("*",), ["alpha", "beta"]), (("beta",), ["beta"])],
    ids=["unset", "empty", "star", "list"],
)
def test_workspace_v1_allowlists(tmp_path: Path, allowlist, listed) -> None:  # type: ignore[no-untyped-def]
    root, a, b = two_skills(tmp_path)
    r = model("workspace-v1", root).compute(BudgetSettings(allowlist=allowlist))
    lines = {
        "alpha": f"- alpha: Extract text from PDF files. (location: {a})",
        "beta": f"- beta: Review code changes. (location: {b})",
    }
    want = "\n".join(["## Available Skills", *(lines[n] for n in listed)]) if listed else ""
    assert r.text == want


def test_workspace_v1_tier2_asks_consent_first() -> None:
    t2 = load_profile("workspace-v1").disclosure.tier2
    assert t2.consent == "first-activation"
    assert "private:/.skills/{name}" in t2.wrapper


# --- exact listings for two skills ----------------------------------------------------------------


def test_gemini_cli_listing_is_exact(tmp_path: Path) -> None:
    root, a, b = two_skills(tmp_path)
    r = model("gemini-cli", root).compute()
    intro = (
        "You have access to the following specialized skills. To activate a skill and receive its "
        "detailed instructions, call the `activate_skill` tool with the skill's name."
    )
    assert intro in DOC
    # one root's folders in descending order (glob 12 over node's sorted readdir, 0.61.0)
    assert r.text == (
        "# Available Agent Skills\n\n" + intro + "\n\n<available_skills>\n"
        "  <skill>\n    <name>beta</name>\n"
        "    <description>Review code changes.</description>\n"
        f"    <location>{b}</location>\n  </skill>\n"
        "  <skill>\n    <name>alpha</name>\n"
        "    <description>Extract text from PDF files.</description>\n"
        f"    <location>{a}</location>\n  </skill>\n"
        "</available_skills>"
    )


def test_copilot_vscode_listing_is_exact(tmp_path: Path) -> None:
    root, a, b = two_skills(tmp_path)
    skill(root, "gamma", "User only.", "disable-model-invocation: true\n")
    r = model("copilot-vscode", root).compute()
    head = (
        "<skills>\n"
        "Here is a list of skills that contain domain specific knowledge on a variety of topics.\n"
        "Each skill comes with a description of the topic and a file path that contains the "
        "detailed instructions.\n"
        "When a user asks you to perform a task that falls within the domain of a skill, use the "
        "'read_file' tool to acquire the full instructions from the file URI.\n"
    )
    assert head in DOC
    assert r.text == (
        head
        + "<skill>\n<name>alpha</name>\n<description>Extract text from PDF files.</description>\n"
        f"<file>{a}</file>\n</skill>\n"
        "<skill>\n<name>beta</name>\n<description>Review code changes.</description>\n"
        f"<file>{b}</file>\n</skill>\n"
        "</skills>\n\n"
    )


def test_opencode_listing_is_exact_and_sorted_by_name(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    b = skill(root, "beta", "Review code changes.")
    a = skill(root, "alpha", "Extract text from PDF files.")
    r = model("opencode", root, builtins=True).compute()
    head = (
        "Skills provide specialized instructions and workflows for specific tasks.\n"
        "Use the skill tool to load a skill when a task matches its description.\n"
    )
    assert head in DOC
    builtin = load_profile("opencode").disclosure.tier1.builtin[0]
    assert r.text == (
        head + "<available_skills>\n"
        "  <skill>\n    <name>alpha</name>\n"
        "    <description>Extract text from PDF files.</description>\n"
        f"    <location>{a}</location>\n  </skill>\n"
        "  <skill>\n    <name>beta</name>\n"
        "    <description>Review code changes.</description>\n"
        f"    <location>{b}</location>\n  </skill>\n"
        # OpenCode's own skill, always listed; its location is XML-escaped
        f"  <skill>\n    <name>customize-opencode</name>\n"
        f"    <description>{builtin.description}</description>\n"
        "    <location>&lt;built-in&gt;</location>\n  </skill>\n"
        "</available_skills>"
    )


def test_opencode_tool_description_style(tmp_path: Path) -> None:
    root, _a, _b = two_skills(tmp_path)
    spec = load_profile("opencode").disclosure.tier1.with_style("tool-description")
    catalog = build_catalog(load_profile("opencode"), [str(root)])
    text = Tier1Model(catalog, spec=spec).compute().text
    assert (
        "listed below:\n\n## Available Skills\n"
        "- **alpha**: Extract text from PDF files.\n- **beta**: Review code changes.\n"
        "- **customize-opencode**: Use ONLY when" in text
    )
    assert text.startswith("Load a specialized skill that provides domain-specific instructions")


def test_agent_tiers_listing_is_exact(tmp_path: Path) -> None:
    root, a, b = two_skills(tmp_path)
    skill(root, "amp", "Fish & <chips>.")
    r = model("agent-tiers", root).compute()
    assert r.text == (
        "<available_skills>\n"
        "<skill>\n<name>alpha</name>\n<description>Extract text from PDF files.</description>\n"
        f"<location>{a}</location>\n</skill>\n"
        "<skill>\n<name>amp</name>\n<description>Fish &amp; &lt;chips&gt;.</description>\n"
        f"<location>{root / 'amp' / 'SKILL.md'}</location>\n</skill>\n"
        "<skill>\n<name>beta</name>\n<description>Review code changes.</description>\n"
        f"<location>{b}</location>\n</skill>\n"
        "</available_skills>"
    )


def test_agentskills_listing_follows_the_guide_sample(tmp_path: Path) -> None:
    root, a, _b = two_skills(tmp_path)
    skill(root, "beta", "Hidden.", "disable-model-invocation: true\n")  # rewrite beta
    catalog = build_catalog(load_profile("agentskills"), [str(root)])
    r = Tier1Model(catalog).compute()
    assert r.text == (
        "<available_skills>\n  <skill>\n    <name>alpha</name>\n"
        "    <description>Extract text from PDF files.</description>\n"
        f"    <location>{a}</location>\n  </skill>\n</available_skills>"
    )


def test_pegasus_oh_my_pi_autopoiesis_two_skills(tmp_path: Path) -> None:
    root, _a, _b = two_skills(tmp_path)
    assert model("pegasus", root).compute().text == (
        "Available skills:\n- alpha: Extract text from PDF files.\n- beta: Review code changes.\n"
        "\nUse the use_skill tool to invoke a skill when relevant."
    )
    # oh-my-pi 18.2.3: the "# Skills & Rules" block of its system-prompt template, sorted by name.
    assert model("oh-my-pi", root).compute().text == (
        "Matching skill → MUST read `skill://<name>` first.\n<skills>\n"
        "- alpha: Extract text from PDF files.\n- beta: Review code changes.\n</skills>"
    )
    auto = tmp_path / "auto"
    meta = 'metadata:\n  version: "1"\n  tags: [x]\n'
    skill(auto, "beta", "Review code changes.", meta)
    skill(auto, "alpha", "Extract text from PDF files.", meta)
    assert model("autopoiesis", auto).compute().text == (
        "Available skills: alpha, beta, "
        "Use list_skills for details and load_skill(skill_name) to load one."
    )


# --- zero skills -----------------------------------------------------------------------------------

EMPTY = {
    "agentskills": "",  # "omit the catalog ... entirely"
    "claude-code": "",  # no attachment at all
    "codex": "",  # build_available_skills returns None
    "gemini-cli": "",  # the section is omitted
    "copilot-vscode": "",  # no block
    # OpenCode always lists its built-in customize-opencode skill: never empty.
    "opencode": None,
    "workspace-v1": "",
    "agent-tiers": "<available_skills>\n</available_skills>",
    "pegasus": "",
    "oh-my-pi": "",
    "autopoiesis": "",  # an empty string
}


@pytest.mark.parametrize("profile", SHIPPED)
def test_zero_skills_gives_the_documented_empty_output(tmp_path: Path, profile: str) -> None:
    (tmp_path / "empty").mkdir()
    r = model(profile, tmp_path / "empty", builtins=profile == "opencode").compute()
    if EMPTY[profile] is None:
        assert "<name>customize-opencode</name>" in r.text
    else:
        assert r.text == EMPTY[profile]


@pytest.mark.parametrize("profile", SHIPPED)
def test_prompt_command_renders_every_profile(tmp_path: Path, profile: str, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    extra = 'metadata:\n  version: "1"\n  tags: [x]\n' if profile == "autopoiesis" else ""
    skill(root, "alpha", "Extract text from PDF files.", extra)
    skill(root, "beta", "Review code changes.", extra)
    assert main(["prompt", "--profile", profile, str(root)]) == 0
    out = capsys.readouterr().out
    assert "alpha" in out and "beta" in out


# --- built-in skills take part in the listing and its budget --------------------------------------


def test_codex_lists_its_bundled_skills_first_from_their_own_root(tmp_path: Path) -> None:
    """Codex 0.169.0 unpacks its bundled skills into $CODEX_HOME/skills/.system when it starts
    and lists them first (scope system), under a roots-table entry of their own that comes before
    the repository's .agents: the listing is the same whether or not the folder exists yet."""
    home, project = tmp_path / "home", tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    skill(project / ".agents" / "skills", "mine", "Mine.")
    profile = load_profile("codex")

    def listing() -> str:
        catalog = build_catalog(profile, project=str(project), home=str(home), env={})
        return Tier1Model(catalog).compute().text

    fresh = listing()
    system = home / ".codex" / "skills" / ".system"
    assert f"- `r0` = `{system}`" in fresh and f"- `r1` = `{project}/.agents/skills`" in fresh
    names = [
        line.split(":")[0][2:]
        for line in fresh.splitlines()
        if line.startswith("- ") and "`" not in line
    ]
    assert names == ["imagegen", "openai-docs", "skill-creator", "skill-installer", "mine"]
    assert "(file: r0/imagegen/SKILL.md)" in fresh and "review-agent" not in fresh
    # after Codex ran: its own copies are on disk and read from there, once each
    for b in profile.disclosure.tier1.builtin:
        skill(system, b.name, b.description)
    assert listing() == fresh


def test_builtin_skills_count_against_the_budget(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "mine", "z" * 300)
    bare = model("codex", root).compute(BudgetSettings(budget_chars=400))
    full = model("codex", root, builtins=True).compute(BudgetSettings(budget_chars=400))
    assert [e.outcome for e in bare.entries] == ["full"]
    outcomes = {e.name: e.outcome for e in full.entries}
    assert outcomes["mine"] != "full" and outcomes["imagegen"] != "full"
    assert "review-agent" not in outcomes  # Codex does not list it (its agents/openai.yaml)


def test_a_skill_of_the_same_name_overrides_a_gemini_builtin(tmp_path: Path) -> None:
    """Gemini CLI loads its built-in skills first (lowest precedence, last wins): a user skill
    named like one replaces it in the listing; the others stay, listed first."""
    home, project = tmp_path / "home", tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    mine = skill(home / ".gemini" / "skills", "skill-creator", "My own skill creator.")
    catalog = build_catalog(
        load_profile("gemini-cli"), project=str(project), home=str(home), env={}
    )
    text = Tier1Model(catalog).compute().text
    assert text.count("<name>skill-creator</name>") == 1
    assert "My own skill creator." in text and f"<location>{mine}</location>" in text
    assert text.index("<name>antigravity-support</name>") < text.index("<name>skill-creator</name>")


def test_factory_droid_folds_white_space_and_names_an_empty_description(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "ws", '"Two  spaces\\tand  a tab."')
    skill(root, "blank", '"   "')
    text = model("factory-droid", root).compute().text
    assert "ws: Two spaces and a tab." in text
    assert "blank: No description provided" in text
