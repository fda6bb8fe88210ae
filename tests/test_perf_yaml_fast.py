"""The simple-frontmatter fast path (yamlread.read_simple) must never differ from the general
route (read_composed): on any input it either gives up (None) or returns exactly what libyaml plus
the bounded builder give, for every typing: values and their types, key and value positions,
issues, flow style and failure."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skillprism.core.yamlread import TYPINGS, YamlResult, read_composed, read_simple, read_yaml


def _canon(value: Any) -> Any:
    """`value` with every type spelled out, so 1, 1.0 and True (and two NaNs) compare as they
    should."""
    if isinstance(value, dict):
        return ("dict", [(_canon(k), _canon(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_canon(v) for v in value])
    return (type(value).__name__, repr(value))


def _summary(result: YamlResult) -> tuple[Any, ...]:
    return (
        _canon(result.data),
        sorted(result.key_positions.items()),
        sorted(result.value_positions.items()),
        result.issues,
        result.flow_style,
        result.flow_style_at,
        result.failed,
    )


_KEYS = st.sampled_from(
    [
        "name",
        "description",
        "license",
        "metadata",
        "allowed-tools",
        "compatibility",
        "author",
        "version",
        "k",
        "a_b",
        "x-1",
        "y",
        "on",
        "null",
        "Yes",
        "true",
        "-k",
        "bad key",
        "ключ",
        "1",
    ]
)
# Characters that matter to YAML on one line, plus text, unicode and forbidden characters.
_CHARS = list("abcXYZ 019.-+~:#'\"\\[]{},!&*|>%@`?=<é😀\t\xa0\u2028\x85\x7f\ufeff/_")
_PLAIN = st.text(alphabet=_CHARS, max_size=24)
_DQ_PIECES = st.sampled_from(
    [
        "a",
        " ",
        "b c",
        "é",
        "😀",
        ":",
        ": ",
        " #",
        "#",
        "'",
        '\\"',
        "\\\\",
        "\\n",
        "\\t",
        "\\/",
        "\\0",
        "\\e",
        "\\N",
        "\\_",
        "\\L",
        "\\P",
        "\\ ",
        "\\x41",
        "\\u00e9",
        "\\q",
        '"',
        "\t",
        "\\",
    ]
)
_SQ_PIECES = st.sampled_from(["a", " ", "''", "'", '"', "\\", "#", " # x", ": ", "é", "\t"])
_VALUES = st.one_of(
    _PLAIN,
    st.lists(_DQ_PIECES, max_size=8).map(lambda p: '"' + "".join(p) + '"'),
    st.lists(_SQ_PIECES, max_size=8).map(lambda p: "'" + "".join(p) + "'"),
    st.sampled_from(["", "1", "1.5", "0x1f", "yes", "No", "~", "null", "2024-01-02", "<<", "="]),
    st.sampled_from(["[a, b]", "{a: 1}", "|", ">-", "&x a", "*x", "!!str a", "- a", "'a", '"a']),
)
_SEPARATORS = st.sampled_from([" ", "  ", "", "\t", " \t"])
_TAILS = st.sampled_from(["", "", "  ", " # note", "# x", "\t", " #", "  #: x"])
_INDENTS = st.sampled_from(["", "", "", "  ", "  ", "    ", " ", "\t"])


@st.composite
def _key_line(draw: st.DrawFn) -> str:
    return draw(_INDENTS) + draw(_KEYS) + ":" + draw(_SEPARATORS) + draw(_VALUES) + draw(_TAILS)


# Mostly well-formed lines, so that many examples reach the end of the fast path (the wild
# lines above mostly make it give up early).
_NEAR_KEYS = st.sampled_from(["name", "description", "metadata", "author", "version", "k"])
_NEAR_PLAIN = st.builds(
    str.__add__,
    st.sampled_from(list("abXé😀1-:#")),
    st.text(alphabet=list("abcXYZ 019.-:#/é😀_'\"\\[],!&*"), max_size=20),
)


_NEAR_VALUES = st.one_of(
    _NEAR_PLAIN,
    st.lists(_DQ_PIECES, max_size=6).map(lambda p: '"' + "".join(p) + '"'),
    st.lists(_SQ_PIECES, max_size=6).map(lambda p: "'" + "".join(p) + "'"),
    st.just(""),
)
_NEAR_TAILS = st.sampled_from(["", "", "  ", " # n"])


@st.composite
def _near_key_line(draw: st.DrawFn, indent: str = "") -> str:
    return indent + draw(_NEAR_KEYS) + ": " + draw(_NEAR_VALUES) + draw(_NEAR_TAILS)


@st.composite
def _near_block(draw: st.DrawFn) -> list[str]:
    """A top-level `key: value` line, or an empty `key:` with a nested map below it."""
    if draw(st.booleans()):
        return [draw(_near_key_line())]
    indent = draw(st.sampled_from([" ", "  ", "    "]))
    children = draw(st.lists(_near_key_line(indent), min_size=1, max_size=3))
    return [draw(_NEAR_KEYS) + ":" + draw(_NEAR_TAILS), *children]


_OTHER_LINES = st.sampled_from(
    ["", "   ", "# comment", "  # indented comment", "\t", "- item", "  continued", "---", "..."]
)
_LINES = st.one_of(_near_key_line(), _key_line(), _OTHER_LINES)
_QUIET_LINES = st.sampled_from(["", "  ", "# c", "  # c"])
# A document: any lines, or well-formed lines with at most one wild line among them.
_DOCUMENTS = st.one_of(
    st.lists(_LINES, max_size=10),
    st.builds(
        lambda blocks, quiet, wild, at: [
            *[line for b in blocks[:at] for line in b],
            *quiet,
            *wild,
            *[line for b in blocks[at:] for line in b],
        ],
        st.lists(_near_block(), min_size=1, max_size=6),
        st.lists(_QUIET_LINES, max_size=2),
        st.lists(_LINES, max_size=1),
        st.integers(0, 6),
    ),
)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCUMENTS, st.sampled_from(["", "\n"]), st.sampled_from([1, 2, 7]))
@example(["name: a", "description: b"], "\n", 2)
@example(["metadata:", "  author: x", "  version: '1.0'", "name: b"], "", 2)
@example(["a: x", "a:", "  k: 1", "  k: 2"], "\n", 2)
def test_fast_path_never_differs(lines: list[str], end: str, first_line: int) -> None:
    text = "\n".join(lines) + end
    for typing in TYPINGS:
        fast = read_simple(text, first_line, typing)
        if fast is not None:
            assert _summary(fast) == _summary(read_composed(text, first_line, typing)), typing


TYPICAL = (
    "name: pdf-tools\n"
    'description: "Extracts text from PDFs. Use when: the user says \\"pdf\\" # not a comment"\n'
    "license: Apache-2.0  # SPDX\n"
    "compatibility: 'Requires Python 3.10+, it''s fine'\n"
    "allowed-tools: Bash(git:*) Read Write\n"
    "\n"
    "metadata:\n"
    '  author: "docs-team"\n'
    "  version: '1.2'\n"
    "  homepage: https://example.com/#top\n"
)


def test_fast_path_takes_typical_frontmatter() -> None:
    for typing in TYPINGS:
        fast = read_simple(TYPICAL, 2, typing)
        assert fast is not None
        assert _summary(fast) == _summary(read_composed(TYPICAL, 2, typing))
        assert _summary(read_yaml(TYPICAL, 2, typing)) == _summary(fast)
    data = read_simple(TYPICAL, 2, "core").data  # type: ignore[union-attr]
    assert (
        data["description"]
        == 'Extracts text from PDFs. Use when: the user says "pdf" # not a comment'
    )
    assert data["metadata"] == {
        "author": "docs-team",
        "version": "1.2",
        "homepage": "https://example.com/#top",
    }


def test_fast_path_gives_up_on_anything_else() -> None:
    for text in (
        "tags: [a, b]\n",
        "description: |\n  block\n",
        "description: first\n  second line\n",
        "a: &x 1\nb: *x\n",
        "name:\ta\n",
        "name: a\r\n",
        "meta:\n  deep:\n    x: 1\n",
        "",
        "# only a comment\n",
        "- a\n- b\n",
        'd: "\\x41"\n',
    ):
        assert read_simple(text, 2, "core") is None, text
