"""JSONC (JSON with comments and trailing commas), as Gemini CLI, Qwen Code and OpenCode write
their settings: read the same as the JSON it stands for, strings untouched, in linear time."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillprism.core.structured import StructuredError, parse_structured, strip_jsonc

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab/*,]}"\\ \n', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(values)
def test_plain_json_reads_the_same(value) -> None:
    assert parse_structured(json.dumps(value), "jsonc") == value


def test_comments_and_trailing_commas_are_blanked_in_place() -> None:
    text = '{\n  // a note "x"\n  "url": "http://a/*b*/", /* c */\n  "list": [1, 2,], /* d */\n}\n'
    assert parse_structured(text, "jsonc") == {"url": "http://a/*b*/", "list": [1, 2]}
    assert len(strip_jsonc(text)) == len(text) and strip_jsonc(text).count("\n") == 5
    with pytest.raises(StructuredError, match="line 3"):  # errors point into the original
        parse_structured('{\n  // ok\n  "a": ]\n}', "jsonc")
    with pytest.raises(StructuredError):
        parse_structured('{"a": /* never closed', "jsonc")


@pytest.mark.parametrize("hostile", ["/*" * 500_000, '"' + "\\" * 1_000_000, "," * 1_000_000])
def test_hostile_text_is_refused_quickly(hostile: str) -> None:
    start = time.perf_counter()
    with pytest.raises(StructuredError):
        parse_structured(hostile, "jsonc")
    assert time.perf_counter() - start < 5  # linear: a quadratic pass takes minutes here
