"""Orders runtimes list skills in, as sort keys: the listing orders of `[tier1] order` and the
in-root load orders of `[discovery] in_root_order` (docs/profiles.md).

`locale_key` approximates `String.prototype.localeCompare` with the root locale (ICU's CLDR root
collation, what Bun and node use without a locale): white space, then punctuation and symbols in
CLDR order, then digits, then letters compared without case or accents first; accents break
ties, then case (lower before upper). Exact for ASCII names, close for the rest.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# CLDR root order of ASCII punctuation and symbols (all before digits and letters).
_PUNCT = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PUNCT_RANK = {c: i for i, c in enumerate(_PUNCT)}


@lru_cache(maxsize=4096)
def locale_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    if text.isascii():  # most names and paths: one table look-up per character
        return (
            tuple(_ASCII_PRIMARY[ord(ch)] for ch in text),
            (0,) * len(text),
            tuple(_ASCII_TERTIARY[ord(ch)] for ch in text),
        )
    return _locale_key(text)


def _locale_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in text:
        decomposed = unicodedata.normalize("NFD", ch)
        base = decomposed[0]
        marks = sum(ord(m) for m in decomposed[1:])
        if base.isspace():
            primary.append(1)
        elif base in _PUNCT_RANK:
            primary.append(10 + _PUNCT_RANK[base])
        elif base.isdigit():
            primary.append(100 + (unicodedata.digit(base, 0)))
        elif base.isalpha():
            primary.append(1000 + ord(base.lower()))
        else:
            primary.append(200 + ord(base) % 700)  # other symbols: after punctuation
        secondary.append(marks)
        tertiary.append(1 if base.isupper() else 0)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def casefold_key(name: str, path: str) -> tuple[str, str, str]:
    """Lower-cased name, then the name, then the whole path as a string (oh-my-pi)."""
    return name.lower(), name, path


# The keys of the 128 ASCII characters, as `_locale_key` gives them (no accents to decompose).
_ASCII_PRIMARY, _, _ASCII_TERTIARY = _locale_key("".join(chr(i) for i in range(128)))
