"""core/body_links.quick_targets finds link targets by jumping from ']' to ']' instead of running the
regexes over the whole body; it must return exactly what the regexes return, for any body."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillprism.core import body_links


def _by_regex(body: str) -> set[str]:
    quick = set(body_links._QUICK_LINK.findall(body))
    if "]:" in body:
        quick.update(body_links._QUICK_REF_DEF.findall(body))
    return quick


_PIECES = st.sampled_from(
    ["]", "[", "(", ")", "](", "]:", " ", "\n", "<", ">", "a", "x.md", "#s", "`", "é", "  [r]: "]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=40))
@example(["[a](x](y)"])
@example(["[a](", "]" * 100, "(z)"])
@example(["[r]: target.md\n", "see [t](references/t.md)"])
def test_quick_targets_match_the_regexes(pieces: list[str]) -> None:
    body = "".join(pieces)
    assert body_links.quick_targets(body) == _by_regex(body)


def test_many_brackets_take_the_regex_route() -> None:
    body = "[x](a.md) " * (body_links._QUICK_BRACKETS + 5) + "\n[r]: b.md\n[y](c.md)"
    assert body_links.quick_targets(body) == _by_regex(body) == {"a.md", "b.md", "c.md"}
