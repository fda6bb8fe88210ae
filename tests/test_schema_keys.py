"""Each profile key added for the conformance lab's runtimes, pinned on a small fixture tree
without the lab: framing, value reading, discovery, precedence and tier-1 keys
(docs/profiles.md). Every test builds a one-root profile `t` from TOML text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from profile_helpers import profile

from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.codes import RULES
from skillprism.core.disclose import BudgetSettings, Tier1Model, tidy_lines
from skillprism.core.ordering import locale_key
from skillprism.core.profiles import Profile, ProfileError, load_profile
from skillprism.core.reading import quote_special_values
from skillprism.core.resolve import build_catalog
from skillprism.core.yamlread import read_yaml


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def fm(body: str) -> str:
    return f"---\n{body}\n---\n\nBody.\n"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    return p


def build(prof: Profile, proj: Path) -> Catalog:
    return build_catalog(prof, project=str(proj), home=str(proj.parent / "home"), env={})


def get(cat: Catalog, path: Path) -> SkillEntry:
    return cat.by_key()[str(path)]


def rules_of(e: SkillEntry) -> set[str]:
    from skillprism.core.codes import CODES

    return {CODES[d.code].rule for d in e.diagnostics}


def listing(prof: Profile, proj: Path) -> str:
    return Tier1Model(build(prof, proj)).compute().text


# --- framing ---------------------------------------------------------------------------------


def test_prefix_closer_accepts_five_dashes_and_text(proj: Path) -> None:
    five = write(proj, "skills/a/SKILL.md", "---\nname: a\ndescription: A.\n-----\nBody\n")
    text = write(proj, "skills/b/SKILL.md", "---\nname: b\ndescription: B.\n---x\nBody\n")
    usual = build(profile(), proj)
    assert get(usual, five).status == "skipped" and get(usual, text).status == "skipped"
    cat = build(profile('[frontmatter]\ncloser = "prefix"'), proj)
    for path in (five, text):
        assert get(cat, path).loaded and "delimiter-lenient" in rules_of(get(cat, path))


def test_prefix_opener_reads_from_the_fifth_character(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", "----\nname: a\ndescription: A.\n---\n")
    assert get(build(profile(), proj), path).status == "skipped"
    cat = build(profile('[frontmatter]\nopener = "prefix"'), proj)
    assert get(cat, path).loaded and get(cat, path).description == "A."


def test_exact_and_trimmed_openers(proj: Path) -> None:
    spaced = write(proj, "skills/a/SKILL.md", "--- \nname: a\ndescription: A.\n---\n")
    indented = write(proj, "skills/b/SKILL.md", " ---\nname: b\ndescription: B.\n---\n")
    exact = build(profile('[frontmatter]\nopener = "exact"'), proj)
    assert get(exact, spaced).status == "skipped"
    assert "no-frontmatter" in rules_of(get(exact, spaced))
    trimmed = build(profile('[frontmatter]\nopener = "trimmed"'), proj)
    assert get(trimmed, indented).loaded and get(trimmed, spaced).loaded


def test_dashes_opener_and_closer(proj: Path) -> None:
    four = write(proj, "skills/a/SKILL.md", "----  \nname: a\ndescription: A.\n-----\nBody\n")
    text = write(proj, "skills/b/SKILL.md", "---\nname: b\ndescription: B.\n---x\nBody\n")
    usual = build(profile(), proj)
    assert get(usual, four).status == "skipped"
    cat = build(profile('[frontmatter]\nopener = "dashes"\ncloser = "dashes"'), proj)
    e = get(cat, four)
    assert e.loaded and e.description == "A." and "delimiter-lenient" in rules_of(e)
    # '---x' is not a line of dashes: the block stays open and the file has no frontmatter.
    assert get(cat, text).status == "skipped"
    assert "frontmatter-unclosed" in rules_of(get(cat, text))


def test_trimmed_dashes_opener_allows_white_space_around_the_dashes(proj: Path) -> None:
    spaced = write(proj, "skills/a/SKILL.md", "  ----\nname: a\ndescription: A.\n-----\nBody\n")
    dashes = build(profile('[frontmatter]\nopener = "dashes"\ncloser = "dashes"'), proj)
    assert get(dashes, spaced).status == "skipped"
    cat = build(profile('[frontmatter]\nopener = "trimmed-dashes"\ncloser = "dashes"'), proj)
    e = get(cat, spaced)
    assert e.loaded and e.description == "A." and "delimiter-lenient" in rules_of(e)


def test_before_opener_nothing_means_no_frontmatter(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", "\n" + fm("name: a\ndescription: A."))
    assert get(build(profile(), proj), path).loaded
    cat = build(profile('[frontmatter]\nbefore_opener = "nothing"'), proj)
    assert get(cat, path).status == "skipped"
    assert "no-frontmatter" in rules_of(get(cat, path))


def test_nul_bytes_as_text(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: Has \x00 a NUL."))
    assert get(build(profile(), proj), path).status == "skipped"
    cat = build(
        profile('[frontmatter]\nnul_bytes = "text"\n[rules]\nbinary-content = "warning"'), proj
    )
    e = get(cat, path)
    assert e.loaded and e.description == "Has \x00 a NUL." and "binary-content" in rules_of(e)


# --- reading values ----------------------------------------------------------------------------


def test_trim_lists_the_fields_a_runtime_trims(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm('name: "  a  "\ndescription: |\n  One\n  Two'))
    usual = get(build(profile(), proj), path)
    assert (usual.name, usual.description) == ("a", "One\nTwo")
    kept = get(build(profile("[frontmatter]\ntrim = []"), proj), path)
    assert (kept.name, kept.description) == ("  a  ", "One\nTwo\n")
    with pytest.raises(ProfileError, match="trim"):
        profile('[frontmatter]\ntrim = ["body"]')


def test_empty_and_blank_values(proj: Path) -> None:
    empty = write(proj, "skills/a/SKILL.md", fm('name: ""\ndescription: ""'))
    blank = write(proj, "skills/b/SKILL.md", fm('name: "  "\ndescription: "  "'))
    number = write(proj, "skills/c/SKILL.md", fm("name: 12\ndescription: C."))
    cat = build(profile('[frontmatter]\nname_default = "directory"'), proj)
    assert {"name-empty", "description-empty"} <= rules_of(get(cat, empty))
    assert get(cat, empty).name == "a"
    assert {"name-empty", "description-empty"} <= rules_of(get(cat, blank))
    assert "name-not-string" in rules_of(get(cat, number))
    untrimmed = build(profile('[frontmatter]\nname_default = "directory"\ntrim = []'), proj)
    e = get(untrimmed, blank)
    assert e.name == "  " and "description-empty" in rules_of(e)
    kept = build(profile("[frontmatter]\ntrim = []\nblank_is_empty = false"), proj)
    e = get(kept, blank)
    assert e.description == "  " and not {"description-empty", "description-not-string"} & rules_of(
        e
    )


def test_null_values(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name:\ndescription:"))
    usual = get(build(profile('[frontmatter]\nname_default = "directory"'), proj), path)
    assert {"name-empty", "description-missing"} <= rules_of(usual) and usual.name == "a"
    typed = profile('[frontmatter]\nname_default = "directory"\nnull_values = "wrong-type"')
    e = get(build(typed, proj), path)
    assert {"name-not-string", "description-not-string"} <= rules_of(e)


def test_core_timestamps_typing(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: 2024-01-02"))
    assert get(build(profile(), proj), path).description == "2024-01-02"
    e = get(build(profile('[frontmatter]\ntyping = "core-timestamps"'), proj), path)
    assert "description-not-string" in rules_of(e)


def test_list_empty_description(proj: Path) -> None:
    write(proj, "skills/a/SKILL.md", fm('name: a\ndescription: ""'))
    base = '[frontmatter]\ntrim = []\n[rules]\ndescription-empty = "warning"\n'
    assert listing(profile(base, T1), proj) == ""
    text = listing(profile(base, T1 + "list_empty_description = true"), proj)
    assert "a||" in text


def test_duplicate_keys_error(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: One.\ndescription: Two."))
    usual = get(build(profile(), proj), path)
    assert usual.loaded and usual.description == "Two." and "duplicate-key" in rules_of(usual)
    refused = get(build(profile('[frontmatter]\nduplicate_keys = "error"'), proj), path)
    assert refused.status == "skipped" and "yaml-error" in rules_of(refused)


def test_merge_keys(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name: a\nbase: &b {description: Merged.}\n<<: *b"))
    assert get(build(profile(), proj), path).description is None
    assert get(build(profile("[frontmatter]\nmerge_keys = true"), proj), path).description == (
        "Merged."
    )


def test_yaml_repair(proj: Path) -> None:
    colon = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: Use when: x"))
    tab = write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: >\n\tTabbed."))
    assert get(build(profile(), proj), colon).status == "skipped"
    cat = build(
        profile('[frontmatter]\nyaml_repair = ["tabs-to-spaces", "quote-colon-values"]'), proj
    )
    assert get(cat, colon).description == "Use when: x"
    assert "yaml-repaired" in rules_of(get(cat, colon))
    assert get(cat, tab).description == "Tabbed."


def test_claude_codes_retry_quotes_special_values_then_untabs(proj: Path) -> None:
    # Claude Code 2.1.330 (bkr / tu): Bun.YAML on the block as written; after an error, values
    # holding ': ' or YAML's special characters quoted, then leading tabs two spaces each.
    colon = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: Use when: x"))
    block = write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: >\n\tTabbed."))
    nested = write(proj, "skills/c/SKILL.md", fm("name: c\ndescription: C.\nmetadata:\n\tk: v"))
    flow = write(
        proj, "skills/d/SKILL.md", fm("name: d\ndescription: Use *all*: x\ntools: [Read, Grep]")
    )
    cat = build(
        profile('[frontmatter]\nyaml_repair = ["quote-special-values", "retry-leading-tabs"]'),
        proj,
    )
    assert get(cat, colon).description == "Use when: x"
    assert "yaml-repaired" in rules_of(get(cat, colon))
    # the folded block's '>' is quoted before the tab goes, so the block still fails
    assert get(cat, block).description is None and "yaml-error" in rules_of(get(cat, block))
    assert get(cat, nested).description == "C." and "yaml-repaired" in rules_of(get(cat, nested))
    assert get(cat, flow).description == "Use *all*: x"  # the flow list is left as it is
    with pytest.raises(ProfileError, match="yaml_repair"):
        profile('[frontmatter]\nyaml_repair = ["quote-special-values", "quote-colon-values"]')


_PLAIN = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")))


@given(_PLAIN, st.sampled_from([*"{}[]*&#!|>%@`", ": "]), _PLAIN)
def test_a_quoted_special_value_reads_back_as_written(head: str, special: str, tail: str) -> None:
    value = (head + special + tail).lstrip()
    line = f"description: {value}"
    quoted = quote_special_values(line)
    if quoted == line:  # already quoted, or a flow list
        assert value[0] in "\"'[" and value[-1] in "\"']"
        return
    assert read_yaml(quoted + "\n", 1, "core").data == {"description": value}


def test_a_nul_in_the_frontmatter_fails_a_reader_that_refuses_it(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: Has \x00 a NUL."))
    text = get(build(profile('[frontmatter]\nnul_bytes = "text"'), proj), path)
    assert text.description == "Has \x00 a NUL."
    # Claude Code 2.1.330: Bun.YAML refuses the NUL, the retry too; empty metadata, and the
    # description is the body's first line
    claude = write(proj, ".claude/skills/a/SKILL.md", fm("name: a\ndescription: Has \x00 a NUL."))
    entry = get(build(load_profile("claude-code"), proj), claude)
    assert entry.loaded and entry.description == "Body." and "yaml-error" in rules_of(entry)


def test_requote_description_at_error(proj: Path) -> None:
    # OpenClaw's normalizeFreeformFieldAtError: the line the YAML error is on, when it is the
    # top-level description, becomes `description: <JSON string>` (matching outer quotes off),
    # up to three times; any other line leaves the block broken.
    cases = {
        "open": ('name: open\ndescription: "never closed', '"never closed'),
        "single": ("description: 'it never ends", "'it never ends"),
        "colon": ("description: Use when: x\nname: colon", "Use when: x"),
        "flow": ("description: [a, b", "[a, b"),
        "alias": ("description: *nowhere", "*nowhere"),
        "quoted-key": ('"description": "open', '"open'),
        "summary": ("summary: Use when: y\ndescription: S.", "S."),
    }
    refused = {
        "name-colon": "name: a: b\ndescription: D.",
        "runs-on": 'description: "never closed\nname: x',  # the error is on the last line
        "indented": "metadata:\n  description: x: y\ndescription: D.",
        "block": "description: |\n  a\n bad: x",
        "blank-end": 'description: "open\n',  # the error is on the empty last line
        "summary-no-colon": 'summary: "open\ndescription: D.',
    }
    paths = {k: write(proj, f"skills/{k}/SKILL.md", fm(v)) for k, (v, _) in cases.items()}
    paths |= {k: write(proj, f"skills/{k}/SKILL.md", fm(v)) for k, v in refused.items()}
    assert all(get(build(profile(), proj), p).status == "skipped" for p in paths.values())
    cat = build(profile('[frontmatter]\nyaml_repair = ["requote-description-at-error"]'), proj)
    for key, (_, description) in cases.items():
        e = get(cat, paths[key])
        assert e.loaded and e.description == description, key
        assert "yaml-repaired" in rules_of(e), key
    for key in refused:
        assert get(cat, paths[key]).status == "skipped", key
    colon = build(profile('[frontmatter]\nyaml_repair = ["quote-any-colon-values"]'), proj)
    assert get(colon, paths["name-colon"]).loaded  # the other repair quotes every colon value
    assert get(colon, paths["open"]).status == "skipped"


def test_fallback_variants(proj: Path) -> None:
    text = fm('name: "q"\ndescription: 42\n  continued\nname: last')
    path = write(proj, "skills/a/SKILL.md", text)
    on_error = profile('[frontmatter]\nyaml_errors = "fallback-lines"\nduplicate_keys = "error"')
    e = get(build(on_error, proj), path)
    assert (e.name, e.description) == ("q", "42")  # first of each, quotes stripped
    gemini_like = profile(
        "[frontmatter]\n"
        'yaml_errors = "fallback-lines"\nfallback_when = "not-strings"\n'
        'fallback_keys = "any-indent"\nfallback_quotes = "keep"\n'
        'fallback_continuation = true\nfallback_repeat = "last"'
    )
    e = get(build(gemini_like, proj), path)
    assert (e.name, e.description) == ("last", "42 continued")
    only_strings = write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: [x, y]"))
    e = get(build(gemini_like, proj), only_strings)
    assert e.description == "[x, y]" and "yaml-fallback" in rules_of(e)


def test_fallback_values_read_as_yaml_scalars(proj: Path) -> None:
    path = write(
        proj, "skills/a/SKILL.md", fm("name: a\ndescription: 'Quoted'\nbad: [\nenabled: false")
    )
    prof = profile(
        '[frontmatter]\nyaml_errors = "fallback-lines"\nfallback_values = "yaml-scalar"\n'
        "skip_fields = { enabled = false }"
    )
    e = get(build(prof, proj), path)
    assert e.frontmatter["enabled"] is False and e.frontmatter["description"] == "Quoted"
    assert e.status == "skipped" and "disabled-in-frontmatter" in rules_of(e)


def test_skip_fields_compare_the_type(proj: Path) -> None:
    off = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: A.\nenabled: false"))
    text = write(proj, "skills/b/SKILL.md", fm('name: b\ndescription: B.\nenabled: "false"'))
    cat = build(profile("[frontmatter]\nskip_fields = { enabled = false }"), proj)
    assert get(cat, off).status == "skipped" and get(cat, text).loaded


def test_string_null_typing(proj: Path) -> None:
    path = write(proj, "skills/a/SKILL.md", fm("name: 12\ndescription: ~"))
    e = get(build(profile('[frontmatter]\ntyping = "string-null"'), proj), path)
    assert e.name == "12" and e.description is None and "description-missing" in rules_of(e)


# --- discovery -----------------------------------------------------------------------------------


def test_in_root_order_decides_a_clash_in_one_root(proj: Path) -> None:
    a = write(proj, "skills/x/SKILL.md", fm("name: Same\ndescription: X."))
    b = write(proj, "skills/x-2/SKILL.md", fm("name: Same\ndescription: X2."))
    by_path = build(profile(), proj)
    assert get(by_path, a).loaded and not get(by_path, b).loaded
    by_string = build(profile('[discovery]\nin_root_order = "path-string"'), proj)
    assert get(by_string, b).loaded  # 'x-2/SKILL.md' < 'x/SKILL.md'
    by_name = build(profile('[discovery]\nin_root_order = "name"'), proj)
    assert get(by_name, b).loaded


def test_file_system_order_reports_a_varying_winner(proj: Path) -> None:
    a = write(proj, "skills/a/SKILL.md", fm("name: same\ndescription: A."))
    b = write(proj, "skills/b/SKILL.md", fm("name: same\ndescription: B."))
    cat = build(profile('[discovery]\nin_root_order = "file-system"'), proj)
    for path in (a, b):
        assert "clash-winner-varies" in rules_of(get(cat, path))
    assert get(cat, a).status == "warning"  # the guess loads, without certainty
    assert get(cat, b).reason.startswith("probably shadowed")


@pytest.mark.parametrize(
    ("settings", "rule", "end"),
    [
        ('[discovery]\nin_root_order = "file-system"', "clash-winner-varies", "and 2 more)"),
        ('[precedence]\nrule = "keep-both"', "kept-both", "and 2 more"),
    ],
)
def test_a_clash_among_many_copies_names_a_few_and_counts_the_rest(
    proj: Path, settings: str, rule: str, end: str
) -> None:
    from skillprism.core.codes import CODES

    paths = [
        write(proj, f"skills/c{i}/SKILL.md", fm(f"name: same\ndescription: C{i}."))
        for i in range(6)
    ]
    cat = build(profile(settings), proj)
    for path in paths:
        (message,) = [d.message for d in get(cat, path).diagnostics if CODES[d.code].rule == rule]
        # three of the five others by path, the other two counted: never all of thousands
        named = [p for p in paths if p != path and str(p) in message]
        assert str(path) not in message.rsplit("also", 1)[1]
        assert len(named) == 3 and message.endswith(end)


def test_winner_varies_across_roots(proj: Path) -> None:
    roots = (
        '[[roots]]\nscope = "p"\npath = "{project}/one"\n'
        '[[roots]]\nscope = "p"\npath = "{project}/two"\n'
    )
    a = write(proj, "one/s/SKILL.md", fm("name: s\ndescription: A."))
    b = write(proj, "two/s/SKILL.md", fm("name: s\ndescription: B."))
    certain = build(profile(roots=roots), proj)
    assert "clash-winner-varies" not in rules_of(get(certain, a))
    varies = build(profile('[precedence]\nwinner = "varies"', roots=roots), proj)
    assert all("clash-winner-varies" in rules_of(get(varies, p)) for p in (a, b))


def test_stop_at_skill(proj: Path) -> None:
    outer = write(proj, "skills/outer/SKILL.md", fm("name: outer\ndescription: O."))
    inner = write(proj, "skills/outer/inner/SKILL.md", fm("name: inner\ndescription: I."))
    assert get(build(profile(), proj), inner).loaded
    cat = build(profile("[discovery]\nstop_at_skill = true"), proj)
    assert get(cat, outer).loaded and get(cat, inner).status == "not-discovered"


def test_ignore_files(proj: Path) -> None:
    write(proj, "skills/.gitignore", "hidden/\n*.tmp\n!kept-*\n")
    hidden = write(proj, "skills/hidden/SKILL.md", fm("name: hidden\ndescription: H."))
    kept = write(proj, "skills/kept/SKILL.md", fm("name: kept\ndescription: K."))
    assert get(build(profile(), proj), hidden).loaded
    cat = build(profile('[discovery]\nignore_files = [".gitignore"]'), proj)
    assert get(cat, hidden).status == "not-discovered" and get(cat, kept).loaded
    assert ".gitignore" in get(cat, hidden).reason


def test_md_files_in_a_root(proj: Path) -> None:
    extra = write(proj, "skills/extra.md", fm("name: extra\ndescription: E."))
    write(proj, "skills/s/SKILL.md", fm("name: s\ndescription: S."))
    assert str(extra) not in build(profile(), proj).by_key()
    roots = '[[roots]]\nscope = "p"\npath = "{project}/skills"\nmd_files = true\n'
    e = get(build(profile(roots=roots), proj), extra)
    assert e.loaded and e.name == "extra"


def test_follow_file_symlinks(proj: Path, tmp_path: Path) -> None:
    target = write(tmp_path, "elsewhere/real.md", fm("name: linked\ndescription: L."))
    link = proj / "skills/linked/SKILL.md"
    link.parent.mkdir(parents=True)
    os.symlink(target, link)
    assert get(build(profile(), proj), link).loaded
    cat = build(profile("[discovery]\nfollow_file_symlinks = false"), proj)
    assert get(cat, link).status == "not-discovered"


def test_root_rules_and_enabled_by(proj: Path) -> None:
    roots = (
        '[[roots]]\nscope = "strict"\npath = "{project}/strict"\n'
        'rules.description-missing = "skip"\n'
        '[[roots]]\nscope = "lax"\npath = "{project}/lax"\n'
        '[[roots]]\nscope = "off"\npath = "{project}/off"\nenabled_by = "the x setting is on"\n'
    )
    strict = write(proj, "strict/a/SKILL.md", fm("name: a"))
    lax = write(proj, "lax/b/SKILL.md", fm("name: b"))
    off = write(proj, "off/c/SKILL.md", fm("name: c\ndescription: C."))
    cat = build(profile('[rules]\ndescription-missing = "warning"', roots=roots), proj)
    assert get(cat, strict).status == "skipped" and get(cat, lax).loaded
    assert (
        get(cat, off).status == "not-discovered" and "the x setting is on" in get(cat, off).reason
    )
    assert any(d.code == RULES["root-off-by-default"].code for d in cat.diagnostics)
    with pytest.raises(ProfileError, match=r"roots\[0\]\.rules\.nope"):
        profile(roots='[[roots]]\nscope = "p"\npath = "{project}/x"\nrules.nope = "skip"\n')


def test_in_root_order_path_locale_compares_folders_as_locale_compare(proj: Path) -> None:
    lower = write(proj, "skills/dup-b/SKILL.md", fm("name: dup\ndescription: B."))
    upper = write(proj, "skills/dup-C/SKILL.md", fm("name: dup\ndescription: C."))
    plain = write(proj, "skills/x/SKILL.md", fm("name: x2\ndescription: X."))
    longer = write(proj, "skills/x-2/SKILL.md", fm("name: x2\ndescription: X-2."))
    by_code_point = build(profile(), proj)  # 'C' (0x43) before 'b'
    assert get(by_code_point, upper).loaded and get(by_code_point, lower).status == "shadowed"
    by_string = build(profile('[discovery]\nin_root_order = "path-string"'), proj)
    assert get(by_string, longer).loaded  # 'x-2/SKILL.md' before 'x/SKILL.md'
    cat = build(profile('[discovery]\nin_root_order = "path-locale"'), proj)
    # b before C, and a folder before the longer folder it begins (x before x-2): first wins
    assert get(cat, lower).loaded and get(cat, upper).status == "shadowed"
    assert get(cat, plain).loaded and get(cat, longer).status == "shadowed"


def test_unless_env_reads_a_root_only_while_the_variables_are_unset(proj: Path) -> None:
    roots = (
        '[[roots]]\nscope = "home"\npath = "{project}/home-skills"\n'
        '[[roots]]\nscope = "shared"\npath = "{project}/shared"\nunless_env = ["MY_HOME"]\n'
    )
    shared = write(proj, "shared/s/SKILL.md", fm("name: s\ndescription: S."))
    prof = profile(roots=roots)
    home = str(proj.parent / "home")
    unset = build_catalog(prof, project=str(proj), home=home, env={"MY_HOME": ""})
    assert get(unset, shared).loaded
    cat = build_catalog(prof, project=str(proj), home=home, env={"MY_HOME": "/x"})
    entry = get(cat, shared)
    assert entry.status == "not-discovered" and "$MY_HOME is not set" in entry.reason
    off = [d for d in cat.diagnostics if d.code == RULES["root-off-by-default"].code]
    assert off and "make sure $MY_HOME is not set" in off[0].hint
    with pytest.raises(ProfileError, match=r"roots\[0\]\.unless_env\[0\]"):
        profile(roots='[[roots]]\nscope = "p"\npath = "{project}/x"\nunless_env = ["A-B"]\n')


# --- tier 1 --------------------------------------------------------------------------------------

T1 = '[tier1]\nheader = "<h>"\nfooter = "</h>"\nentry = "{name}|{description}|{path}"\n'


def test_home_tilde_writes_paths_under_the_home_folder_with_a_tilde(proj: Path) -> None:
    home = proj.parent / "home"
    roots = (
        '[[roots]]\nscope = "project"\npath = "{project}/skills"\n'
        '[[roots]]\nscope = "personal"\npath = "~/skills"\n'
    )
    write(proj, "skills/p/SKILL.md", fm("name: p\ndescription: P."))
    write(home, "skills/h/SKILL.md", fm("name: h\ndescription: H."))
    t1 = '[tier1]\nheader = ""\nfooter = ""\nentry = "{name}={path}"\n'
    assert f"h={home}/skills/h/SKILL.md" in listing(profile(t1, roots=roots), proj)
    text = listing(profile(t1 + "home_tilde = true", roots=roots), proj)
    assert "h=~/skills/h/SKILL.md" in text and f"p={proj}/skills/p/SKILL.md" in text


def test_non_strings_js_json_reads_lists_and_mappings_as_json(proj: Path) -> None:
    lst = write(proj, "skills/l/SKILL.md", fm("name: l\ndescription: [one, 2, true, null]"))
    mp = write(proj, "skills/m/SKILL.md", fm('name: m\ndescription: {text: "n\\u00e9", k: 1.5}'))
    num = write(proj, "skills/n/SKILL.md", fm("name: n\ndescription: 12345"))
    rules = '[rules]\ndescription-not-string = "warning"\n'
    js = build(profile(rules, '[frontmatter]\nnon_strings = "js-string"'), proj)
    assert get(js, lst).description == "one,2,true,"
    assert not get(js, mp).description  # String() of a yaml mapping throws: no description
    cat = build(profile(rules, '[frontmatter]\nnon_strings = "js-json"'), proj)
    assert get(cat, lst).description == '["one",2,true,null]'
    assert get(cat, mp).description == '{"text":"n\u00e9","k":1.5}'
    assert get(cat, num).description == "12345"


def test_not_text_rules_act_apart_from_not_string(proj: Path) -> None:
    """A runtime that reads numbers as String() but throws on a mapping (Qwen Code): the mapping
    gets `*-not-text`, whose action can skip it while a number still loads."""
    num = write(proj, "skills/n/SKILL.md", fm("name: n\ndescription: 42"))
    mp = write(proj, "skills/m/SKILL.md", fm("name: m\ndescription: {k: v}"))
    mpn = write(proj, "skills/q/SKILL.md", fm("name: {k: v}\ndescription: Q."))
    rules = '[rules]\ndescription-not-string = "warning"\nname-not-string = "warning"\n'
    js = '[frontmatter]\nnon_strings = "js-string"\nname_default = "directory"\n'
    cat = build(profile(rules, js), proj)
    assert get(cat, num).loaded and "description-not-string" in rules_of(get(cat, num))
    assert "description-not-text" in rules_of(get(cat, mp))
    assert "description-not-string" not in rules_of(get(cat, mp))
    assert "name-not-text" in rules_of(get(cat, mpn))
    assert get(cat, mp).status == "error"  # the registry's default for the split rule
    skip = '[rules]\ndescription-not-text = "skip"\nname-not-text = "skip"\n'
    cat = build(profile(rules, skip, js), proj)
    assert get(cat, mp).status == "skipped" and get(cat, mpn).status == "skipped"
    assert get(cat, num).loaded
    refused = build(profile(rules), proj)  # a runtime that refuses every non-string
    assert "description-not-string" in rules_of(get(refused, mp))
    assert "description-not-text" not in rules_of(get(refused, mp))


def test_slug_name_key_and_refused_copies_taking_the_slot(proj: Path) -> None:
    """Factory Droid: names clash as slugs, and a refused copy ranked first keeps the name."""
    colon = write(proj, "skills/a/SKILL.md", fm('name: "x-y:z"\ndescription: A.'))
    plain = write(proj, "skills/b/SKILL.md", fm("name: x-y-z\ndescription: B."))
    upper = write(proj, "skills/c/SKILL.md", fm("name: Up\ndescription: C."))
    lower = write(proj, "skills/d/SKILL.md", fm("name: up\ndescription: D."))
    rules = "[rules]\nname-characters = \"skip\"\n[frontmatter]\nname_pattern = '^[a-z0-9-]+$'\n"
    usual = build(profile(rules, '[precedence]\nname_key = "slug"'), proj)
    assert get(usual, colon).status == "skipped" and get(usual, plain).status == "ok"
    assert get(usual, upper).status == "skipped" and get(usual, lower).status == "ok"
    held = build(profile(rules, '[precedence]\nname_key = "slug"\nrefused_take_slot = true'), proj)
    assert get(held, colon).status == "skipped" and get(held, upper).status == "skipped"
    for path, by in ((plain, colon), (lower, upper)):
        e = get(held, path)
        assert e.status == "shadowed" and not e.loaded and e.shadowed_by == str(by)
    exact = build(profile(rules, "[precedence]\nrefused_take_slot = true"), proj)
    assert get(exact, plain).status == "ok" and get(exact, lower).status == "ok"
    with pytest.raises(ProfileError, match="name_key"):
        profile('[precedence]\nname_key = "kebab"')


def test_slug_clash_key() -> None:
    from skillprism.core.profiles import clash_key

    p = profile('[precedence]\nname_key = "slug"')
    assert clash_key(p, "-Foo__Bar: baz-") == "foo-bar-baz"
    assert clash_key(p, "x") == "x" and clash_key(profile(), "Foo_Bar") == "Foo_Bar"


def test_null_values_line_text_reads_a_null_as_the_text_on_its_line(proj: Path) -> None:
    tilde = write(proj, "skills/t/SKILL.md", fm("name: t\ndescription: ~"))
    word = write(proj, "skills/w/SKILL.md", fm("name: w\ndescription: null"))
    empty = write(proj, "skills/e/SKILL.md", fm("name: e\ndescription:"))
    assert not get(build(profile(), proj), tilde).description
    cat = build(profile('[frontmatter]\nnull_values = "line-text"'), proj)
    assert get(cat, tilde).description == "~" and get(cat, tilde).loaded
    assert get(cat, word).description == "null"
    assert not get(cat, empty).description  # no text on the line: still missing


def test_escape_flavours_and_fields(proj: Path) -> None:
    write(proj, "skills/it's/SKILL.md", fm("name: it's\ndescription: \"a <b> 'c'\""))
    xml = listing(profile(T1 + 'escape = "xml"'), proj)
    assert "it&#x27;s|a &lt;b&gt; &#x27;c&#x27;|" in xml and "/it's/SKILL.md" in xml
    apos = listing(
        profile(T1 + 'escape = "xml-apos"\nescape_fields = ["description", "path"]'), proj
    )
    assert "it's|a &lt;b&gt; &apos;c&apos;|" in apos and "/it&apos;s/SKILL.md" in apos
    dec = listing(profile(T1 + 'escape = "xml-dec"\nescape_fields = ["path"]'), proj)
    assert "it's|a <b> 'c'|" in dec and "/it&#39;s/SKILL.md" in dec


def test_exclude_match_and_line_breaks(proj: Path) -> None:
    write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: |\n  One\n  Two\nhide: 'true'"))
    loose = listing(profile(T1 + "exclude_fields = { hide = true }"), proj)
    assert loose == ""
    exact = profile(T1 + 'exclude_fields = { hide = true }\nexclude_match = "exact"')
    assert "a|One Two|" in listing(exact, proj)
    kept = profile(
        T1 + 'exclude_fields = { hide = true }\nexclude_match = "exact"\nline_breaks = "keep"'
    )
    assert "a|One\nTwo|" in listing(kept, proj)


def test_tidy_lines() -> None:
    assert tidy_lines("<s>\n- a: x  \n\n\n- b\n\n</s>") == "<s>\n- a: x\n- b\n</s>"
    assert tidy_lines("a\n\nb") == "a\n\nb"


def test_listing_orders(proj: Path) -> None:
    for folder, name in (("1", "beta"), ("2", "Alpha"), ("3", "alpha-x"), ("4", "_under")):
        write(proj, f"skills/{folder}/SKILL.md", fm(f"name: {name}\ndescription: D."))

    def names(order: str) -> list[str]:
        text = listing(profile(T1 + f'order = "{order}"'), proj)
        return [line.split("|")[0] for line in text.split("\n")[1:-1]]

    assert names("name") == ["Alpha", "_under", "alpha-x", "beta"]
    assert names("name-casefold") == ["_under", "Alpha", "alpha-x", "beta"]
    assert names("name-locale") == ["_under", "Alpha", "alpha-x", "beta"]
    assert locale_key("a") < locale_key("A") < locale_key("b")


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_the_ascii_locale_key_is_the_per_character_one(text: str) -> None:
    from skillprism.core.ordering import _locale_key

    assert locale_key(text) == _locale_key(text)


def test_load_order_keeps_the_overridden_slot(proj: Path) -> None:
    roots = (
        '[[roots]]\nscope = "low"\npath = "{project}/low"\n'
        '[[roots]]\nscope = "high"\npath = "{project}/high"\n'
    )
    write(proj, "low/b/SKILL.md", fm("name: b\ndescription: low b."))
    write(proj, "low/c/SKILL.md", fm("name: c\ndescription: low c."))
    write(proj, "high/a/SKILL.md", fm("name: a\ndescription: high a."))
    write(proj, "high/b/SKILL.md", fm("name: b\ndescription: high b."))
    prec = '[precedence]\nrule = "last-wins"\n'
    text = listing(profile(prec, T1 + 'order = "load"', roots=roots), proj)
    assert [line.split("|")[1] for line in text.split("\n")[1:-1]] == [
        "high b.",
        "low c.",
        "high a.",
    ]


def test_scope_then_name(proj: Path) -> None:
    write(proj, "skills/1/SKILL.md", fm("name: zeta\ndescription: Z."))
    write(proj, "skills/2/SKILL.md", fm("name: alpha\ndescription: A."))
    text = listing(profile(T1 + 'order = "scope"\nscope_then = "name"'), proj)
    assert text.index("alpha|") < text.index("zeta|")


def test_builtin_skills_are_listed(proj: Path) -> None:
    write(proj, "skills/z/SKILL.md", fm("name: z\ndescription: Z."))
    prof = profile(
        T1 + 'order = "name"\nescape_fields = ["path"]\n'
        '[[tier1.builtin]]\nname = "b"\ndescription = "Built in."\nlocation = "<built-in>"\n'
    )
    text = listing(prof, proj)
    assert text.startswith("<h>\nb|Built in.|&lt;built-in&gt;\nz|Z.|")
    with pytest.raises(ProfileError, match="builtin"):
        profile('[[tier1.builtin]]\ndescription = "no name"\n')


def test_roots_table_and_short_paths(proj: Path) -> None:
    write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: A."))
    prof = profile(
        '[tier1]\nheader = "<h>\\n{roots}\\n--"\nfooter = "</h>"\n'
        'entry = "{name} ({short_path})"\nroot_alias = "r{index}"\n'
    )
    real = os.path.realpath(proj / "skills")
    assert listing(prof, proj) == f"<h>\n- `r0` = `{real}`\n--\na (r0/a/SKILL.md)\n</h>"
    with pytest.raises(ProfileError, match="root_alias"):
        profile('[tier1]\nroot_alias = "r"')


def test_default_context_window_is_the_window_when_nothing_names_one(proj: Path) -> None:
    # Claude Code 2.1.330's default model has a 1,000,000-token window, Codex 0.169.0's 272,000:
    # a user who picks none sees the listing that model gets, not Skill Prism's 200,000.
    for name in "abc":
        write(proj, f"skills/{name}/SKILL.md", fm(f"name: {name}\ndescription: {'word ' * 40}"))
    budget = '[tier1.budget]\nmodel = "drop-descriptions"\ncontext_fraction = 0.001\n'
    plain = Tier1Model(build(profile(budget), proj))
    assert plain.compute().context_window == 200_000
    assert "name-only" in {e.outcome for e in plain.compute().entries}  # 800 characters
    wide = Tier1Model(build(profile(budget + "default_context_window = 1000000"), proj))
    assert wide.compute().context_window == 1_000_000
    assert {e.outcome for e in wide.compute().entries} == {"full"}  # 4,000 characters
    # a window the user (or the runtime's own settings) names still decides
    named = wide.compute(BudgetSettings(context_window=200_000))
    assert "name-only" in {e.outcome for e in named.entries}
    with pytest.raises(ProfileError, match="default_context_window"):
        profile("[tier1.budget]\ndefault_context_window = -1")


def test_roots_free_bytes_takes_the_roots_table_off_a_round_robin_budget(proj: Path) -> None:
    # Codex 0.169.0: the roots table's bytes beyond an allowance cost tokens off the budget.
    for name in "abc":
        write(proj, f"skills/{name}/SKILL.md", fm(f"name: {name}\ndescription: {'word ' * 20}"))
    tier1 = (
        '[tier1]\nheader = "<h>\\n{roots}\\n--"\nfooter = "</h>"\nroot_alias = "r{index}"\n'
        'entry = "- {name}: {description} (file: {short_path})"\n'
        'entry_name_only = "- {name}: (file: {short_path})"\n'
        '[tier1.budget]\nmodel = "round-robin"\nunit = "tokens"\ncontext_fraction = 0.02\n'
    )
    table = f"- `r0` = `{os.path.realpath(proj / 'skills')}`"

    def outcomes(extra: str) -> list[str]:
        model = Tier1Model(build(profile(tier1 + extra), proj))
        lines = [x for x in model.compute().text.split("\n") if x.startswith("- ") and "(file" in x]
        tokens = sum(-(-(len(x.encode()) + 1) // 4) for x in lines)  # every line fits exactly
        result = model.compute(BudgetSettings(context_window=tokens * 50))
        return [e.outcome for e in result.entries]

    assert outcomes("") == ["full"] * 3
    assert outcomes(f"roots_free_bytes = {len(table)}") == ["full"] * 3  # within the allowance
    cut = outcomes(f"roots_free_bytes = {len(table) - 8}")  # 8 bytes over: 2 tokens off
    assert "shortened" in cut and "full" in cut
    with pytest.raises(ProfileError, match="roots_free_bytes"):
        profile('[tier1.budget]\nmodel = "trim-then-omit"\nroots_free_bytes = 10')


def test_cut_suffix(proj: Path) -> None:
    write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: " + "d" * 30))
    prof = profile(T1 + '[tier1.budget]\nmodel = "none"\nentry_cap_chars = 10\ncut_suffix = "..."')
    assert "a|ddddddd...|" in listing(prof, proj)


def test_clip_chomping_strip_drops_only_a_clip_blocks_final_line_break(proj: Path) -> None:
    """Copilot CLI: values kept as written (trim = ["name"]), but its reader drops the final line
    break of a '|' or '>' block; '|+' and quoted values keep theirs."""
    clip = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: |\n  One\n  Two"))
    folded = write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: >\n  One\n  two"))
    keep = write(proj, "skills/c/SKILL.md", fm("name: c\ndescription: |+\n  Keep\n"))
    quoted = write(proj, "skills/d/SKILL.md", fm('name: d\ndescription: "Ends\\n"'))
    kept = build(profile('[frontmatter]\ntrim = ["name"]'), proj)
    assert get(kept, clip).description == "One\nTwo\n"
    cat = build(profile('[frontmatter]\ntrim = ["name"]\nclip_chomping = "strip"'), proj)
    assert get(cat, clip).description == "One\nTwo"
    assert get(cat, folded).description == "One two"
    assert get(cat, keep).description == get(kept, keep).description == "Keep\n"
    assert get(cat, quoted).description == "Ends\n"
    with pytest.raises(ProfileError, match="clip_chomping"):
        profile('[frontmatter]\nclip_chomping = "keep"')


def test_yaml_reader_pyyaml_pure_refuses_a_tab_after_the_colon(proj: Path) -> None:
    """Mistral Vibe reads with yaml.safe_load (PyYAML's pure-Python reader): a tab after
    'description:' is a YAML error there, while libyaml reads the value."""
    path = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription:\tTabbed."))
    usual = get(build(profile(), proj), path)
    assert usual.loaded and usual.description == "Tabbed."
    pure = get(build(profile('[frontmatter]\nyaml_reader = "pyyaml-pure"'), proj), path)
    assert pure.status == "skipped" and "yaml-error" in rules_of(pure)
    plain = write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: |\n  Block."))
    e = get(build(profile('[frontmatter]\nyaml_reader = "pyyaml-pure"'), proj), plain)
    assert e.loaded and e.description == "Block."
    with pytest.raises(ProfileError, match="yaml_reader"):
        profile('[frontmatter]\nyaml_reader = "ruamel"')


def test_links_within_refuses_a_skill_file_linked_in_from_outside(tmp_path: Path) -> None:
    """Kilo Code (`project`) and OpenClaw (`root`): a skill whose real path leaves the folder is
    refused; one linked from inside it still loads, and a root without the key follows links."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    outside = write(tmp_path, "outside/far/SKILL.md", fm("name: far\ndescription: Far."))
    inside = write(proj, "docs/near/SKILL.md", fm("name: near\ndescription: Near."))
    (proj / "skills").mkdir()
    os.symlink(outside.parent, proj / "skills" / "far")
    os.symlink(inside.parent, proj / "skills" / "near")
    far, near = proj / "skills/far/SKILL.md", proj / "skills/near/SKILL.md"

    def catalog(within: str) -> Catalog:
        roots = '[[roots]]\nscope = "project"\npath = "{project}/skills"\n'
        if within:
            roots += f'links_within = "{within}"\n'
        return build(profile(roots=roots), proj)

    usual = catalog("")
    assert get(usual, far).loaded and get(usual, near).loaded
    for within in ("project", "root"):
        cat = catalog(within)
        e = get(cat, far)
        assert e.status == "skipped" and "link-outside-scope" in rules_of(e)
    assert get(catalog("project"), near).loaded  # inside the repository
    assert get(catalog("root"), near).status == "skipped"  # outside the root itself
    with pytest.raises(ProfileError, match="links_within"):
        profile(roots='[[roots]]\nscope = "project"\npath = "{project}/s"\nlinks_within = "home"\n')


# --- OpenHands: the byte-order mark, the Skill model's cut and the listing's body fallback -------


def test_bom_kept_as_text_hides_the_frontmatter(proj: Path) -> None:
    path = write(
        proj, "skills/a/SKILL.md", b"\xef\xbb\xbf" + fm("name: a\ndescription: A.").encode()
    )
    assert get(build(profile(), proj), path).description == "A."
    kept = profile(
        '[frontmatter]\nbom = "text"\nname_default = "directory"\n'
        '[rules]\nno-frontmatter = "warning"\ndescription-missing = "info"'
    )
    e = get(build(kept, proj), path)
    assert e.loaded and e.name == "a" and e.description is None
    assert {"bom", "no-frontmatter"} <= rules_of(e)
    with pytest.raises(ProfileError, match="bom"):
        profile('[frontmatter]\nbom = "keep"')


def test_clip_middle_keeps_head_and_tail_as_maybe_truncate() -> None:
    from skillprism.core.validate import clip_middle

    assert clip_middle("abcdefghij", 10, "..") == "abcdefghij"
    assert clip_middle("abcdefghijk", 8, "..") == "abc..ijk"
    assert clip_middle("abcdefghijk", 7, "..") == "abc..jk"  # the head gets the odd character
    assert clip_middle("x" * 10, 3, "long") == "lon"


def test_description_cut_middle_keeps_head_and_tail_around_the_notice(proj: Path) -> None:
    short = write(proj, "skills/a/SKILL.md", fm("name: a\ndescription: " + "h" * 20 + "t" * 20))
    long = write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: " + "x" * 600))
    warn = '\n[rules]\ndescription-length = "warning"'
    assert (
        get(build(profile("[frontmatter]\ndescription_max = 25" + warn), proj), short).description
        == "h" * 20 + "t" * 20
    )
    cut = '[frontmatter]\ndescription_max = 25\ndescription_cut = "middle"\n'
    e = get(build(profile(cut + 'description_cut_notice = "[cut]"' + warn), proj), short)
    assert e.description == "h" * 10 + "[cut]" + "t" * 10 and "description-length" in rules_of(e)
    named = cut.replace("25", "500") + 'description_cut_notice = "<at {path}>"' + warn
    e = get(build(profile(named), proj), long)
    assert len(e.description) == 500 and f"<at {long}>" in e.description
    with pytest.raises(ProfileError, match="description_max"):
        profile('[frontmatter]\ndescription_cut = "middle"')
    with pytest.raises(ProfileError, match="placeholder"):
        profile(cut + 'description_cut_notice = "{name}"')


def test_listing_body_fallback_cut_notice_and_strip(proj: Path) -> None:
    write(proj, "skills/a/SKILL.md", "---\nname: a\n---\n\n# Title\n\nFirst line.\nSecond.\n")
    write(proj, "skills/b/SKILL.md", fm('name: b\ndescription: "  ' + "d" * 25 + '\\n"'))
    write(proj, "skills/c/SKILL.md", fm('name: c\ndescription: "  short  "'))
    write(proj, "skills/d/SKILL.md", fm("name: d\ndescription: Only.").replace("Body.", ""))
    base = (
        '[frontmatter]\ntrim = []\n[rules]\ndescription-missing = "info"\n'
        + T1
        + 'require_description = false\nline_breaks = "keep"\nentry_name_only = "{name}||{path}"\n'
        + '[tier1.budget]\nmodel = "none"\nentry_cap_chars = 20\n'
    )
    plain = listing(profile(base), proj)
    assert "a||" in plain and "|  short  |" in plain
    keys = base.replace(
        "require_description",
        'description_fallback = "first-body-line"\nstrip_description = true\nrequire_description',
    )
    text = listing(profile(keys + 'cut_notice = "+{count} ({name})"'), proj)
    assert "a|First line.+8 (a)|" in text  # "\nSecond." follows the line
    assert "b|" + "d" * 18 + "+8 (b)|" in text  # cut at 20 raw characters, then stripped
    assert "c|short|" in text and "d|Only.|" in text
    with pytest.raises(ProfileError, match="cut_notice"):
        profile(keys.replace('"none"', '"drop-descriptions"') + 'cut_notice = "+{count}"')
    with pytest.raises(ProfileError, match="placeholder"):
        profile(keys + 'cut_notice = "{path}"')


def test_md_files_below_a_root_named_by_path_and_listed_only_with_triggers(proj: Path) -> None:
    write(proj, "skills/s/SKILL.md", fm("name: s\ndescription: S."))
    ref = write(proj, "skills/s/references/guide.md", "# Guide\n")
    notes = write(proj, "skills/notes.md", "Always answer in French.\n")
    deep = write(proj, "skills/group/Deep_One.md", fm("description: Deep.\ntriggers: [deep]"))
    readme = write(proj, "skills/README.md", "# Read me\n")
    hidden = write(proj, "skills/.hidden/h.md", fm("name: h\ndescription: H."))
    roots = '[[roots]]\nscope = "p"\npath = "{project}/skills"\nlayout = "one-level"\n'
    checks = (
        '[frontmatter]\nname_default = "directory"\nname_charset = "ascii-lower"\n'
        '[rules]\nname-directory-mismatch = "skip"\nno-frontmatter = "warning"\n'
        'description-missing = "info"\n'
    )
    legacy = '[discovery]\nmd_name = "path"\nmd_strict = false\n'
    in_root = build(profile(checks, legacy, roots=roots + "md_files = true\n"), proj)
    assert get(in_root, notes).loaded and str(deep) not in in_root.by_key()
    prof = profile(
        checks,
        legacy,
        T1 + 'md_listed_with = ["triggers", "inputs"]\n',
        roots=roots + 'md_files = "below"\n',
    )
    cat = build(prof, proj)
    keys = cat.by_key()
    assert str(ref) not in keys and str(readme) not in keys
    assert (get(cat, notes).name, get(cat, notes).loaded) == ("notes", True)
    assert (get(cat, deep).name, get(cat, deep).loaded) == ("group/Deep_One", True)
    assert get(cat, hidden).loaded and get(cat, hidden).name == "h"
    text = Tier1Model(cat).compute().text
    assert "group/Deep_One|Deep.|" in text and "s|S.|" in text
    assert "notes|" not in text and "h|H.|" not in text  # no triggers: kept out of the listing
    # By default an .md skill is named by its folder and its name checked like a skill file's.
    by_folder = build(profile(checks, roots=roots + 'md_files = "below"\n'), proj)
    assert get(by_folder, deep).name == "group" and get(by_folder, hidden).status == "skipped"
    with pytest.raises(ProfileError, match="md_strict"):
        profile('[discovery]\nmd_name = "path"')
    with pytest.raises(ProfileError, match="md_files"):
        profile(roots=roots + 'md_files = "deep"\n')


# --- keys the Claude Code lab run (drivers/claude-code.py) added ---------------------------------


def test_substring_closer_ends_the_frontmatter_at_the_first_dashes_anywhere(proj: Path) -> None:
    inner = write(
        proj, "skills/a/SKILL.md", "---\nname: a\ndescription: Split --- here.\n---\nBody\n"
    )
    own = write(proj, "skills/b/SKILL.md", "---\nname: b\ndescription: B.\n---\n\n\nBody\n")
    open_ = write(proj, "skills/c/SKILL.md", "---\nname: c\ndescription: C.\n...\nBody\n")
    usual = build(profile(), proj)
    assert get(usual, inner).description == "Split --- here."
    cat = build(
        profile('[frontmatter]\ncloser = "substring"\n[rules]\nfrontmatter-unclosed = "warning"'),
        proj,
    )
    a = get(cat, inner)
    assert a.loaded and a.description == "Split" and "delimiter-lenient" in rules_of(a)
    b = get(cat, own)
    assert b.loaded and b.description == "B." and "delimiter-lenient" not in rules_of(b)
    c = get(cat, open_)  # no '---' after the opener: no frontmatter, the whole file is the body
    assert c.loaded and not c.description and "frontmatter-unclosed" in rules_of(c)


def test_first_line_description_default(proj: Path) -> None:
    first = '[frontmatter]\nname_default = "directory"\ndescription_default = "first-line"\n'
    missing = write(proj, "skills/a/SKILL.md", "---\nname: a\n---\n\n## Deploy it\n\nMore.\n")
    blank = write(proj, "skills/b/SKILL.md", '---\nname: b\ndescription: "  "\n---\nPlain first\n')
    listed = write(proj, "skills/c/SKILL.md", "---\nname: c\ndescription: [x, y]\n---\n# Head\n")
    number = write(proj, "skills/d/SKILL.md", "---\nname: d\ndescription: 42\n---\nBody\n")
    long = write(proj, "skills/e/SKILL.md", "---\nname: e\n---\n" + "w" * 120 + "\n")
    empty = write(proj, "skills/f/SKILL.md", "---\nname: f\n---\n\n")
    usual = build(profile('[frontmatter]\nname_default = "directory"'), proj)
    assert get(usual, missing).description is None
    cat = build(profile(first), proj)
    assert get(cat, missing).description == "Deploy it"
    assert "description-defaulted" in rules_of(get(cat, missing))
    assert get(cat, blank).description == "Plain first"
    assert get(cat, listed).description == "Head"
    assert get(cat, number).description == "42"
    assert get(cat, long).description == "w" * 97 + "..."
    assert get(cat, empty).description == "Skill"


def test_description_rewrite_spaces_and_angle_entities(proj: Path) -> None:
    path = write(
        proj, "skills/a/SKILL.md", fm('name: a\ndescription: "Two  spaces\\tand <b>\\n\\nnext"')
    )
    assert get(build(profile(), proj), path).description == "Two  spaces\tand <b>\n\nnext"
    cat = build(profile('[frontmatter]\ndescription_rewrite = ["spaces", "angle-entities"]'), proj)
    assert get(cat, path).description == "Two  spaces and &lt;b&gt; next"
    with pytest.raises(ProfileError, match="description_rewrite"):
        profile('[frontmatter]\ndescription_rewrite = ["tabs"]')


def test_name_alias_shows_a_frontmatter_name_unlike_the_listed_one(proj: Path) -> None:
    name_src = '[frontmatter]\nname_source = "directory"\n'
    write(proj, "skills/a/SKILL.md", fm("name: other-a\ndescription: A."))
    write(proj, "skills/b/SKILL.md", fm("name: b\ndescription: B."))
    write(proj, "skills/c/SKILL.md", fm("name: other-a\ndescription: C."))  # a has it first
    write(proj, "skills/d/SKILL.md", fm("name: b\ndescription: D."))  # b is a listed name
    write(proj, "skills/e/SKILL.md", fm("name: has space\ndescription: E."))  # not a name
    t1 = '[tier1]\nheader = "<h>"\nfooter = "</h>"\nentry = "{name}: {description}"\n'
    plain = listing(profile(name_src, t1), proj)
    assert "a: A." in plain and "(" not in plain
    text = listing(profile(name_src, t1 + 'name_alias = "{name} ({alias})"'), proj)
    lines = text.split("\n")
    assert "a (other-a): A." in lines and "c: C." in lines
    assert "b: B." in lines and "d: D." in lines and "e: E." in lines
