"""Tier 1: listing text, exclusions, the three budget models, overrides, allowlists, settings."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from skillprism.cli import main
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.profiles import load_profile, load_profile_file
from skillprism.core.resolve import build_catalog
from skillprism.core.runtime_settings import apply_runtime_settings


def skill(root: Path, name: str, description: str, extra: str = "") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nDo it.\n",
        encoding="utf-8",
    )
    return d


def profile_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "p.toml"
    path.write_text(
        'schema = 1\nname = "t"\ntitle = "Test runtime"\n'
        '[frontmatter]\ntyping = "core"\nname_charset = "ascii-lower"\n'
        '[fields]\nname = "string"\ndescription = "string"\n"disable-model-invocation" = "bool"\n'
        + textwrap.dedent(body),
        encoding="utf-8",
    )
    return path


LINES = """
[tier1]
header = "Available skills:"
footer = ""
entry = "- {name}: {description}"
entry_name_only = "- {name}"
escape = "none"
exclude_fields = { "disable-model-invocation" = true }
"""


def model(tmp_path: Path, body: str, skills_dir: Path) -> Tier1Model:
    prof = load_profile_file(profile_file(tmp_path, body))
    return Tier1Model(build_catalog(prof, [str(skills_dir)]))


def test_lines_listing_is_exact_and_excludes_model_disabled(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "alpha", "First one.")
    skill(root, "beta", "Second one.", "disable-model-invocation: true\n")
    r = model(tmp_path, LINES, root).compute()
    assert r.text == "Available skills:\n- alpha: First one."
    assert r.outcomes() == {
        str(root / "alpha" / "SKILL.md"): "full",
        str(root / "beta" / "SKILL.md"): "excluded",
    }
    beta = next(e for e in r.entries if e.name == "beta")
    assert beta.reason == "disable-model-invocation: true"
    assert r.used_chars == len(r.text)


CLAUDE_LIKE = (
    LINES
    + """
[tier1.budget]
model = "drop-descriptions"
context_fraction = 0.01
chars_per_token = 4
fallback_chars = 8000
entry_cap_chars = 1536
warning = "{dropped} descriptions dropped"
"""
)


def test_budget_formula_worked_examples(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "alpha", "A.")
    m = model(tmp_path, CLAUDE_LIKE, root)
    assert m.limit(BudgetSettings(context_window=200_000))[0] == 8_000
    assert m.limit(BudgetSettings(context_window=1_000_000))[0] == 40_000
    assert m.limit(BudgetSettings(context_window=0))[0] == 8_000  # unknown: fallback
    assert m.limit(BudgetSettings(context_window=200_000, budget_fraction=0.02))[0] == 16_000
    assert m.limit(BudgetSettings(budget_chars=1234))[0] == 1234


def test_entry_cap_shortens_long_descriptions(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "long", "x" * 2000)
    r = model(tmp_path, CLAUDE_LIKE, root).compute(BudgetSettings(context_window=1_000_000))
    (e,) = r.entries
    assert (e.outcome, e.kept_chars) == ("shortened", 1536)
    assert r.text == "Available skills:\n- long: " + "x" * 1536


def test_over_budget_drops_least_used_descriptions_first(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("aaa", "bbb", "ccc", "ddd"):
        skill(root, name, "d" * 100)
    m = model(tmp_path, CLAUDE_LIKE, root)
    full = m.compute(BudgetSettings(budget_chars=10_000)).used_chars
    # Room for all names and exactly two descriptions.
    names_only = len("Available skills:") + 4 * len("\n- aaa")
    limit = names_only + 2 * len(": " + "d" * 100)
    assert limit < full
    r = m.compute(
        BudgetSettings(budget_chars=limit, usage={"aaa": 5, "bbb": 1, "ccc": 9, "ddd": 1})
    )
    got = {e.name: e.outcome for e in r.entries}
    # bbb and ddd are least used; equal usage: the last listed (ddd) goes first, then bbb.
    assert got == {"aaa": "full", "bbb": "name-only", "ccc": "full", "ddd": "name-only"}
    assert r.used_chars <= limit
    assert r.warnings == ("2 descriptions dropped",)
    # Equal usage: the last listed lose their descriptions first; pins keep theirs.
    r = m.compute(BudgetSettings(budget_chars=limit, pins=frozenset({"ddd"})))
    assert {e.name: e.outcome for e in r.entries} == {
        "aaa": "full",
        "bbb": "name-only",
        "ccc": "name-only",
        "ddd": "full",
    }
    assert {d.code for d in r.diagnostics} >= {"SP401"}


def test_every_name_stays_listed_even_far_over_budget(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(5):
        skill(root, f"s{i}", "description " * 10)
    r = model(tmp_path, CLAUDE_LIKE, root).compute(BudgetSettings(budget_chars=10))
    assert {e.outcome for e in r.entries} == {"name-only"}
    assert all(f"- s{i}" in r.text for i in range(5))
    assert "SP405" in {d.code for d in r.diagnostics}


def test_overrides(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("on", "named", "slash", "gone"):
        skill(root, name, "Does things.")
    overrides = {"named": "name-only", "slash": "user-invocable-only", "gone": "off"}
    r = model(tmp_path, CLAUDE_LIKE, root).compute(BudgetSettings(overrides=overrides))
    assert {e.name: e.outcome for e in r.entries} == {
        "on": "full",
        "named": "name-only",
        "slash": "excluded",
        "gone": "excluded",
    }
    assert (
        r.text == "Available skills:\n- gone\n- named\n- on: Does things."[:0]
        or "- named" in r.text
    )


CODEX_LIKE = """
[tier1]
header = "### Available skills"
footer = ""
entry = "- {name}: {description} (file: {location})"
entry_name_only = "- {name}: (file: {location})"
escape = "none"
order = "scope"
[tier1.budget]
model = "trim-then-omit"
context_fraction = 0.02
fallback_chars = 8000
warning = "showing {shown} of {total} enabled skills"
"""


def test_trim_then_omit_trims_descriptions_evenly_first(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "aa", "x" * 50)
    skill(root, "bb", "y" * 300)
    m = model(tmp_path, CODEX_LIKE, root)
    full = m.compute(BudgetSettings(budget_chars=100_000))
    assert full.text.splitlines()[1] == f"- aa: {'x' * 50} (file: {root / 'aa' / 'SKILL.md'})"
    limit = full.used_chars - 250  # must cut bb's description from 300 to 50 at most
    r = m.compute(BudgetSettings(budget_chars=limit))
    got = {e.name: (e.outcome, e.kept_chars) for e in r.entries}
    assert got["aa"] == ("full", 50)
    assert got["bb"][0] == "shortened" and got["bb"][1] == 50
    assert r.used_chars <= limit


def test_trim_then_omit_omits_from_the_end_with_the_runtime_warning(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("aa", "bb", "cc"):
        skill(root, name, "z" * 40)
    m = model(tmp_path, CODEX_LIKE, root)
    one_line = len(f"- aa:  (file: {root / 'aa' / 'SKILL.md'})")
    r = m.compute(BudgetSettings(budget_chars=len("### Available skills") + 2 * (one_line + 1)))
    assert [e.outcome for e in r.entries] == ["shortened", "shortened", "omitted"]
    assert r.warnings == ("showing 2 of 3 enabled skills",)


PEGASUS_LIKE = (
    LINES
    + """
[tier1.budget]
model = "exclude-overflow"
context_fraction = 0.02
fallback_chars = 16000
warning = "{dropped} skill(s) excluded: over the listing budget"
"""
)


def test_exclude_overflow_leaves_out_what_does_not_fit(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "aa", "short")
    skill(root, "bb", "long " * 40)
    skill(root, "cc", "tiny")
    m = model(tmp_path, PEGASUS_LIKE, root)
    assert m.limit(BudgetSettings(context_window=0))[0] == 16_000
    limit = len("Available skills:\n- aa: short\n- cc: tiny")
    r = m.compute(BudgetSettings(budget_chars=limit))
    assert {e.name: e.outcome for e in r.entries} == {"aa": "full", "bb": "omitted", "cc": "full"}
    assert r.text == "Available skills:\n- aa: short\n- cc: tiny"
    assert r.warnings == ("1 skill(s) excluded: over the listing budget",)


ALLOW = LINES.replace("[tier1]", "[tier1]\nallowlist = true")


@pytest.mark.parametrize(
    ("allowlist", "listed"),
    [(None, {"aa", "bb"}), ((), set()), (("*",), {"aa", "bb"}), (("bb",), {"bb"})],
    ids=["unset", "empty", "star", "list"],
)
def test_seed_000_allowlists(tmp_path: Path, allowlist, listed) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "aa", "A.")
    skill(root, "bb", "B.")
    r = model(tmp_path, ALLOW, root).compute(BudgetSettings(allowlist=allowlist))
    assert {e.name for e in r.entries if e.outcome == "full"} == listed


SETTINGS = (
    CLAUDE_LIKE
    + """
[settings]
files = [{ path = "~/.claude/settings.json", format = "json" },
         { path = "{project}/.claude/settings.local.json", format = "json" }]
keys = { skillOverrides = "overrides", skillListingBudgetFraction = "budget_fraction", skillListingMaxDescChars = "entry_cap_chars" }
env = { SLASH_COMMAND_TOOL_CHAR_BUDGET = "budget_chars" }
"""
)


def test_runtime_settings_files_and_env_are_applied_and_reported(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {"skillOverrides": {"a": "off", "b": "bogus"}, "skillListingBudgetFraction": 0.02}
        )
    )
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"skillListingMaxDescChars": 100})
    )
    prof = load_profile_file(profile_file(tmp_path, SETTINGS))
    s, problems = apply_runtime_settings(
        prof.disclosure.settings,
        BudgetSettings(),
        project=str(project),
        home=str(home),
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "12000"},
    )
    assert s.overrides == {"a": "off"}
    assert (s.budget_fraction, s.entry_cap_chars, s.budget_chars) == (0.02, 100, 12_000)
    assert len(s.applied) == 4 and any("SLASH_COMMAND_TOOL_CHAR_BUDGET" in a for a in s.applied)
    assert problems and "bogus" in problems[0]


def test_broken_settings_file_is_reported_not_fatal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{not json")
    prof = load_profile_file(profile_file(tmp_path, SETTINGS))
    s, problems = apply_runtime_settings(
        prof.disclosure.settings, BudgetSettings(), project=str(tmp_path), home=str(home), env={}
    )
    assert s.applied == () and "not valid JSON" in problems[0]


def test_reference_style_matches_skills_ref_to_prompt(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from skills_ref.prompt import to_prompt

    root = tmp_path / "skills"
    dirs = [skill(root, "alpha", 'Uses <xml> & "quotes".'), skill(root, "beta", "Second.")]
    assert main(["prompt", "--style", "reference", str(root)]) == 0
    ours = capsys.readouterr().out
    assert ours == to_prompt(dirs) + "\n"


def test_prompt_entries_equal_to_prompt_entries_parsed_as_xml(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import xml.etree.ElementTree as ET

    from skills_ref.prompt import to_prompt

    root = tmp_path / "skills"
    dirs = [skill(root, n, f"Skill {n} & more <b>.") for n in ("one", "two", "three")]
    assert main(["prompt", str(root)]) == 0
    ours = ET.fromstring(capsys.readouterr().out)
    theirs = ET.fromstring(to_prompt(dirs))

    def entries(tree):  # type: ignore[no-untyped-def]
        return sorted(
            (
                s.findtext("name").strip(),
                s.findtext("description").strip(),
                s.findtext("location").strip(),
            )
            for s in tree.iter("skill")
        )

    assert entries(ours) == entries(theirs)


def test_prompt_json_shape(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "alpha", "A.")
    assert main(["prompt", "--format", "json", "--budget-chars", "50", str(root)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == 1 and doc["profile"] == "agentskills"
    assert set(doc["budget"]) >= {
        "context_window",
        "limit_chars",
        "used_chars",
        "headroom_chars",
        "counter",
        "assumptions",
        "settings_applied",
    }
    assert doc["budget"]["limit_chars"] == 50
    (entry,) = doc["skills"]
    assert set(entry) >= {"name", "path", "outcome", "kept_chars", "chars", "tokens"}
    assert doc["text"].startswith("<available_skills>")


def test_no_skills_means_no_listing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "empty").mkdir()
    # the runtime's text for no skills (nothing at all, or an empty frame), and on stderr why,
    # with exit 1: an empty listing is never a silent pass
    assert main(["prompt", str(tmp_path / "empty")]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "the listing is empty: no skill file was found" in out.err
    assert main(["prompt", "--style", "reference", str(tmp_path / "empty")]) == 1
    assert capsys.readouterr().out == "<available_skills>\n</available_skills>\n"


def test_prompt_usage_errors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["prompt", "--budget-chars", "5", "--budget-fraction", "0.1", str(tmp_path)]) == 2
    assert main(["prompt", "--style", "nope", str(tmp_path)]) == 2
    assert main(["prompt", "--override", "x=maybe", str(tmp_path)]) == 2
    bad = tmp_path / "u.json"
    bad.write_text("[1, 2]")
    assert main(["prompt", "--usage", str(bad), str(tmp_path)]) == 2
    assert "--usage" in capsys.readouterr().err


def test_shipped_profiles_render(tmp_path: Path) -> None:
    from skillprism.core.profiles import available_profiles

    root = tmp_path / "skills"
    skill(root, "alpha", "First & <one>.")
    for name in available_profiles():
        catalog = build_catalog(load_profile(name), [str(root)])
        r = Tier1Model(catalog).compute()
        if catalog.skills[0].loaded:
            assert "alpha" in r.text, name
        else:
            assert r.entries == (), name


def test_a_skill_in_error_state_is_still_listed_and_activatable(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # An unknown field breaks the spec (state error) but a client still loads the skill.
    root = tmp_path / "skills"
    skill(root, "odd", "Has an extra key.", "foo: bar\n")
    assert main(["check", str(root)]) == 1
    capsys.readouterr()
    assert main(["prompt", str(root)]) == 0
    assert "<name>odd</name>" in capsys.readouterr().out
    assert main(["activate", "odd", str(root)]) == 0
    assert "Do it." in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["--budget-fraction", "nan"],
        ["--budget-fraction", "-1"],
        ["--budget-fraction", "inf"],
        ["--budget-fraction", "2"],
        ["--budget-chars", "-5"],
        ["--budget-chars", "0"],
    ],
)
def test_prompt_rejects_impossible_budgets(tmp_path: Path, args: list[str]) -> None:
    skill(tmp_path / "skills", "alpha", "A.")
    assert main(["prompt", *args, str(tmp_path / "skills")]) == 2


def test_prompt_usage_file_must_have_the_documented_shape(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    skill(tmp_path / "skills", "alpha", "A.")
    for body in (
        '{"usage": {"a": 1}, "pins": 5}',
        '{"usage": {"a": 1}, "pins": "abc"}',
        '{"a": "x"}',
    ):
        (tmp_path / "u.json").write_text(body)
        assert main(["prompt", "--usage", str(tmp_path / "u.json"), str(tmp_path / "skills")]) == 2
    assert main(["prompt", "--usage", "/dev/zero", str(tmp_path / "skills")]) == 2
    (tmp_path / "u.json").write_text('{"usage": {"alpha": 3}, "pins": ["alpha"]}')
    assert main(["prompt", "--usage", str(tmp_path / "u.json"), str(tmp_path / "skills")]) == 0


GREEDY = CLAUDE_LIKE.replace('model = "drop-descriptions"', 'model = "keep-by-priority"')


def test_keep_by_priority_keeps_a_later_shorter_description(tmp_path: Path) -> None:
    # Over budget, names stay; descriptions are kept in priority order while what each adds
    # still fits: the long one goes, the short ones after it stay (not: drop from the end).
    root = tmp_path / "skills"
    skill(root, "aaa", "a" * 20)
    skill(root, "bbb", "b" * 300)
    skill(root, "ccc", "c" * 10)
    skill(root, "ddd", "d" * 10)
    m = model(tmp_path, GREEDY, root)
    r = m.compute(BudgetSettings(budget_chars=120))
    assert {e.name: e.outcome for e in r.entries} == {
        "aaa": "full",
        "bbb": "name-only",
        "ccc": "full",
        "ddd": "full",
    }
    assert r.warnings and "1 descriptions dropped" in r.warnings[0]
    # Usage decides before listing order: the most used keeps its description.
    r = m.compute(BudgetSettings(budget_chars=80, usage={"ddd": 5.0}))
    outcomes = {e.name: e.outcome for e in r.entries}
    assert outcomes["ddd"] == "full" and outcomes["bbb"] == "name-only"


def test_display_width_measure_counts_wide_characters_twice(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "cjk", "日本語のスキル説明")  # 9 characters, 18 cells
    wide = GREEDY.replace("[tier1.budget]\n", '[tier1.budget]\nmeasure = "display-width"\n')
    chars = model(tmp_path, GREEDY, root).compute(BudgetSettings(budget_chars=10_000))
    cells = model(tmp_path, wide, root).compute(BudgetSettings(budget_chars=10_000))
    assert chars.text == cells.text
    entry = "- cjk: 日本語のスキル説明"
    # the frame counts in both; the entry counts 9 more cells than characters
    fits_chars = model(tmp_path, GREEDY, root).compute(BudgetSettings(budget_chars=len(chars.text)))
    assert fits_chars.entries[0].outcome == "full"
    over = model(tmp_path, wide, root).compute(BudgetSettings(budget_chars=len(chars.text)))
    assert over.entries[0].outcome == "name-only", entry


def test_keep_by_priority_costs_a_name_only_override_as_its_name(tmp_path: Path) -> None:
    # An override to name-only lists just the name; only that counts against the budget.
    root = tmp_path / "skills"
    skill(root, "aaa", "a" * 100)
    skill(root, "bbb", "b" * 100)
    m = model(tmp_path, GREEDY, root)
    full = m.compute(BudgetSettings(budget_chars=10_000)).used_chars
    names_only = full - 100  # bbb's description gone
    r = m.compute(BudgetSettings(budget_chars=names_only, overrides={"bbb": "name-only"}))
    assert {e.name: e.outcome for e in r.entries} == {"aaa": "full", "bbb": "name-only"}


def test_hermes_index_groups_skills_by_category(tmp_path: Path) -> None:
    """Hermes Agent 0.19.0's index (agent/prompt_builder.py build_skills_system_prompt): one line
    per category (the folders above the skill folder, or a top-level skill's own folder), then
    its skills by name; categories in code-point order."""
    root = tmp_path / "skills"
    skill(root / "research", "arxiv", "Search papers.")
    skill(root / "research", "Zotero", "Manage references.")
    skill(root, "zeta-folder", "Top level.")
    (root / "zeta-folder" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Named unlike its folder.\n---\nBody\n", encoding="utf-8"
    )
    listing = Tier1Model(build_catalog(load_profile("hermes-agent"), [str(root)])).compute().text
    body = listing[listing.index("<available_skills>") :].split("\n")[1:6]
    assert body == [
        "  research:",
        "    - Zotero: Manage references.",
        "    - arxiv: Search papers.",
        "  zeta-folder:",
        "    - alpha: Named unlike its folder.",
    ]


def test_a_group_header_with_a_dropping_budget_is_refused(tmp_path: Path) -> None:
    from skillprism.core.profiles import ProfileError

    body = LINES.replace(
        'entry = "- {name}: {description}"', 'entry = "{group}- {name}: {description}"'
    )
    body += 'group_header = "{category}:"\norder = "category"\n[tier1.budget]\nmodel = "drop-descriptions"\n'
    with pytest.raises(ProfileError, match=r'group_header.*model = "none"'):
        load_profile_file(profile_file(tmp_path, body))


INLINE = """
[tier1]
header = "Runs a skill."
footer = ""
entry = " {name}"
entry_name_only = " {name}"
separator = ""
entries_open = " Available skills:"
entry_separator = ","
entries_close = "."
escape = "none"
empty = "frame"
require_description = false
"""


def test_entries_as_one_part_between_header_and_footer(tmp_path: Path) -> None:
    # Cline's skills tool: its description, then ' Available skills: a, b.' only when there are any.
    root = tmp_path / "skills"
    skill(root, "alpha", "First one.")
    skill(root, "beta", "Second one.")
    assert model(tmp_path, INLINE, root).compute().text == (
        "Runs a skill. Available skills: alpha, beta."
    )
    empty = tmp_path / "none"
    empty.mkdir()
    assert model(tmp_path, INLINE, empty).compute().text == "Runs a skill."


def test_entries_as_one_part_with_a_budget_is_refused(tmp_path: Path) -> None:
    from skillprism.core.profiles import ProfileError

    body = INLINE + '[tier1.budget]\nmodel = "drop-descriptions"\n'
    with pytest.raises(ProfileError, match=r'entry_separator.*model = "none"'):
        load_profile_file(profile_file(tmp_path, body))


def test_xml_text_escape_leaves_quotes(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "alpha", """Use "it" & 'that' <here>.""")
    body = LINES.replace('escape = "none"', 'escape = "xml-text"')
    assert model(tmp_path, body, root).compute().text == (
        """Available skills:\n- alpha: Use "it" &amp; 'that' &lt;here&gt;."""
    )


def test_tokens_count_the_text_shown_with_one_part_entries_or_an_empty_text(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "alpha", "First one.")
    skill(root, "beta", "Second one.")
    m = model(tmp_path, INLINE, root)
    r = m.compute()
    assert r.tokens == m.tokens(r.text)
    empty = tmp_path / "none"
    empty.mkdir()
    body = INLINE.replace('empty = "frame"', 'empty = "text"\nempty_text = "No skills at all."')
    m = model(tmp_path, body, empty)
    r = m.compute()
    assert (r.text, r.tokens) == ("No skills at all.", m.tokens("No skills at all."))
