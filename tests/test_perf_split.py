"""document._split_usual (string search for the usual '---' ... '---' file) must split exactly as
the line-by-line route does whenever it takes a file, and leave every other file to that route."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillprism.core.document import SkillDocument, _split_lines, _split_usual

_LINES = st.sampled_from(
    ["---", "--- ", "---\t", "----", " ---", "---x", "name: a", "", "  ", "body", "x---", "\x85"]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(_LINES, st.text(max_size=6)), max_size=12), st.booleans())
@example(["---", "---"], False)
@example(["---", "name: a", "---", ""], True)
@example(["---", "a", "--- ", "b", "---", "c"], True)
def test_usual_split_matches_the_line_route(lines: list[str], opened: bool) -> None:
    text = "\n".join((["---"] if opened else []) + lines)
    fast, slow = SkillDocument(path="x"), SkillDocument(path="x")
    if _split_usual(fast, text):
        _split_lines(slow, text)
        assert fast == slow
    else:
        assert fast == SkillDocument(path="x")  # nothing set: the line route does it all
