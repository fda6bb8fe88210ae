"""The reader and the frontmatter parser: delimiters, encodings, line ends, YAML typing and
positions, and refusal of hostile YAML in bounded time."""

from __future__ import annotations

import datetime
import time

import pytest

from skillprism.core.document import parse_document
from skillprism.core.yamlread import MAX_DEPTH, fallback_fields, read_yaml


def rules(doc) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.rule for f in doc.findings]


def test_plain_file_splits_into_frontmatter_and_body() -> None:
    doc = parse_document("x/SKILL.md", b"---\nname: a\ndescription: b\n---\n# Title\ntext\n")
    assert doc.findings == []
    assert doc.frontmatter_text == "name: a\ndescription: b"
    assert doc.frontmatter_first_line == 2
    assert doc.body_first_line == 5
    assert doc.body.startswith("# Title")
    assert doc.yaml("string").data == {"name": "a", "description": "b"}


def test_delimiters_are_lines_not_substrings() -> None:
    doc = parse_document("x", b"---\nname: a\ndescription: one --- two\n---\nbody --- more\n")
    assert doc.yaml("string").data["description"] == "one --- two"
    assert doc.body == "body --- more\n"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\xef\xbb\xbf---\nname: a\n---\n", ["bom"]),
        (b"---\r\nname: a\r\n---\r\nbody\r\n", ["crlf"]),
        (b"---\rname: a\r---\rbody\r", ["cr-only"]),
        (b"---   \nname: a\n--- \n", ["delimiter-trailing-space", "delimiter-trailing-space"]),
        (b"\n\n---\nname: a\n---\n", ["leading-blank-lines"]),
    ],
)
def test_tolerated_shapes_are_reported_and_still_parsed(raw: bytes, expected: list[str]) -> None:
    doc = parse_document("x", raw)
    assert rules(doc) == expected
    assert doc.yaml("string").data == {"name": "a"}


def test_crlf_positions_stay_on_the_right_line() -> None:
    doc = parse_document("x", b"---\r\nname: a\r\ndescription: b: c\r\n---\r\n")
    issue = doc.yaml("core").issues[0]
    assert (issue.rule, issue.line, issue.column) == ("yaml-error", 3, 15)


@pytest.mark.parametrize(
    ("raw", "rule", "line"),
    [
        (b"", "empty-file", 1),
        (b"   \n\n", "empty-file", 1),
        (b"# just markdown\n", "no-frontmatter", 1),
        (b"---\nname: a\n", "frontmatter-unclosed", 1),
        (b"---\nname: a\x00\n---\n", "binary-content", 2),
        (b"---\nname: caf\xe9\n---\n", "invalid-utf8", 2),
        (
            b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 12\n",
            "git-lfs-pointer",
            1,
        ),
    ],
)
def test_unusable_files_get_a_finding_with_a_line(raw: bytes, rule: str, line: int) -> None:
    doc = parse_document("x", raw)
    found = [f for f in doc.findings if f.rule == rule]
    assert found, rules(doc)
    assert found[0].line == line


def test_yaml_error_maps_to_file_line_and_gets_a_hint() -> None:
    doc = parse_document("x", b"\n---\nname: a\ndescription: Use when: you need it\n---\n")
    result = doc.yaml("core")
    assert result.failed
    issue = result.issues[0]
    assert issue.rule == "yaml-error"
    assert (issue.line, issue.column) == (4, 22)
    assert "quote values that contain ': '" in issue.hint


def test_duplicate_keys_are_reported_at_the_second_key() -> None:
    result = read_yaml("name: a\ndescription: x\nname: b\n", 2, "core")
    dup = [i for i in result.issues if i.rule == "duplicate-key"]
    assert len(dup) == 1 and (dup[0].line, dup[0].column) == (4, 1)
    assert "first at line 2" in dup[0].message
    assert result.data["name"] == "b"


def test_non_mapping_frontmatter_is_data_not_a_crash() -> None:
    assert read_yaml("- a\n- b\n", 2, "core").data == ["a", "b"]
    assert read_yaml("just a string", 2, "core").data == "just a string"


def test_key_positions_are_file_positions() -> None:
    result = read_yaml("name: a\nmetadata:\n  version: '1'\n", 5, "core")
    assert result.key_positions[("name",)] == (5, 1)
    assert result.key_positions[("metadata", "version")] == (7, 3)


SCALARS = "a: 1.5\nb: 2024-01-01\nc: yes\nd: true\ne: null\nf: 0x1f\ng: '1'\nh: ~\n"


def test_string_typing_keeps_every_scalar_as_written() -> None:
    data = read_yaml(SCALARS, 2, "string").data
    assert data == {
        "a": "1.5",
        "b": "2024-01-01",
        "c": "yes",
        "d": "true",
        "e": "null",
        "f": "0x1f",
        "g": "1",
        "h": "~",
    }


def test_core_typing_is_yaml_1_2() -> None:
    data = read_yaml(SCALARS, 2, "core").data
    assert data == {
        "a": 1.5,
        "b": "2024-01-01",
        "c": "yes",
        "d": True,
        "e": None,
        "f": 31,
        "g": "1",
        "h": None,
    }


def test_yaml11_typing_is_pyyaml_safe_load() -> None:
    data = read_yaml(SCALARS, 2, "yaml11").data
    assert data["b"] == datetime.date(2024, 1, 1)
    assert data["c"] is True


def test_flow_style_is_noticed() -> None:
    assert read_yaml("tags: [a, b]\n", 2, "core").flow_style
    assert not read_yaml("tags:\n  - a\n", 2, "core").flow_style


def test_python_tags_are_never_constructed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    marker = tmp_path / "ran"
    text = f"x: !!python/object/apply:os.system ['touch {marker}']\ny: !!python/name:os.system ''\n"
    result = read_yaml(text, 2, "yaml11")
    assert [i.rule for i in result.issues] == ["yaml-unsupported-tag", "yaml-unsupported-tag"]
    assert result.data == {"x": None, "y": None}
    assert not marker.exists()


def _timed(text: str) -> tuple[float, list[str]]:
    start = time.perf_counter()
    result = read_yaml(text, 2, "core")
    return time.perf_counter() - start, [i.rule for i in result.issues]


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(
            f"{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
    seconds, found = _timed("\n".join(lines))
    assert found == ["yaml-too-complex"]
    assert seconds < 2


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 100_000 + "]" * 100_000,
        "a: " + "{b: " * 50_000 + "1" + "}" * 50_000,
        "a: " + "- " * 100_000 + "x",
        "".join(" " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 10))
        + " " * (MAX_DEPTH + 10)
        + "v: 1\n",
    ],
    ids=["flow-seq", "flow-map", "block-seq", "block-map"],
)
def test_deep_nesting_is_refused_quickly(text: str) -> None:
    seconds, found = _timed(text)
    assert found and found[0] in ("yaml-too-complex", "yaml-error")
    assert seconds < 2


@pytest.mark.parametrize("depth", [1_001, 100_000], ids=["short", "long"])
def test_nesting_libyaml_stops_itself_is_too_complex(depth: int) -> None:
    # libyaml 0.2.6 and later raise their own error at 1,000 flow levels, scanning ahead of the
    # first token; it is the same refusal as deeper than MAX_DEPTH, not a YAML syntax error.
    result = read_yaml("a: " + "[" * depth + "]" * depth, 2, "core")
    assert [i.rule for i in result.issues] == ["yaml-too-complex"]


def test_fallback_line_parser_recovers_name_and_description() -> None:
    text = "name: my-skill\ndescription: Use when: the YAML is broken\nother: x\n"
    assert read_yaml(text, 2, "core").failed
    assert fallback_fields(text) == {
        "name": "my-skill",
        "description": "Use when: the YAML is broken",
    }


def test_a_huge_integer_survives_pickling() -> None:
    # Evaluations travel from worker processes by pickle; a value that cannot be rebuilt there
    # would stop the pool's result thread (and the check would wait forever).
    import pickle

    from skillprism.core.yamlread import HugeInteger

    value = HugeInteger(True, 4_500)
    back = pickle.loads(pickle.dumps(value))
    assert (type(back), back, back.digits) == (HugeInteger, value, 4_500)
