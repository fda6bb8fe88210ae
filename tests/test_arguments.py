"""Argument substitution (tier 2): every rule, its switches, spans and properties."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.core.arguments import (
    CLAUDE_CODE_APPEND,
    Substitution,
    SubstitutionResult,
    SubstitutionRules,
    shell_injections,
    split_arguments,
    substitute,
)

CC = SubstitutionRules()


def run(body: str, args: str = "", names: tuple[str, ...] = (), **rules: object) -> str:
    return substitute(body, args, SubstitutionRules(**rules), names).text  # type: ignore[arg-type]


def assert_spans(body: str, result: SubstitutionResult) -> None:
    for sub in result.substitutions:
        assert result.text[sub.start : sub.end] == sub.value
        assert body[sub.source_start : sub.source_end] == sub.placeholder


# --- splitting ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("", ()),
        ("   ", ()),
        ("a b  c", ("a", "b", "c")),
        ('"a b" c', ("a b", "c")),
        ("'a b' c", ("a b", "c")),
        ('foo "hello world" baz', ("foo", "hello world", "baz")),
        (r"a\ b c", ("a b", "c")),
        ("$HOME x", ("$HOME", "x")),  # variables stay literal text
        ('"" a', ("a",)),  # empty words dropped, as Claude Code filters empty tokens
        ("a # b", ("a", "#", "b")),  # no comment stripping
    ],
)
def test_split_shell(args: str, expected: tuple[str, ...]) -> None:
    split = split_arguments(args, "shell")
    assert split.values == expected
    assert split.note is None


@pytest.mark.parametrize("args", ["don't stop", '"open quote', "trailing\\"])
def test_split_unmatched_quote_falls_back_to_whitespace(args: str) -> None:
    split = split_arguments(args, "shell")
    assert split.values == tuple(args.split())
    assert split.note is not None and "whitespace" in split.note


def test_split_whitespace_mode_keeps_quotes() -> None:
    assert split_arguments('"a b" c', "whitespace").values == ('"a', 'b"', "c")


def test_split_rejects_unknown_quoting() -> None:
    with pytest.raises(ValueError, match="quoting"):
        split_arguments("a", "posix")  # type: ignore[arg-type]


# --- $ARGUMENTS --------------------------------------------------------------------------


def test_arguments_is_the_raw_string_with_quotes() -> None:
    result = substitute("Fix $ARGUMENTS now", '"a b"  c', CC)
    assert result.text == 'Fix "a b"  c now'
    assert not result.appended


def test_arguments_without_word_boundary_like_replace_all() -> None:
    assert run("$ARGUMENTSX", "v") == "vX"


def test_no_arguments_empties_arguments_and_appends_nothing() -> None:
    result = substitute("Review $ARGUMENTS.", "", CC)
    assert result.text == "Review ."
    assert not result.appended
    assert result.unmatched == ()


def test_no_arguments_leaves_positionals_and_names_per_their_rules() -> None:
    result = substitute("$0 $ARGUMENTS[1] $who", "", CC, ("who",))
    assert result.text == "$0 $ARGUMENTS[1] "
    assert result.unmatched == ("$0", "$ARGUMENTS[1]")
    assert not result.appended


# --- indexed and positional --------------------------------------------------------------


def test_indexed_is_zero_based() -> None:
    assert run("$ARGUMENTS[0]|$ARGUMENTS[2]", "a b c") == "a|c"


def test_positional_is_zero_based_and_uses_quoting() -> None:
    assert run("Migrate $0 from $1 to $2.", '"search bar" React Vue') == (
        "Migrate search bar from React to Vue."
    )


def test_dollar_ten_is_argument_ten() -> None:
    args = " ".join(f"a{i}" for i in range(12))
    assert run("$10 $1 $11", args) == "a10 a1 a11"


def test_dollar_ten_out_of_range_is_not_dollar_one_then_zero() -> None:
    result = substitute("$10", "a b", CC)
    assert result.text == "$10\n\nARGUMENTS: a b"  # nothing received a value -> appended
    assert result.unmatched == ("$10",)


def test_positional_needs_a_non_word_character_after() -> None:
    assert run("$1abc $1_x $0.01 $1-x", "a b") == "$1abc $1_x a.01 b-x"


def test_out_of_range_left_as_is_and_listed_once() -> None:
    result = substitute("$0 $1 $2 $2 $ARGUMENTS[5]", "x y", CC)
    assert result.text == "x y $2 $2 $ARGUMENTS[5]"
    assert result.unmatched == ("$2", "$ARGUMENTS[5]")
    assert any("left as written" in note for note in result.notes)


def test_missing_index_empty_variant() -> None:
    result = substitute("[$2][$ARGUMENTS[3]]", "x", SubstitutionRules(missing_index="empty"))
    assert result.text == "[][]"
    assert result.unmatched == ()
    assert not result.appended


def test_only_unmatched_placeholders_still_appends() -> None:
    # anthropics/claude-code#94709: one argument, body with $1/$2 only -> "ARGUMENTS: SOLO".
    result = substitute("use $1 and $2", "SOLO", CC)
    assert result.text == "use $1 and $2\n\nARGUMENTS: SOLO"
    assert result.appended


# --- escapes -----------------------------------------------------------------------------


@pytest.mark.parametrize("args", ["", "one two"])
def test_escapes_keep_placeholders_literal(args: str) -> None:
    body = r"cost \$0.01, awk '{print \$1}', \$ARGUMENTS, \$ARGUMENTS[0]"
    result = substitute(body, args, CC)
    assert result.text.startswith("cost $0.01, awk '{print $1}', $ARGUMENTS, $ARGUMENTS[0]")
    assert [s.kind for s in result.substitutions if s.kind == "escape"] == ["escape"] * 4
    assert result.unmatched == ()


def test_escape_does_not_count_as_receiving_arguments() -> None:
    assert run(r"literal \$0", "x") == "literal $0\n\nARGUMENTS: x"


def test_backslash_before_non_placeholder_is_left_alone() -> None:
    assert run(r"\$HOME \n \$undeclared", "x", append_when_absent="") == r"\$HOME \n \$undeclared"


def test_double_backslash_escapes_once() -> None:
    assert run(r"\\$0", "x", append_when_absent="") == r"\$0"


def test_escapes_switched_off() -> None:
    assert run(r"\$0", "x", escapes=False) == "\\x"


def test_escaped_variable_and_name() -> None:
    rules = SubstitutionRules(variables={"CLAUDE_SKILL_DIR": "/skills/a"})
    assert substitute(r"\${CLAUDE_SKILL_DIR} \$who", "", rules, ("who",)).text == (
        "${CLAUDE_SKILL_DIR} $who"
    )


# --- named -------------------------------------------------------------------------------


def test_named_maps_by_position() -> None:
    assert run("Fix $issue on $branch", "42 hotfix", ("issue", "branch")) == "Fix 42 on hotfix"


def test_named_longest_first() -> None:
    body = "$file / $filename"
    assert run(body, "a.txt b.txt", ("file", "filename")) == "a.txt / b.txt"
    assert run(body, "a.txt b.txt", ("filename", "file")) == "b.txt / a.txt"


def test_named_does_not_match_a_longer_word_or_index() -> None:
    assert run("$fileX $file[0] $file", "v", ("file",), append_when_absent="") == (
        "$fileX $file[0] v"
    )


def test_named_with_hyphen() -> None:
    assert run("$old-name -> $new-name", "A B", ("old-name", "new-name")) == "A -> B"


def test_undeclared_name_stays() -> None:
    result = substitute("$issue $other", "42", CC, ("issue",))
    assert result.text == "42 $other"
    assert result.unmatched == ()


def test_declared_name_without_argument_becomes_empty_with_note() -> None:
    result = substitute("[$a][$b]", "x", CC, ("a", "b"))
    assert result.text == "[x][]"
    assert any("$b" in note and "empty" in note for note in result.notes)


def test_digit_and_empty_names_are_dropped_before_positions() -> None:
    # Claude Code filters invalid names first, so "b" is the second name -> argument 1.
    assert run("$b $0", "x y", ("", "12", "a", "b")) == "y x"


def test_named_switched_off() -> None:
    assert run("$issue", "42", ("issue",), named=False) == "$issue\n\nARGUMENTS: 42"


# --- variables ---------------------------------------------------------------------------


def test_variables() -> None:
    rules = SubstitutionRules(
        variables={"CLAUDE_SKILL_DIR": "/home/u/.claude/skills/x", "CLAUDE_SESSION_ID": "s-1"}
    )
    result = substitute("run ${CLAUDE_SKILL_DIR}/scripts/a.sh (${CLAUDE_SESSION_ID})", "", rules)
    assert result.text == "run /home/u/.claude/skills/x/scripts/a.sh (s-1)"
    assert {s.kind for s in result.substitutions} == {"variable"}


def test_unknown_variable_and_bare_form_stay() -> None:
    rules = SubstitutionRules(variables={"CLAUDE_SKILL_DIR": "/d"})
    assert substitute("${OTHER} $CLAUDE_SKILL_DIR", "", rules).text == "${OTHER} $CLAUDE_SKILL_DIR"


def test_variables_do_not_prevent_append() -> None:
    rules = SubstitutionRules(variables={"CLAUDE_SKILL_DIR": "/d"})
    assert substitute("${CLAUDE_SKILL_DIR}", "x", rules).text == "/d\n\nARGUMENTS: x"


def test_variable_names_are_validated() -> None:
    with pytest.raises(ValueError, match="variable name"):
        SubstitutionRules(variables={"NOT VALID": "x"})
    with pytest.raises(ValueError, match="must be a string"):
        SubstitutionRules(variables={"OK": 3})  # type: ignore[dict-item]


def test_rules_are_frozen_hashable_and_copy_variables() -> None:
    source = {"A": "1"}
    rules = SubstitutionRules(variables=source)
    source["A"] = "2"
    assert rules.variables["A"] == "1"
    assert rules == SubstitutionRules(variables={"A": "1"})
    assert hash(rules) == hash(SubstitutionRules(variables={"A": "1"}))
    with pytest.raises(AttributeError):
        rules.quoting = "whitespace"  # type: ignore[misc]


# --- append ------------------------------------------------------------------------------


def test_append_exact_spacing() -> None:
    result = substitute("Do the thing.\n", "a 'b c'", CC)
    assert result.text == "Do the thing.\n\n\nARGUMENTS: a 'b c'"
    assert result.appended
    last = result.substitutions[-1]
    assert last.kind == "appended"
    assert result.text[last.start :] == CLAUDE_CODE_APPEND.replace("{args}", "a 'b c'")


def test_blank_arguments_do_not_append() -> None:
    assert substitute("body", "   ", CC).appended is False


def test_append_template_and_switch_off() -> None:
    assert run("body", "x", append_when_absent="\n[args: {args}]") == "body\n[args: x]"
    assert run("body", "x", append_when_absent="") == "body"


def test_no_append_when_any_placeholder_received() -> None:
    assert not substitute("only $0 here", "a b c", CC).appended


# --- switches ----------------------------------------------------------------------------


def test_indexed_off_leaves_bracket_after_arguments() -> None:
    assert run("$ARGUMENTS[0]", "a b", indexed=False) == "a b[0]"


def test_positional_off() -> None:
    assert run("$0 $ARGUMENTS[0]", "a", positional=False) == "$0 a"


def test_arguments_off() -> None:
    assert run("$ARGUMENTS", "a", arguments=False) == "$ARGUMENTS\n\nARGUMENTS: a"


def test_all_off_only_appends() -> None:
    rules = SubstitutionRules(arguments=False, indexed=False, positional=False, named=False)
    result = substitute("$ARGUMENTS $0", "a", rules)
    assert result.text == "$ARGUMENTS $0\n\nARGUMENTS: a"
    assert result.unmatched == ()


def test_whitespace_quoting_rule() -> None:
    assert run("$0", '"a b"', quoting="whitespace") == '"a'


def test_unmatched_quote_is_reported_not_raised() -> None:
    result = substitute("$0|$1", "it's ok", CC)
    assert result.text == "it's|ok"
    assert result.arguments == ("it's", "ok")
    assert any("whitespace" in note for note in result.notes)


def test_invalid_rules_raise_at_construction() -> None:
    with pytest.raises(ValueError):
        SubstitutionRules(quoting="bash")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SubstitutionRules(missing_index="drop")  # type: ignore[arg-type]


def test_from_mapping() -> None:
    rules = SubstitutionRules.from_mapping(
        {
            "positional": False,
            "append_when_absent": "",
            "variables": {"CLAUDE_SKILL_DIR": "/d"},
            "quoting": "whitespace",
        }
    )
    assert rules == SubstitutionRules(
        positional=False,
        append_when_absent="",
        variables={"CLAUDE_SKILL_DIR": "/d"},
        quoting="whitespace",
    )
    with pytest.raises(ValueError, match=r"unknown key substitution\.positonal"):
        SubstitutionRules.from_mapping({"positonal": False})
    with pytest.raises(ValueError, match=r"substitution\.named"):
        SubstitutionRules.from_mapping({"named": "yes"})
    with pytest.raises(ValueError, match=r"substitution\.quoting"):
        SubstitutionRules.from_mapping({"quoting": 1})


# --- single pass, code fences, spans, idempotence ----------------------------------------


def test_single_pass_values_are_not_resubstituted() -> None:
    result = substitute("$0 | $1 | $who", "'$1 $ARGUMENTS' '$0' '$who'", CC, ("x", "y", "who"))
    assert result.text == "$1 $ARGUMENTS | $0 | $who"


def test_arguments_value_with_placeholders_is_not_resubstituted() -> None:
    assert run("$ARGUMENTS", "$0 $ARGUMENTS") == "$0 $ARGUMENTS"


def test_fenced_code_blocks_are_substituted() -> None:
    body = "Run:\n\n```bash\nawk '!seen[$0]++' $1\n```\n"
    assert run(body, "A B") == "Run:\n\n```bash\nawk '!seen[A]++' B\n```\n"


def test_spans_point_at_values_in_output_and_placeholders_in_body() -> None:
    body = "a $0 b $ARGUMENTS c $ARGUMENTS[1] d ${CLAUDE_SKILL_DIR} e $who f \\$1 g $9"
    rules = SubstitutionRules(variables={"CLAUDE_SKILL_DIR": "/dir/x"})
    result = substitute(body, '"long value" v2 v3', rules, ("w", "h", "who"))
    assert [s.kind for s in result.substitutions] == [
        "positional",
        "arguments",
        "indexed",
        "variable",
        "named",
        "escape",
    ]
    assert_spans(body, result)
    assert result.substitutions[0] == Substitution(2, 12, "$0", "long value", "positional", 2, 4)
    assert result.unmatched == ("$9",)


def test_appended_span() -> None:
    result = substitute("body", "x y", CC)
    assert_spans("body", result)
    sub = result.substitutions[-1]
    assert (sub.source_start, sub.source_end) == (4, 4)
    assert result.text[sub.start : sub.end] == "\n\nARGUMENTS: x y"


@pytest.mark.parametrize(
    "body",
    ["", "plain text", "price $ 5, $HOME, $(cmd), ${X}, $-1, $", "```\ncode\n```\n", "a\\b\\$"],
)
def test_idempotent_on_bodies_without_placeholders(body: str) -> None:
    once = substitute(body, "", CC)
    assert once.text == body
    assert once.substitutions == ()
    assert substitute(once.text, "", CC).text == once.text


# --- properties --------------------------------------------------------------------------

_BODY = st.text(alphabet="$\\{}[]0123456789ARGUMENTSabfilenX_ -.\n`!", max_size=80)
_ARGS = st.text(alphabet="\"' \\$0aAb", max_size=20)
_NAMES = st.lists(st.sampled_from(["a", "ab", "file", "filename", "1", "", "ARG"]), max_size=4)
_RULES = st.builds(
    SubstitutionRules,
    arguments=st.booleans(),
    indexed=st.booleans(),
    positional=st.booleans(),
    named=st.booleans(),
    escapes=st.booleans(),
    append_when_absent=st.sampled_from(["", CLAUDE_CODE_APPEND]),
    variables=st.sampled_from([{}, {"X": "$0"}, {"CLAUDE_SKILL_DIR": "/d", "A": ""}]),
    quoting=st.sampled_from(["shell", "whitespace"]),
    missing_index=st.sampled_from(["keep", "empty"]),
)


def _is_subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(ch in it for ch in needle)


@settings(max_examples=300, deadline=None)
@given(body=_BODY, args=_ARGS, names=_NAMES, rules=_RULES)
def test_property_never_raises_and_keeps_body_text(
    body: str, args: str, names: list[str], rules: SubstitutionRules
) -> None:
    result = substitute(body, args, rules, names)
    assert_spans(body, result)
    # Rebuild the output from the body and the recorded spans: nothing else changed.
    rebuilt: list[str] = []
    kept: list[str] = []
    last = 0
    for sub in result.substitutions:
        assert sub.source_start >= last
        rebuilt += [body[last : sub.source_start], sub.value]
        kept.append(body[last : sub.source_start])
        last = sub.source_end
    rebuilt.append(body[last:])
    kept.append(body[last:])
    assert "".join(rebuilt) == result.text
    # Every character outside a placeholder survives, in order.
    assert _is_subsequence("".join(kept), result.text)
    assert result.text.startswith(kept[0])
    assert result.appended == any(s.kind == "appended" for s in result.substitutions)


@settings(max_examples=200, deadline=None)
@given(args=st.text(max_size=40))
def test_property_split_never_raises(args: str) -> None:
    split = split_arguments(args, "shell")
    assert all(split.values)
    assert split_arguments(args, "whitespace").values == tuple(args.split())


# --- shell injections ----------------------------------------------------------------------


def test_shell_injections_inline_and_blocks() -> None:
    body = (
        "Context:\n"
        "!`git status --short`\n"
        "diff: !`git diff HEAD` and !`ls`\n"
        "not!`this` nor `!`that``\n"
        "```!\n"
        "make test\n"
        "echo !`inside`\n"
        "```\n"
        "!`   `\n"
    )
    assert shell_injections(body) == [
        (2, "git status --short"),
        (3, "git diff HEAD"),
        (3, "ls"),
        (5, "make test\necho !`inside`"),
    ]


def test_shell_injections_none() -> None:
    assert shell_injections("plain `code` and ! bang") == []


def test_shell_injections_never_execute(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    assert shell_injections(f"!`touch {marker}`") == [(1, f"touch {marker}")]
    assert not marker.exists()
