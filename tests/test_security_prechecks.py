"""The security pass's one-pass checks over a file's bytes say what the slower checks over its
decoded text would: whether it holds an invisible character (`may_hide`), whether folding
undoes a disguise in it (`may_disguise`), whatever the bytes, invalid UTF-8 included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.core.security._unicode_tables import FOLD, INVISIBLE
from skillprism.core.security.markup import hidden_regions
from skillprism.core.security.text import disguised_lines, may_disguise
from skillprism.core.security.unicode_rules import _any_suspect, may_hide

# Characters from every table the checks are built from, beside ordinary text, so that most
# drawn texts hold some and many hold none.
_TABLE_CHARS = sorted(
    {chr(a) for a, _b in INVISIBLE}
    | {chr(b) for _a, b in INVISIBLE}
    | {chr(cp) for cp in list(FOLD)[::17]}
    | {chr(cp + 1) for cp in list(FOLD)[::29]}
)
_PLAIN = "abc XYZ 123 \n\t-_.,:;()[]<>`*#\u2014\u2192\u00e9\u4e2d\u6587\U0001f600\u0430\u0431"
_TEXTS = st.text(alphabet=st.sampled_from(sorted(set(_PLAIN)) + _TABLE_CHARS), max_size=60)
# Text encoded, with stray bytes put in: lone continuation bytes, cut sequences, surrogates.
_BYTES = st.builds(
    lambda text, junk, at: (lambda b: b[:at] + junk + b[at:])(text.encode("utf-8", "replace")),
    _TEXTS,
    st.sampled_from([b"", b"\x80", b"\xe2\x80", b"\xed\xa0\x80", b"\xc0\x80", b"\xff", b"\xf0"]),
    st.integers(min_value=0, max_value=200),
)


@settings(max_examples=400, deadline=None)
@given(_BYTES)
def test_may_hide_says_what_the_decoded_text_says(data: bytes) -> None:
    assert may_hide(data) == _any_suspect(data.decode("utf-8", "replace"))


@settings(max_examples=400, deadline=None)
@given(_BYTES)
def test_may_disguise_says_what_the_decoded_text_says(data: bytes) -> None:
    assert may_disguise(data) == bool(disguised_lines(data.decode("utf-8", "replace")))


def test_the_checks_find_their_characters_and_pass_plain_text() -> None:
    assert may_hide("a\u200bb".encode())
    assert may_hide(b"bell \x07")
    assert not may_hide("an em dash \u2014 and an arrow \u2192 \U0001f600".encode())
    assert may_disguise("p\u0430ypal".encode())  # a Cyrillic a
    assert not may_disguise("\u4e2d\u6587 \u2014 \u2192 \U0001f600".encode())
    assert may_disguise("caf\u00e9".encode())  # an accent folding drops


def test_hidden_regions_skip_code_blocks_when_they_look_at_a_candidate() -> None:
    text = (
        b"# Title <placeholder>\n\n```html\n<!-- shown as code -->\n```\n\n"
        b'<!-- a note -->\n<div style="display:none">hidden words here</div>\n'
    )
    found = [(rule, what) for rule, _a, _b, what, _text in hidden_regions(text)]
    assert found == [
        ("hidden-comment", "HTML comment"),
        ("hidden-element", "<div> hidden by its attributes"),
    ]
    assert hidden_regions(b"plain <placeholder> and a <br> tag\n") == []
